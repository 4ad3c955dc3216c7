#!/usr/bin/env python3
"""Warp-level code on the simulator against plain loops of the same work.

Usage: warp_loops.py BUILD_DIR [--repeat N] [--hecbench DIR] [--jacobi-steps N]
                     [--shuffle-args REPEAT REPEAT2] [--md5-sizes N]
                     [--binomial-launches N] [--binomial-passes N] [--atomic-divide N]

Kernels with warp operations run, in plain runs, as warp loops (a warp's
lanes one after another to their next warp operation, which is then
completed for all: docs/simulator.md). This times, runs taken in turn:

- the lessons' warp-shuffle stages (reduction 4; scan 3 and 4; softmax 3
  and 4) at their --bench sizes, built as plain programs (the lesson
  programs of softmax and some others are instrumented builds, which run a
  fiber per thread), against the same work as plain C++ loops on one thread
  (peers/lesson_warp_stages_loop.cpp), and with a fiber per thread
  (CUDALAB_BLOCK_LOOPS=off) beside: target 5x the loops;
- with --hecbench DIR (or CUDALAB_HECBENCH): HeCBench's jacobi for
  --jacobi-steps steps (a copy of its source with max_iters set so) per
  step, and its shuffle with --shuffle-args (its own are 200000 100) whole
  process, against the same work as loops over the machine's cores
  (peers/jacobi_2048_loop.cpp, peers/shuffle_transpose_loop.cpp): target 3x;
- and the three that have no warp operation, at their own kernels with
  smaller sizes: md5hash (the first --md5-sizes of its four key spaces)
  against HeCBench's OpenMP port of it, hashes a second; binomial
  (--binomial-launches launches of its 1024 options) against
  peers/binomial_loop.cpp (--binomial-passes passes), a launch against a
  pass: target 1.5x; atomicCost (its 922,521,600 elements divided by
  --atomic-divide, one element a thread, one repeat) against its OpenMP
  port, peak memory (the largest resident set): target 1.25x.
"""
import argparse
import glob
import os
import shutil
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# The lessons' warp-shuffle stages: the line of the lesson program's --bench
# that gives each stage's milliseconds, and the peer's line of the same work.
STAGES = [
    ("reduction", "4 warp shuffles + atomicAdd", r"^\s*4 warp shuffles \+ atomicAdd\s+([0-9.]+) ms",
     "reduction"),
    ("scan", "3 reduce-then-scan", r"^\s*stage 3 reduce-then-scan\s+([0-9.]+) ms", "scan"),
    ("scan", "4 single pass", r"^\s*stage 4 single pass\s+([0-9.]+) ms", "scan"),
    ("softmax", "3 warp shuffles", r"^\s*stage 3, warp shuffles\s+([0-9.]+) ms", "softmax"),
    ("softmax", "4 online, one pass", r"^\s*stage 4, online, one pass\s+([0-9.]+) ms", "softmax"),
]


def run(cmd, env=None, timeout=None, errors_too=False):
    """Runs `cmd`, stops the benchmark if it fails; its output (and, with
    errors_too, what it wrote to stderr after that)."""
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        sys.exit(f"warp_loops: {' '.join(cmd)} failed (exit {r.returncode}):\n{r.stdout}{r.stderr}")
    return r.stdout + r.stderr if errors_too else r.stdout


def verdict(ratio, target):
    return f"{ratio:5.2f}x (target {target:g}x: {'met' if ratio <= target else 'MISSED'})"


