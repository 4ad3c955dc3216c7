#!/usr/bin/env python3
"""Grades a generated class of 200 submissions across two lessons, twice.

usage: bench/class.py [--students 200] [--jobs 2] [--out DIR] [--regrade]

The class: for vector_add and matmul, the solution, the exercise and every
known-wrong change (wrong/*.diff), each several times, and for vector_add
eight of the hostile files (one in eight of its students), under student
names until there are 200 (100 a lesson). Prints the time per submission
(median of the records' grading times, and wall time over the class with
-j), checks that a second run (which finds every submission graded) writes
the same gradebook, and that solutions got full points and exercises none;
with --regrade it grades the class again from nothing and checks that every
file has one score (in both gradings, and across copies of the same bytes).
"""
import argparse, csv, glob, json, os, shutil, statistics, subprocess, sys, time

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
ap = argparse.ArgumentParser()
ap.add_argument('--students', type=int, default=200)
ap.add_argument('--jobs', type=int, default=2)
ap.add_argument('--out', default=os.path.join(root, 'build', 'bench-class'))
ap.add_argument('--cudalab', default=os.path.join(root, 'build', 'bin', 'cudalab'))
ap.add_argument('--regrade', action='store_true',
                help='grade the class a second time from nothing and compare every score')
a = ap.parse_args()
shutil.rmtree(a.out, ignore_errors=True)
for lesson in ('vector_add', 'matmul'):
    d = os.path.join(root, 'lessons', lesson)
    kinds = [os.path.join(d, 'solution.cu'), os.path.join(d, 'exercise.cu')]
    kinds += sorted(glob.glob(os.path.join(d, 'wrong', '*.diff')))
    if lesson == 'vector_add':
        hostile = ['endless_loop_in_kernel', 'fork_bomb_escape', 'forged_result_file',
                   'output_flood', 'segfault_in_host', 'exit_at_static_init',
                   'fake_printed_totals', 'hardcoded_public_outputs']
        honest = kinds
        kinds = []
        for i, h in enumerate(hostile):  # one hostile file after every seven others
            kinds += [honest[(7 * i + k) % len(honest)] for k in range(7)]
            kinds.append(os.path.join(root, 'tests', 'hostile', h + '.cu'))
    subs = os.path.join(a.out, lesson, 'subs')
    os.makedirs(subs)
    for i in range(a.students // 2):
        src = kinds[i % len(kinds)]
        base = os.path.basename(src).rsplit('.', 1)
        shutil.copy(src, os.path.join(subs, f'student{i:03d}_{base[0]}.{base[1]}'))
    results = []
    # The first grading, the same again (every submission found graded), and
    # with --regrade a second grading from nothing into another folder.
    for run, grades in (('first', 'grades'), ('again', 'grades'), ('regrade', 'regrades'))[:3 if a.regrade else 2]:
        t0 = time.time()
        p = subprocess.run([a.cudalab, 'grade', lesson, subs, '-o', os.path.join(a.out, lesson, grades),
                            '-j', str(a.jobs), '--seed', '2026'], capture_output=True, text=True)
        wall = time.time() - t0
        if p.returncode not in (0, 1):
            sys.exit(p.stderr[-2000:])
        book = open(os.path.join(a.out, lesson, grades, 'gradebook.csv')).read()
        recs = [json.load(open(f)) for f in glob.glob(os.path.join(a.out, lesson, grades, 'records', '*.json'))]
        results.append((wall, book, recs))
    wall, book, recs = results[0]
    # One score per file: each submission the same in both gradings, and
    # copies of one file (the same bytes) the same as each other.
    scores = {}
    for _, _, rs in results[::2]:
        for r in rs:
            with open(r['file'], 'rb') as f:
                scores.setdefault(f.read(), set()).add(r['score'])
    varied = sum(len(v) > 1 for v in scores.values())
    rows = list(csv.DictReader(book.splitlines()))
    # A solution earns every point, extra credit included (total >= max).
    bad = [r['student'] for r in rows if (r['student'].endswith('_solution') and float(r['total']) < float(r['max']))
           or (r['student'].endswith('_exercise') and float(r['total']) != 0)]
    per = [r['seconds'] for r in recs]
    print(f"{lesson}: {len(rows)} submissions, -j{a.jobs}: {wall:.0f} s wall, "
          f"{wall / len(rows):.2f} s per submission; median grading time {statistics.median(per):.2f} s "
          f"(max {max(per):.1f} s); second run: {results[1][0]:.1f} s, "
          f"{'the same gradebook' if results[1][1] == book else 'A DIFFERENT gradebook'}; "
          f"{'all solutions full, exercises zero' if not bad else 'WRONG ROWS: ' + ', '.join(bad)}"
          + (f"; regraded from nothing: {results[2][0]:.0f} s" if a.regrade else '')
          + f"; {len(scores)} distinct files, "
          + (f"each with one score" if not varied else f"{varied} WITH MORE THAN ONE SCORE"))
