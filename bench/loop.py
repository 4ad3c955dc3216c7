#!/usr/bin/env python3
"""The student's loop: edit, `cudalab check LESSON`, read the verdict.

    python3 bench/loop.py [--build build] [--runs 3] [LESSON...]

For each lesson, the wall time of `cudalab check` (in the sandbox, seed 1)
on three files a student has in turn: the untouched exercise (every test
fails fast), a known-wrong file (some tests fail: the failing one is run
again under the checks) and the solution (every test and rubric passes).
Each is the median of --runs runs. Target: under 3 s each on 2 cores.
"""
import argparse, glob, json, os, shutil, statistics, subprocess, sys, tempfile, time

ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument('--build', default='build', help='the build folder (default build)')
ap.add_argument('--runs', type=int, default=3, help='runs per file (default 3)')
ap.add_argument('lessons', nargs='*', help='default: every lesson, in course order (lesson.json)')
a = ap.parse_args()
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
cudalab = os.path.join(root, a.build, 'bin', 'cudalab')
if not os.access(cudalab, os.X_OK):
    sys.exit(f'{cudalab} is missing: build first (cmake --build --preset default)')
if not a.lessons:
    listed = subprocess.run([cudalab, 'list', '--json'], capture_output=True, text=True)
    if listed.returncode != 0:
        sys.exit(f'cudalab list --json failed: {listed.stderr.strip()}')
    a.lessons = [lesson['name'] for lesson in json.loads(listed.stdout)]
if a.runs < 1:
    sys.exit('--runs wants at least 1')


def timed_check(lesson, path):
    """Median wall seconds of `cudalab check`, and the last run's record."""
    times, record = [], None
    for _ in range(a.runs):
        out = tempfile.mkdtemp(prefix='cudalab-loop-')
        try:
            started = time.time()
            p = subprocess.run([cudalab, 'check', lesson, '--file', path, '--seed', '1',
                                '--json', os.path.join(out, 'r.json')],
                               capture_output=True, text=True)
            times.append(time.time() - started)
            if p.returncode not in (0, 1):
                sys.exit(f'cudalab check {lesson} {path} failed ({p.returncode}): {p.stderr[-1500:]}')
            record = json.load(open(os.path.join(out, 'r.json')))
        finally:
            shutil.rmtree(out, ignore_errors=True)
    return statistics.median(times), record


print(f'cudalab check, median of {a.runs} runs, {os.cpu_count()} CPUs (target: under 3 s)')
print(f"{'lesson':12s} {'file':28s} {'wall':>7s}  score")
worst = 0.0
for lesson in a.lessons:
    d = os.path.join(root, 'lessons', lesson)
    if not os.path.isdir(d):
        sys.exit(f'no lesson {lesson}')
    files = [os.path.join(d, 'exercise.cu')]
    wrong = sorted(glob.glob(os.path.join(d, 'wrong', '*.diff')))
    if wrong:
        files.append(wrong[0])
    if os.path.exists(os.path.join(d, 'solution.cu')):
        files.append(os.path.join(d, 'solution.cu'))
    for f in files:
        wall, rec = timed_check(lesson, f)
        worst = max(worst, wall)
        score = f"{rec.get('score', 0):g}" if rec else '?'
        print(f'{lesson:12s} {os.path.relpath(f, d):28s} {wall:6.2f}s  {score}')
print(f'slowest: {worst:.2f} s ({"within" if worst < 3 else "over"} the 3 s target)')