def lesson_stages(args, tmp, cc, cxx):
    print("The lessons' warp-shuffle stages at their --bench sizes (ms a pass; best of "
          f"{args.repeat}, runs in turn):", flush=True)
    framework = os.path.join(args.build_dir, "lib", "libcudalab_framework.a")
    programs = {}
    for lesson in sorted({s[0] for s in STAGES}):
        out = os.path.join(tmp, lesson)
        src = os.path.join(ROOT, "lessons", lesson)
        run([cc, "--fast", "-O2", "-I", os.path.join(ROOT, "framework", "include"),
             os.path.join(src, "driver.cu"), os.path.join(src, "solution.cu"), framework,
             "-o", out])
        programs[lesson] = out
    peer = os.path.join(tmp, "lesson_warp_stages_loop")
    run([cxx, "-std=c++17", "-O2", os.path.join(HERE, "peers", "lesson_warp_stages_loop.cpp"),
         "-o", peer])
    fibers_env = dict(os.environ, CUDALAB_BLOCK_LOOPS="off")
    sim, fibers, loop = {}, {}, {}

    def keep_best(into, key, ms):
        into[key] = min(into.get(key, 1e30), ms)

    for r in range(args.repeat):
        for lesson, prog in programs.items():
            out = run([prog, "--bench"])
            for name, label, pattern, _ in STAGES:
                if name == lesson:
                    m = re.search(pattern, out, re.M)
                    if not m:
                        sys.exit(f"warp_loops: {lesson} --bench printed no line for stage "
                                 f"'{label}':\n{out}")
                    keep_best(sim, (name, label), float(m.group(1)))
            if r == 0:  # a fiber per thread: once (it is the slow one)
                out = run([prog, "--bench"], env=fibers_env)
                for name, label, pattern, _ in STAGES:
                    if name == lesson:
                        keep_best(fibers, (name, label), float(re.search(pattern, out, re.M).group(1)))
        out = run([peer, "1"])
        for key, ms in re.findall(r"^(\w+) ([0-9.]+) ms", out, re.M):
            keep_best(loop, key, float(ms))
    print(f"  {'stage':<34} {'warp loops':>11} {'fibers':>10} {'plain loop':>11}  "
          "warp loops / plain loop", flush=True)
    for name, label, _, peer_key in STAGES:
        s, f, l = sim[(name, label)], fibers[(name, label)], loop[peer_key]
        print(f"  {name + ' ' + label:<34} {s:8.1f} ms {f:7.1f} ms {l:8.1f} ms  {verdict(s / l, 5)}",
              flush=True)


def hecbench(args, tmp, cc, cxx, checkout):
    src = os.path.join(checkout, "src")
    jacobi = os.path.join(src, "jacobi-cuda", "main.cu")
    shuffle = os.path.join(src, "shuffle-cuda", "main.cu")
    for path in (jacobi, shuffle):
        if not os.path.isfile(path):
            sys.exit(f"warp_loops: {path} is missing: is {checkout} a HeCBench checkout?")
    steps = args.jacobi_steps
    print(f"\nHeCBench's jacobi ({steps} steps) and shuffle ({' '.join(args.shuffle_args)}), "
          f"against loops over {os.cpu_count()} cores (OpenMP), runs in turn:", flush=True)
    text = open(jacobi).read()
    capped, count = re.subn(r"const int max_iters = \d+;", f"const int max_iters = {steps};", text)
    if count != 1:
        sys.exit(f"warp_loops: {jacobi} has no `const int max_iters = N;` line to set")
    capped_src = os.path.join(tmp, "jacobi.cu")
    open(capped_src, "w").write(capped)
    progs = {}
    for name, source in (("jacobi", capped_src), ("shuffle", shuffle)):
        progs[name] = os.path.join(tmp, name)
        run([cc, "--fast", "-O2", source, "-o", progs[name]])
    floors = {}
    for name, peer in (("jacobi", "jacobi_2048_loop.cpp"), ("shuffle", "shuffle_transpose_loop.cpp")):
        floors[name] = os.path.join(tmp, name + "_loop")
        run([cxx, "-std=c++17", "-O2", "-fopenmp", os.path.join(HERE, "peers", peer),
             "-o", floors[name]])
    jacobi_sim, jacobi_loop, shuffle_sim, shuffle_loop = [], [], [], []
    for _ in range(args.repeat):
        # The CUDA program exits 1 when it stops before the tolerance: so it
        # does after a capped number of steps; its per-step time is printed.
        r = subprocess.run([progs["jacobi"]], capture_output=True, text=True)
        m = re.search(r"Average execution time per iteration: ([0-9.e+-]+)", r.stdout)
        if not m:
            sys.exit(f"warp_loops: jacobi printed no time per step:\n{r.stdout}{r.stderr}")
        jacobi_sim.append(float(m.group(1)))
        out = run([floors["jacobi"], str(steps)])
        m = re.search(r"(\d+) steps to an error of \S+ in ([0-9.]+) s", out)
        jacobi_loop.append(float(m.group(2)) / int(m.group(1)))
        for prog, into in ((progs["shuffle"], shuffle_sim), (floors["shuffle"], shuffle_loop)):
            t0 = time.perf_counter()
            out = run([prog, *args.shuffle_args])
            into.append(time.perf_counter() - t0)
            if "FAIL" in out or "WRONG" in out:
                sys.exit(f"warp_loops: {prog} found a wrong result:\n{out}")
    s, l = min(jacobi_sim), min(jacobi_loop)
    print(f"  jacobi, a step: simulator {1000 * s:.1f} ms, plain loop {1000 * l:.1f} ms  "
          f"{verdict(s / l, 3)}", flush=True)
    s, l = min(shuffle_sim), min(shuffle_loop)
    print(f"  shuffle, whole process: simulator {s:.2f} s, plain loops {l:.2f} s  "
          f"{verdict(s / l, 3)}", flush=True)


