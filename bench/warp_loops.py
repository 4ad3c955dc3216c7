#!/usr/bin/env python3
"""Warp-level code on the simulator against plain loops of the same work.

Usage: warp_loops.py BUILD_DIR [--repeat N] [--hecbench DIR] [--jacobi-steps N]
                     [--shuffle-args REPEAT REPEAT2]

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
  (peers/jacobi_2048_loop.cpp, peers/shuffle_transpose_loop.cpp): target 3x.
"""
import argparse
import os
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


def run(cmd, env=None, timeout=None):
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        sys.exit(f"warp_loops: {' '.join(cmd)} failed (exit {r.returncode}):\n{r.stdout}{r.stderr}")
    return r.stdout


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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build_dir")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--hecbench", metavar="DIR",
                    help="a HeCBench checkout (default: $CUDALAB_HECBENCH)")
    ap.add_argument("--jacobi-steps", type=int, default=60)
    ap.add_argument("--shuffle-args", nargs=2, default=["2000", "2"],
                    metavar=("REPEAT", "REPEAT2"))
    args = ap.parse_args()
    if args.repeat < 1 or args.jacobi_steps < 1:
        sys.exit("warp_loops: --repeat and --jacobi-steps must be at least 1")
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
        else:
            print("\n(HeCBench's jacobi and shuffle: give --hecbench DIR or CUDALAB_HECBENCH)")


if __name__ == "__main__":
    main()
