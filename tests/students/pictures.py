#!/usr/bin/env python3
"""Draws the picture a student gets for each wrong kernel here, for a blind review.

    python3 tests/students/pictures.py CUDALAB OUT_DIR [-j JOBS] [NAMES...]

For each case (NAMES as check.py takes them; none: all), in a shuffled order
that hides the lessons' grouping, OUT_DIR/caseNN.png is the picture
`cudalab check LESSON --picture` draws for it, as a student would get it: the
file is graded as `exercise.cu` (the case's name, which says the bug, appears
nowhere in the picture), seed 1. OUT_DIR/key.txt maps each caseNN to its
lesson and case and gives its `// bug:` line; OUT_DIR/review.md is the form
for the reviewer, who has not seen the code: for each picture, is the bug
visible without clicking, and where would they look; then, with the key,
did the picture show the real bug. A case whose picture cannot be drawn is
listed with cudalab's reason (a host crash before any launch leaves no
trace; a kernel that never ends is drawn from a short run of its own). Exits 1 when cudalab failed on a case (exit 2),
else 0.
"""
import argparse
import random
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check import find_cases  # noqa: E402  (the cases, as check.py reads them)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cudalab")
    ap.add_argument("out", type=Path)
    ap.add_argument("-j", type=int, default=2, help="cases drawn at once (default 2)")
    ap.add_argument("names", nargs="*")
    a = ap.parse_intermixed_args()  # -j may come between the folder and the names
    here = Path(__file__).resolve().parent
    cases, unknown = find_cases(here, a.names)
    if unknown or not cases:
        sys.exit("pictures.py: no case named " + " ".join(unknown or a.names))
    random.Random(7).shuffle(cases)
    shutil.rmtree(a.out, ignore_errors=True)
    a.out.mkdir(parents=True)

    def draw(numbered):
        n, case = numbered
        label = f"case{n:02d}"
        folder = a.out / label
        folder.mkdir()
        shutil.copy(case.path, folder / "exercise.diff")  # graded as exercise.cu
        r = subprocess.run(
            [a.cudalab, "check", case.lesson, "--file", str(folder / "exercise.diff"), "--seed",
             "1", "--picture", str(a.out / f"{label}.png")],
            capture_output=True, text=True, cwd=here.parent.parent, timeout=600)
        (folder / "check.txt").write_text(r.stdout + r.stderr)
        said = (r.stdout.strip().splitlines() or [""])[-1]
        return label, case, r.returncode, said

    with ThreadPoolExecutor(max(1, a.j)) as pool:
        done = list(pool.map(draw, enumerate(cases, 1)))
    failed = 0
    with open(a.out / "key.txt", "w") as key, open(a.out / "review.md", "w") as form:
        form.write("# Pictures of wrong kernels: a blind review\n\n"
                   "For each picture, before reading key.txt: (a) is the bug visible without\n"
                   "clicking (the headline and what is drawn point at what is wrong)? (b) what\n"
                   "is wrong, and where would you look first? Then, with key.txt: did the\n"
                   "picture show the real bug (yes / partly / no), and what should it show?\n\n"
                   "| case | lesson | (a) visible | (b) what and where | real bug shown |\n"
                   "| --- | --- | --- | --- | --- |\n")
        for label, case, status, said in done:
            drawn = (a.out / f"{label}.png").exists()
            key.write(f"{label} {case.label}: {case.bug}\n")
            form.write(f"| {label} | {case.lesson} | {'' if drawn else 'no picture'} | | |\n")
            print(f"{label} {case.label}: {'drawn' if drawn else said}")
            failed += status == 2
    print(f"{sum(1 for d in done if (a.out / (d[0] + '.png')).exists())} of {len(done)} "
          f"pictures drawn in {a.out}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