def set_in_copy(source, dest, pattern, replacement):
    """Copies `source` to `dest` with the one match of `pattern` replaced."""
    text, count = re.subn(pattern, replacement, open(source).read())
    if count != 1:
        sys.exit(f"warp_loops: {source} has no single line matching {pattern!r} to set")
    open(dest, "w").write(text)


def peak_memory(cmd):
    """Runs `cmd`; returns (its output, its largest resident set in bytes)."""
    with tempfile.TemporaryFile("w+") as out:
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, text=True)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read()
    if p.returncode != 0:
        sys.exit(f"warp_loops: {' '.join(cmd)} failed (exit {p.returncode}):\n{text}")
    return text, usage.ru_maxrss * 1024


def without_warp_operations(args, tmp, cc, cxx, checkout):
    """md5hash, binomial and atomicCost: kernels with no warp operation (md5hash
    waits at nothing, binomial at barriers), against HeCBench's OpenMP ports
    or plain loops of the same work."""
    src = os.path.join(checkout, "src")
    dirs = {name: os.path.join(src, name) for name in
            ("md5hash-cuda", "md5hash-omp", "binomial-cuda", "atomicCost-cuda", "atomicCost-omp")}
    for path in dirs.values():
        if not os.path.isdir(path):
            sys.exit(f"warp_loops: {path} is missing: is {checkout} a HeCBench checkout?")
    print(f"\nHeCBench's md5hash ({args.md5_sizes} of its key spaces), binomial "
          f"({args.binomial_launches} launches) and atomicCost (1/{args.atomic_divide} of its "
          f"elements), against OpenMP over {os.cpu_count()} cores, runs in turn:", flush=True)
    omp_env = dict(os.environ, OMP_NUM_THREADS=str(os.cpu_count()))

    def omp_build(source, out):
        run([cxx, "-std=c++17", "-O3", "-fopenmp", "-w", source, "-o", out])
        return out

    def cuda_build(sources, out):
        run([cc, "--fast", "-O2", *sources, "-o", out])
        return out

    def with_its_port(name, cuda_file, omp_file, pattern, replacement):
        """The CUDA program `name` and its OpenMP port, each a copy with
        `pattern` set to `replacement`, built: {who: program}."""
        cu, cpp = os.path.join(tmp, name + ".cu"), os.path.join(tmp, name + ".cpp")
        set_in_copy(os.path.join(dirs[name + "-cuda"], cuda_file), cu, pattern, replacement)
        set_in_copy(os.path.join(dirs[name + "-omp"], omp_file), cpp, pattern, replacement)
        return {"simulator": cuda_build([cu], os.path.join(tmp, name + "_sim")),
                "OpenMP port": omp_build(cpp, os.path.join(tmp, name + "_omp"))}

    # md5hash: the sizes loop cut to the first key spaces, in both programs.
    md5 = with_its_port("md5hash", "MD5Hash.cu", "MD5Hash.cpp",
                        r"for \(int size = 1; size <= 4; size\+\+\)",
                        f"for (int size = 1; size <= {args.md5_sizes}; size++)")

    # binomial: its sources with the launches set; the peer with the passes.
    bdir = os.path.join(tmp, "binomial")
    shutil.copytree(dirs["binomial-cuda"], bdir)
    header = os.path.join(bdir, "binomialOptions.h")
    set_in_copy(header, header, r"#define NUM_ITERATIONS \d+",
                f"#define NUM_ITERATIONS {args.binomial_launches}")
    binomial_sim = cuda_build(sorted(glob.glob(os.path.join(bdir, "*.cu"))),
                              os.path.join(tmp, "binomial_sim"))
    binomial_loop = os.path.join(tmp, "binomial_loop")
    run([cxx, "-std=c++17", "-O2", "-fopenmp", os.path.join(HERE, "peers", "binomial_loop.cpp"),
         "-o", binomial_loop])

    # atomicCost: fewer elements, in both programs.
    atomic = with_its_port("atomicCost", "main.cu", "main.cpp", r"const int length = 922521600;",
                           f"const int length = {922521600 // args.atomic_divide};")

    rates = {k: 0.0 for k in md5}
    binomial = {"simulator": 1e30, "plain loops": 1e30}
    peaks = {k: 1e30 for k in atomic}
    for _ in range(args.repeat):
        for who, prog in md5.items():
            out = run([prog, "1", "1"], env=omp_env, errors_too=True)  # (its ERROR lines)
            keys = [int(k) for k in re.findall(r"^\|keyspace\| = (\d+)", out, re.M)]
            ms = [int(t) for t in re.findall(r"^time = (\d+) ms", out, re.M)]
            if len(keys) != args.md5_sizes or len(ms) != len(keys) or "ERROR" in out:
                sys.exit(f"warp_loops: md5hash ({who}) did not find each key:\n{out}")
            rates[who] = max(rates[who], sum(keys) / (sum(ms) / 1000))
        out = run([binomial_sim])
        m = re.search(r"Average kernel execution time : ([0-9.]+) \(us\)", out)
        if not m or "Test passed" not in out:
            sys.exit(f"warp_loops: binomial printed no time or failed its test:\n{out}")
        binomial["simulator"] = min(binomial["simulator"], float(m.group(1)) / 1e6)
        out = run([binomial_loop, str(args.binomial_passes)], env=omp_env)
        m = re.search(r"(\d+) passes of \d+ options in ([0-9.]+) s, as Black-Scholes", out)
        if not m:
            sys.exit(f"warp_loops: {binomial_loop} printed no time or a wrong price:\n{out}")
        binomial["plain loops"] = min(binomial["plain loops"], float(m.group(2)) / int(m.group(1)))
        for who, prog in atomic.items():
            out, peak = peak_memory([prog, "1", "1"])
            if out.count("PASS") != 3 or "FAIL" in out:
                sys.exit(f"warp_loops: atomicCost ({who}) did not pass its checks:\n{out}")
            peaks[who] = min(peaks[who], peak)
    s, o = rates["simulator"], rates["OpenMP port"]
    print(f"  md5hash, hashes a second: simulator {s / 1e6:.1f} M, OpenMP port {o / 1e6:.1f} M  "
          f"{verdict(o / s, 1.5)}", flush=True)
    s, l = binomial["simulator"], binomial["plain loops"]
    print(f"  binomial, a launch: simulator {s:.3f} s, plain loops {l:.3f} s a pass  "
          f"{verdict(s / l, 1.5)}", flush=True)
    s, o = peaks["simulator"], peaks["OpenMP port"]
    print(f"  atomicCost, peak memory: simulator {s / 2**30:.2f} GiB, OpenMP port "
          f"{o / 2**30:.2f} GiB  {verdict(s / o, 1.25)}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build_dir")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--hecbench", metavar="DIR",
                    help="a HeCBench checkout (default: $CUDALAB_HECBENCH)")
    ap.add_argument("--jacobi-steps", type=int, default=60)
    ap.add_argument("--shuffle-args", nargs=2, default=["2000", "2"],
                    metavar=("REPEAT", "REPEAT2"))
    ap.add_argument("--md5-sizes", type=int, default=2,
                    help="md5hash's key spaces to search, of its 4 (10M, 52M, 244M, 1.7G keys)")
    ap.add_argument("--binomial-launches", type=int, default=2)
    ap.add_argument("--binomial-passes", type=int, default=10)
    ap.add_argument("--atomic-divide", type=int, default=10,
                    help="divide atomicCost's 922,521,600 elements by this (it needs about 30 GB "
                         "whole); a divisor of 360,360")
    args = ap.parse_args()
    if min(args.repeat, args.jacobi_steps, args.binomial_launches, args.binomial_passes) < 1:
        sys.exit("warp_loops: --repeat, --jacobi-steps, --binomial-launches and "
                 "--binomial-passes must be at least 1")
    if not 1 <= args.md5_sizes <= 4:
        sys.exit("warp_loops: --md5-sizes is 1 to 4")
    if args.atomic_divide < 1 or 360360 % args.atomic_divide:
        sys.exit("warp_loops: --atomic-divide must divide 360,360 (so that the elements still "
                 "fill blocks of 256)")
    if not all(a.isdigit() and int(a) > 0 for a in args.shuffle_args):
        sys.exit("warp_loops: --shuffle-args takes two whole numbers above 0")
    cc = os.path.join(args.build_dir, "bin", "cudalab-cc")
    if not os.access(cc, os.X_OK):
        sys.exit(f"warp_loops: {cc} is missing: build first (cmake --build --preset default)")
    cxx = "clang++"
    with tempfile.TemporaryDirectory() as tmp:
        lesson_stages(args, tmp, cc, cxx)
        checkout = args.hecbench or os.environ.get("CUDALAB_HECBENCH")
        if checkout:
            hecbench(args, tmp, cc, cxx, checkout)
            without_warp_operations(args, tmp, cc, cxx, checkout)
        else:
            print("\n(HeCBench's jacobi, shuffle, md5hash, binomial and atomicCost: give "
                  "--hecbench DIR or CUDALAB_HECBENCH)")


if __name__ == "__main__":
    main()
