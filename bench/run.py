#!/usr/bin/env python3
"""cudalab's simulator benchmarks: whole-process figures on this machine.

Usage: run.py BUILD_DIR [--repeat N] [--no-numba] [--hip-cpu DIR] [--samples DIR]
              [--hecbench DIR]
Prints each figure, its target, and the ratio against the target or a peer.
"""
import argparse
import importlib.machinery
import importlib.util
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def timed(cmd, env=None, repeat=3):
    """Best and median wall time of `cmd` over `repeat` runs; fails loudly."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = subprocess.run(cmd, env=env, capture_output=True, text=True)
        times.append(time.perf_counter() - t0)
        if r.returncode != 0:
            sys.exit(f"bench: {' '.join(cmd)} failed:\n{r.stdout}{r.stderr}")
    return min(times), statistics.median(times)


def max_rss(cmd, env=None):
    """Peak resident memory of one run of `cmd`, in bytes."""
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit(f"bench: {' '.join(cmd)} failed (exit {p.returncode})")
    return usage.ru_maxrss * 1024


def line(name, best, median, target=None):
    s = f"{name:<58} best {best:7.3f} s  median {median:7.3f} s"
    if target:
        s += f"  target {target:.1f} s ({'met' if best <= target else 'MISSED'}, {best / target:.2f}x of it)"
    print(s, flush=True)


def idle_cpu(viz, trace, seconds=10.0):
    """The viewer open on `trace` in a real window (Xvfb), no input: the CPU
    it uses while the picture stands still (target: near zero, 5 % of a
    core at most; it redraws on input, and once a second)."""
    proc = subprocess.Popen(["xvfb-run", "-a", "-s", "-screen 0 1400x900x24", viz, trace],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        pid, deadline = None, time.time() + 60
        while pid is None and time.time() < deadline:  # the viewer, under xvfb-run's shell
            found = subprocess.run(["pgrep", "-f", "-n", "^" + viz], capture_output=True, text=True)
            if found.stdout.strip():
                pid = int(found.stdout.split()[0])
            else:
                time.sleep(0.2)
        if pid is None:
            print("  cudalab-viz idle: the window did not open", flush=True)
            return

        def ticks():
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return int(fields[11]) + int(fields[12])  # utime + stime

        time.sleep(5)  # open the trace, build its heatmaps, settle
        start, at = ticks(), time.time()
        time.sleep(seconds)
        used = (ticks() - start) / os.sysconf("SC_CLK_TCK") / (time.time() - at)
        print(f"  cudalab-viz idle on that trace (Xvfb, no input, {seconds:.0f} s): "
              f"{100 * used:.1f} % of a core (target 5 %: {'met' if used <= 0.05 else 'MISSED'})",
              flush=True)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        subprocess.run(["pkill", "-f", "^" + viz + " " + trace], capture_output=True)


def side_by_side(commands, repeat):
    """Best wall time of each named command, their runs taken in turn (one
    of each, then again), so that a load on the machine falls on all."""
    times = {name: [] for name in commands}
    for _ in range(repeat):
        for name, (cmd, env) in commands.items():
            t0 = time.perf_counter()
            r = subprocess.run(cmd, env=env, capture_output=True, text=True)
            times[name].append(time.perf_counter() - t0)
            if r.returncode != 0:
                sys.exit(f"bench: {' '.join(cmd)} failed:\n{r.stdout}{r.stderr}")
    return {name: min(t) for name, t in times.items()}


def ratio_line(label, ratio, target, against):
    verdict = "met" if ratio <= target else "MISSED"
    print(f"  {label:<56} {ratio:6.2f}x {against} (target {target:g}x: {verdict})", flush=True)


# The programs of cuda-samples and HeCBench that ran past two minutes at the
# sizes their sources fix (issue 16): each must finish within 120 s.
SLOW_SAMPLES = ["interval", "scan", "transpose", "alignedTypes", "reductionMultiBlockCG"]
SLOW_HECBENCH = ["atomicCost", "binomial", "jacobi", "md5hash", "shuffle"]


def peers(args, tmp, build):
    """The simulator against the limit (the same work as a plain C++ loop nest,
    one thread, clang -O2) and against HIP-CPU (fibers per thread), in one run."""
    print("\nAgainst a plain loop nest and HIP-CPU, runs taken in turn "
          f"(best of {args.repeat}):", flush=True)
    cxx = shutil.which("clang++") or shutil.which("c++")

    def native(source, name, flags=(), libs=()):
        out = os.path.join(tmp, name)
        subprocess.run([cxx, "-std=c++17", "-O2", *flags, source, "-x", "none", "-o", out, *libs],
                       check=True)
        return out

    peers_dir = os.path.join(HERE, "peers")
    env = dict(os.environ)
    fibers = dict(os.environ, CUDALAB_BLOCK_LOOPS="off")
    t = side_by_side({
        "sim": ([build("vector_add_16m")], env),
        "loop": ([native(os.path.join(peers_dir, "vector_add_16m_loop.cpp"), "va_loop")], env),
    }, args.repeat)
    print(f"  vector add 16M: simulator {t['sim']:.3f} s, plain loop {t['loop']:.3f} s", flush=True)
    ratio_line("vector add 16M, simulator / plain loop", t["sim"] / t["loop"], 5, "its time")
    commands = {
        "sim": ([build("tiled_matmul_512")], env),
        "fibers": ([os.path.join(tmp, "tiled_matmul_512")], fibers),
        "loop": ([native(os.path.join(peers_dir, "tiled_matmul_512_loop.cpp"), "tm_loop")], env),
    }
    hip = args.hip_cpu or os.environ.get("CUDALAB_HIP_CPU")
    if hip:
        if not os.path.isfile(os.path.join(hip, "include", "hip", "hip_runtime.h")):
            sys.exit(f"bench: {hip} is not a HIP-CPU checkout (no include/hip/hip_runtime.h)")
        hip_flags = ["-I" + os.path.join(hip, "include"), "-x", "c++"]
        commands["hip"] = ([native(os.path.join(peers_dir, "tiled_matmul_512.hip"), "tm_hip",
                                   hip_flags, ["-ltbb", "-lpthread"])], env)
    t = side_by_side(commands, args.repeat)
    print("  tiled matmul 512x512: simulator " + f"{t['sim']:.3f} s (a fiber per thread: "
          f"{t['fibers']:.3f} s), plain loop nest {t['loop']:.3f} s"
          + (f", HIP-CPU {t['hip']:.3f} s" if "hip" in t else ""), flush=True)
    ratio_line("tiled matmul 512, simulator / plain loop nest", t["sim"] / t["loop"], 5,
               "its time")
    if "hip" in t:
        ratio_line("tiled matmul 512, simulator / HIP-CPU", t["sim"] / t["hip"], 0.5, "its time")
    else:
        print("  (HIP-CPU: give --hip-cpu DIR or CUDALAB_HIP_CPU, a checkout of "
              "ROCm/HIP-CPU; it needs libtbb-dev)", flush=True)

    def without_target(name, peer, label, off_label):
        """The simulator, itself with CUDALAB_BLOCK_LOOPS=off, and its plain
        loop: figures without a target."""
        t = side_by_side({
            "sim": ([build(name)], env),
            "off": ([os.path.join(tmp, name)], fibers),
            "loop": ([native(os.path.join(peers_dir, peer + ".cpp"), peer)], env),
        }, args.repeat)
        print(f"  {label}: simulator {t['sim']:.3f} s ({off_label}: {t['off']:.3f} s, "
              f"{t['off'] / t['sim']:.2f}x slower), plain loop {t['loop']:.3f} s (the simulator "
              f"{t['sim'] / t['loop']:.1f}x its time; no target)", flush=True)

    without_target("block_sum_16m", "block_sum_16m_loop", "block sum 16M with warp shuffles",
                   "a fiber per thread")
    without_target("relax_1m", "relax_1m_loop",
                   "64 Floyd-Warshall steps on 1024 nodes, a thread an element (no barrier)",
                   "threads started one by one")

    compat = os.path.join(HERE, "..", "tests", "compat")
    for flag, option, env_name, runner, names in (
            (args.samples, "--samples", "CUDALAB_SAMPLES", "run-cuda-samples", SLOW_SAMPLES),
            (args.hecbench, "--hecbench", "CUDALAB_HECBENCH", "run-hecbench", SLOW_HECBENCH)):
        checkout = flag or os.environ.get(env_name)
        if not checkout:
            print(f"  ({runner}'s slow programs: give {option} DIR or {env_name})", flush=True)
            continue
        print(f"  {runner} {' '.join(names)} (120 s each, target: each passes within it):",
              flush=True)
        r = subprocess.run([sys.executable, os.path.join(compat, runner), checkout, "--cc",
                            os.path.join(args.build_dir, "bin", "cudalab-cc"), "--timeout", "120",
                            "--jobs", "1", "--only", *names], capture_output=True, text=True)
        for out_line in r.stdout.splitlines():
            if out_line.split(" ", 1)[0] in names:
                print("    " + out_line.rstrip(), flush=True)
        if runner == "run-hecbench":
            hecbench_floors(checkout, tmp, native)


def run_hecbench():
    """tests/compat/run-hecbench as a module: its reading of HeCBench's Makefiles."""
    path = os.path.join(HERE, "..", "tests", "compat", "run-hecbench")
    loader = importlib.machinery.SourceFileLoader("run_hecbench", path)
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(module)
    return module


