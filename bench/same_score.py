#!/usr/bin/env python3
"""One score per file: grades each file many times and counts its scores.

    python3 bench/same_score.py [--build build] [--times 20] [--lesson vector_add] [FILE...]

Each FILE (default: tests/grading/races/*.cu, vector adds whose results
depend on a race: between blocks, between warps of a block, through a
counter in global memory) is graded with `cudalab check LESSON --file FILE`
--times times, each with a new seed (new inputs), as a student would run it.
Prints, per file, the scores it got and the seconds a grading took; exits 1
when a file got more than one score. A grade depends on the file only.
"""
import argparse, glob, json, os, statistics, subprocess, sys, tempfile, time

ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument('--build', default='build', help='the build folder (default build)')
ap.add_argument('--times', type=int, default=20, help='gradings per file (default 20)')
ap.add_argument('--lesson', default='vector_add', help='the lesson the files are for (default vector_add)')
ap.add_argument('files', nargs='*', help='default: tests/grading/races/*.cu')
a = ap.parse_args()
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
cudalab = os.path.join(root, a.build, 'bin', 'cudalab')
if not os.access(cudalab, os.X_OK):
    sys.exit(f'{cudalab} is missing: build first (cmake --build --preset default)')
if a.times < 2:
    sys.exit('--times wants at least 2')
files = a.files or sorted(glob.glob(os.path.join(root, 'tests', 'grading', 'races', '*.cu')))
for f in files:
    if not os.path.isfile(f):
        sys.exit(f'{f}: no such file')

varied = 0
with tempfile.TemporaryDirectory(prefix='cudalab-same-score-') as tmp:
    for f in files:
        scores, seconds = [], []
        for k in range(a.times):
            out = os.path.join(tmp, f'{k}.json')
            started = time.time()
            p = subprocess.run([cudalab, 'check', a.lesson, '--file', f, '--json', out],
                               capture_output=True, text=True)
            seconds.append(time.time() - started)
            if p.returncode not in (0, 1) or not os.path.exists(out):
                sys.exit(f'{f}: cudalab check failed (exit {p.returncode}):\n{p.stdout[-2000:]}{p.stderr[-2000:]}')
            with open(out) as j:
                scores.append(json.load(j)['score'])
            print(f'\r{os.path.basename(f)}: {k + 1} of {a.times} gradings', end='', file=sys.stderr, flush=True)
        print(file=sys.stderr)
        distinct = sorted(set(scores))
        varied += len(distinct) > 1
        print(f'{os.path.relpath(f, root)}: {a.times} gradings, '
              f"{'one score, ' + format(distinct[0], 'g') if len(distinct) == 1 else 'SCORES ' + ', '.join(format(s, 'g') for s in distinct)}"
              f' ({statistics.median(seconds):.1f} s a grading)')
print(f'{len(files) - varied} of {len(files)} files got one score')
sys.exit(1 if varied else 0)
