"""What the compatibility suites share: build a program with cudalab-cc, run
it with a time limit, sort the outcome into passed, failed, build failed,
timed out, findings or excluded, and print one line per program, the totals
and the regressions against a list of programs that passed before.

Each suite (run-cuda-samples, run-hecbench) knows its own layout: where a
program's sources are, how it is run, what is out of scope and how it says
that it passed.
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile
import time


def first_error(text):
    for line in text.splitlines():
        if "error" in line:
            return line.strip()[:160]
    lines = [l for l in text.splitlines() if l.strip()]
    return (lines[-1] if lines else "no output")[:160]


def build_and_run(name, cc, sources, include_dirs, cwd, args, timeout, checks, judge,
                  excluded_why=None, flags=(), prepare=None):
    """Builds `sources` into one program and runs it in `cwd` with `args`.
    `judge(returncode, output)` says (status, why) of a run that ended.
    A program whose build fails for a reason `excluded_why` names is excluded.
    `prepare(tmp)`, after the build, may make what the program needs in the
    scratch folder `tmp` and returns (folder to run in, None) or (None, what
    failed). Returns (name, status, why, seconds)."""
    with tempfile.TemporaryDirectory() as tmp:
        result = None
        # The checks run the instrumented build; a plain run needs only
        # --fast's, unless the program has warp-synchronous code, which runs
        # in lock-step only in the instrumented build (the run says so).
        for fast in ([False] if checks else [True, False]):
            result, out = _build_and_run_once(name, cc, sources, include_dirs, cwd, args, timeout,
                                              checks, judge, excluded_why, flags, prepare, tmp,
                                              fast)
            if "runs with its warps in lock-step only in this program's instrumented" not in out:
                break
        return result


def _build_and_run_once(name, cc, sources, include_dirs, cwd, args, timeout, checks, judge,
                        excluded_why, flags, prepare, tmp, fast):
    """One build (`fast`: cudalab-cc --fast) and run: (result, output)."""
    exe = os.path.join(tmp, name)
    cmd = [cc, "--fast", "-O2"] if fast else [cc, "-O2"]
    cmd += list(flags)
    if any("omp.h" in open(f, errors="replace").read() for f in sources):
        cmd.append("-fopenmp")
    for d in include_dirs:
        cmd += ["-I", d]
    cmd += sources + ["-o", exe]
    b = subprocess.run(cmd, capture_output=True, text=True)
    failure = None if b.returncode == 0 else first_error(b.stdout + b.stderr)
    if failure is None and prepare:
        cwd, failure = prepare(tmp)
    if failure is not None:
        if excluded_why:
            return (name, "excluded", excluded_why, 0.0), ""
        return (name, "build failed", failure, 0.0), ""
    start = time.time()
    try:
        env = dict(os.environ, CUDALAB_CHECK="all") if checks else None
        r = subprocess.run([exe] + list(args), cwd=cwd, capture_output=True, text=True,
                           timeout=timeout, stdin=subprocess.DEVNULL, errors="replace", env=env)
    except subprocess.TimeoutExpired:
        return (name, "timed out", f"still running after {timeout:g} s", timeout), ""
    secs = time.time() - start
    out = r.stdout + r.stderr
    summary = re.search(r"ERROR SUMMARY: (\d+) error", out)
    if checks and summary and int(summary.group(1)) > 0:
        found = [l for l in out.splitlines()
                 if re.match(r"=+ (Invalid|Error|Uninit|Barrier|Program hit|Wrong)", l)]
        where = [l for l in out.splitlines() if re.match(r"=+\s+at ", l)]
        return (name, "findings", (found[:1] + where[:1] and
                                   " | ".join(x.strip("= ") for x in found[:1] + where[:1])),
                secs), out
    status, why = judge(r.returncode, out)
    return (name, status, why, secs), out


def arguments(description, what):
    """The command line every suite takes; `what` names its checkout."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("checkout", help=what)
    ap.add_argument("--cc", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                 "..", "..", "build", "bin", "cudalab-cc"))
    ap.add_argument("--only", nargs="*", help="program names to run")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--jobs", type=int, default=1, help="programs built and run at once")
    ap.add_argument("--expect", help="a list of programs that must pass")
    ap.add_argument("--write-passing", help="write the passing programs here")
    ap.add_argument("--checks", action="store_true", help="run under CUDALAB_CHECK=all")
    return ap


def run_suite(tool, programs, run_one, args, passing_heading):
    """Runs `run_one(program)` for each, `args.jobs` at once, and reports.
    Exits 1 when a program of `args.expect` no longer passes."""
    if not os.access(args.cc, os.X_OK):
        sys.exit(f"{tool}: {args.cc} is missing: build cudalab first")
    if args.only:
        unknown = [n for n in args.only if n not in {os.path.basename(p) for p in programs}]
        if unknown:
            sys.exit(f"{tool}: no program named {', '.join(unknown)} in the checkout")
        programs = [p for p in programs if os.path.basename(p) in args.only]
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(run_one, p) for p in programs]
        for f in futures:
            name, status, why, secs = f.result()
            results.append((name, status, why))
            extra = f" ({secs:.1f} s)" if status in ("passed", "failed", "ran") else ""
            print(f"{name:<40} {status:<13}{extra} {why}", flush=True)
    counts = {}
    for _, status, _ in results:
        counts[status] = counts.get(status, 0) + 1
    considered = len(results) - counts.get("excluded", 0)
    print("\n" + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) +
          f"; {counts.get('passed', 0)} of {considered} programs in scope pass")
    passing = sorted(n for n, s, _ in results if s == "passed")
    if args.write_passing:
        with open(args.write_passing, "w") as f:
            f.write(f"# {passing_heading}\n")
            f.write("\n".join(passing) + "\n")
    if args.expect:
        with open(args.expect) as f:
            expected = [l.strip() for l in f if l.strip() and not l.startswith("#")]
        lost = [n for n in expected if n not in passing and (not args.only or n in args.only)]
        if lost:
            print("regressions (passed before, not now): " + ", ".join(lost))
            sys.exit(1)
        print(f"no regressions against {args.expect}")