# What 2 cores need for the slow HeCBench programs' work in plain C++ (a
# loop nest of ours, or HeCBench's own OpenMP port of the program, built for
# the host): no simulator can beat it, so it says whether 120 s can be met.
FLOOR_LIMIT = 240  # seconds: twice the bar is enough to tell


def hecbench_floors(checkout, tmp, native):
    print(f"  the same work without a simulator, on {os.cpu_count()} cores (OpenMP; "
          f"each stopped at {FLOOR_LIMIT} s):", flush=True)
    peers_dir = os.path.join(HERE, "peers")

    def ours(peer):
        return lambda: [native(os.path.join(peers_dir, peer), peer, ["-fopenmp"])]

    def openmp_port(name):
        """HeCBench's OpenMP port of `name`, built for the host, with the
        arguments of its Makefile's run line (read as run-hecbench reads
        the CUDA program's)."""
        port = os.path.join(checkout, "src", name + "-omp")
        sources = sorted(os.path.join(port, f) for f in os.listdir(port)
                         if f.endswith(".cpp")) if os.path.isdir(port) else []
        if not sources:
            raise FileNotFoundError(f"no .cpp sources in {port}")
        makefiles = run_hecbench()
        args = makefiles.run_arguments(makefiles.makefile_of(port))
        if args is None:
            raise FileNotFoundError(f"no run line in {port}/Makefile")
        return [native(sources[0], name + "_floor", ["-O3", "-fopenmp", "-w", *sources[1:]]),
                *args]

    floors = [
        ("jacobi", "plain loop nest", ours("jacobi_2048_loop.cpp")),
        ("md5hash", "HeCBench's OpenMP port", lambda: openmp_port("md5hash")),
        ("atomicCost", "HeCBench's OpenMP port", lambda: openmp_port("atomicCost")),
        ("binomial", "plain loop nest", ours("binomial_loop.cpp")),
        ("shuffle", "plain loops", ours("shuffle_transpose_loop.cpp")),
    ]
    env = dict(os.environ, OMP_NUM_THREADS=str(os.cpu_count()))
    for name, what, build_floor in floors:
        try:
            cmd = build_floor()
        except (OSError, subprocess.CalledProcessError) as e:
            print(f"    {name:<11} {what}: not built ({e})", flush=True)
            continue
        t0 = time.perf_counter()
        try:
            r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=FLOOR_LIMIT)
            seconds = time.perf_counter() - t0
            verdict = "within" if seconds <= 120 else "past"
            ok = "" if r.returncode == 0 else f", its check failed (exit {r.returncode})"
            print(f"    {name:<11} {what}: {seconds:6.1f} s ({verdict} 120 s{ok})", flush=True)
        except subprocess.TimeoutExpired:
            print(f"    {name:<11} {what}: past {FLOOR_LIMIT} s, stopped", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build_dir")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-numba", action="store_true", help="skip the Numba comparison")
    ap.add_argument("--hip-cpu", metavar="DIR",
                    help="a HIP-CPU checkout to time the tiled matmul against "
                         "(default: $CUDALAB_HIP_CPU)")
    ap.add_argument("--samples", metavar="DIR",
                    help="a cuda-samples checkout: time its slow samples (default: "
                         "$CUDALAB_SAMPLES)")
    ap.add_argument("--hecbench", metavar="DIR",
                    help="a HeCBench checkout: time its slow programs (default: "
                         "$CUDALAB_HECBENCH)")
    args = ap.parse_args()
    if args.repeat < 1:
        sys.exit("bench: --repeat must be at least 1")
    cc = os.path.join(args.build_dir, "bin", "cudalab-cc")
    if not os.access(cc, os.X_OK):
        sys.exit(f"bench: {cc} is missing: build first (cmake --build --preset default)")
    print(f"cudalab simulator benchmarks, {os.cpu_count()} cores\n", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        def build(name):
            prog = os.path.join(tmp, name)
            subprocess.run([cc, "--fast", "-O2", os.path.join(HERE, name + ".cu"), "-o", prog],
                           check=True)
            return prog

        def measure(name, label, target):
            best, med = timed([build(name)], repeat=args.repeat)
            line(label, best, med, target=target)
            return best

        va_best = measure("vector_add_16m", "vector add, 16M floats, blocks of 256 (whole process)",
                          1.0)
        measure("curand_init_1m", "curand_init(seed, thread id, 0) for 1M threads (whole process)",
                1.0)
        measure("tiled_matmul_512",
                "tiled 16x16 matmul 512x512, 2 __syncthreads per tile (whole process)", 0.4)
        print("  (HIP-CPU's fiber runtime: 0.37 s for the same size, in docs/measurements.md)", flush=True)
        r = subprocess.run([build("sync_cost")], capture_output=True, text=True, check=True)
        for out_line in r.stdout.splitlines():
            print("  " + out_line, flush=True)

        peers(args, tmp, build)

        # The checks: CUDALAB_CHECK=all against a plain run of the same
        # program (time), and the memory they add against what the program
        # allocates on the device.
        print("\nCUDALAB_CHECK=all (memcheck, racecheck, synccheck, initcheck), target 30x "
              "slower and 3x the device memory at most:", flush=True)
        for name, label, device_bytes in (
                ("vector_add_16m", "vector add 16M", 3 * (1 << 24) * 4),
                ("tiled_matmul_512", "tiled matmul 512", 3 * 512 * 512 * 4)):
            prog = os.path.join(tmp, name + "_checked")
            subprocess.run([cc, "-O2", os.path.join(HERE, name + ".cu"), "-o", prog], check=True)
            plain, _ = timed([prog], repeat=args.repeat)
            checked, _ = timed([prog], env=dict(os.environ, CUDALAB_CHECK="all"),
                               repeat=args.repeat)
            rss_plain = max_rss([prog])
            rss_checked = max_rss([prog], dict(os.environ, CUDALAB_CHECK="all"))
            extra = max(0, rss_checked - rss_plain)
            ratio = checked / plain
            print(f"  {label:<18} plain {plain:6.2f} s, checked {checked:6.2f} s: {ratio:5.1f}x "
                  f"({'met' if ratio <= 30 else 'MISSED'}); extra memory {extra / 2**20:6.1f} MiB "
                  f"for {device_bytes / 2**20:6.1f} MiB allocated: {extra / device_bytes:4.2f}x",
                  flush=True)
        print("  (a small program's extra memory is mostly fixed: shadow tables and stacks of "
              "each worker)", flush=True)

        # Tracing (issue 5's bars: a 256x256 tiled matmul traced in 10 s into
        # 200 MB at most, and `cudalab stats` on it in 2 s).
        src256 = os.path.join(tmp, "tiled_matmul_256.cu")
        with open(os.path.join(HERE, "tiled_matmul_512.cu")) as f:
            open(src256, "w").write(f.read().replace("const int n = 512;", "const int n = 256;"))
        prog256 = os.path.join(tmp, "tiled_matmul_256")
        subprocess.run([cc, "-O2", "-I", HERE, src256, "-o", prog256], check=True)
        trace = os.path.join(tmp, "tm256.trace")
        env = dict(os.environ, CUDALAB_TRACE=trace, CUDALAB_TRACE_MAX_ACCESSES="100000000")
        best, med = timed([prog256], env=env, repeat=1)
        line("trace the tiled matmul 256x256 (CUDALAB_TRACE)", best, med, target=10.0)
        size = os.path.getsize(trace)
        print(f"  trace size {size / 1e6:.0f} MB (target 200 MB: "
              f"{'met' if size <= 200e6 else 'MISSED'})", flush=True)
        cli = os.path.join(args.build_dir, "bin", "cudalab")
        best, med = timed([cli, "stats", trace], repeat=1)
        line("cudalab stats on that trace", best, med, target=2.0)
        viz_bench = os.path.join(args.build_dir, "bin", "viz_bench")
        if os.path.exists(viz_bench):
            # The viewer on that trace: a launch's heatmaps and hover lists
            # are built once; a click (selecting a thread) must not freeze
            # the window (target: 50 ms at most).
            print(subprocess.run([viz_bench, trace], capture_output=True, text=True,
                                 check=True).stdout.rstrip())
        viz = os.path.join(args.build_dir, "bin", "cudalab-viz")
        if os.path.exists(viz) and shutil.which("xvfb-run"):
            idle_cpu(viz, trace)
        os.remove(trace)

        small = os.path.join(HERE, "small_program.cu")
        out = os.path.join(tmp, "small")
        best, med = timed(["sh", "-c", f"'{cc}' -O2 '{small}' -o '{out}' && '{out}'"],
                          repeat=args.repeat)
        line("cudalab-cc compiles (plain + instrumented) and runs a small program", best, med,
             target=5.0)

    if args.no_numba:
        return
    # Debian's python3-numba lives with Debian's python3, which may not be
    # the python3 first on PATH.
    python = None
    for candidate in (sys.executable, "/usr/bin/python3"):
        if os.access(candidate, os.X_OK) and subprocess.run(
                [candidate, "-c", "import numba"], capture_output=True).returncode == 0:
            python = candidate
            break
    if not python:
        print("\nNumba is not installed (apt-get install python3-numba): no comparison")
        return
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    script = os.path.join(HERE, "numba_vector_add.py")
    best, med = timed([python, script, "65536"], env=env, repeat=1)
    line("Numba CUDA simulator, vector add of 65,536 floats", best, med)
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "va65k.cu")
        with open(os.path.join(HERE, "vector_add_16m.cu")) as f:
            open(src, "w").write(f.read().replace("1 << 24", "65536"))
        prog = os.path.join(tmp, "va65k")
        subprocess.run([cc, "--fast", "-O2", "-I", HERE, src, "-o", prog], check=True)
        cbest, cmed = timed([prog], repeat=args.repeat)
        line("cudalab simulator, vector add of 65,536 floats", cbest, cmed)
    print(f"\ncudalab is {best / cbest:.0f}x faster than Numba's simulator at 65,536 elements; "
          f"its 16M-element run ({va_best:.2f} s) is {best / va_best:.1f}x faster than Numba's "
          f"65,536.")


if __name__ == "__main__":
    main()
