#!/usr/bin/env python3
"""Each lesson kernel's predicted time beside the one measured on a GPU.

    python3 predict/compare.py CUDALAB [--gpu h200] [--measured FILE] [--instructions]
                               [LESSON...]

For each lesson (all by default), builds its solution's program (cudalab run
LESSON --solution), predicts its --bench run (cudalab predict -- PROGRAM
--bench: a sample of each launch's blocks, counted and scaled up), and
prints each kernel's predicted duration beside its measured median duration
(FILE: predict/calibration/GPU-lesson-kernels.txt, lesson_times.sh's
summary), their ratio (predicted / measured) and the bound the model
names, then the share within 1.3x, 1.5x and 2x and the geometric mean of
the error. With --instructions, also the model's instruction estimate
beside the GPU's count (predict/calibration/instructions.py). Exits 1 when
a prediction could not be made.
"""
import argparse
import json
import math
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "predict" / "calibration"))
import instructions  # noqa: E402 (beside this script's folder)


def measured_durations(path):
    """{(lesson, kernel, grid, block, inputs, input_sets): median us}, grid and block in blocks
    and threads; inputs and input_sets 0 for all of a kernel and shape's launches, else the
    stretch of them lesson_times.sh told apart (on the inputs-th of input_sets data)."""
    out = {}
    for line in open(path):
        if line.startswith('#') or not line.strip():
            continue
        parts = line.split()
        grid = int(parts[parts.index('grid') + 1]) if 'grid' in parts else 0
        block = int(parts[parts.index('block') + 1]) if 'block' in parts else 0
        inputs = sets = 0
        if 'inputs' in parts:
            at = parts.index('inputs')
            inputs, sets = int(parts[at + 1]), int(parts[at + 3].rstrip(')'))
        out[(parts[0], parts[1], grid, block, inputs, sets)] = float(parts[2])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cudalab")
    ap.add_argument("--gpu", default="h200")
    ap.add_argument("--measured")
    ap.add_argument("--instructions", action="store_true",
                    help="also the instruction estimate beside the GPU's count")
    ap.add_argument("lessons", nargs="*")
    a = ap.parse_args()
    measured_file = a.measured or ROOT / "predict" / "calibration" / f"{a.gpu}-lesson-kernels.txt"
    measured = measured_durations(measured_file)
    lessons = a.lessons or sorted({key[0] for key in measured},
                                  key=lambda n: json.load(open(ROOT / "lessons" / n / "lesson.json"))["order"])
    rows, failed, estimates = [], 0, []
    for lesson in lessons:
        subprocess.run([a.cudalab, "run", lesson, "--solution", "--", "--help"], cwd=ROOT,
                       capture_output=True, text=True)
        program = Path(a.cudalab).resolve().parent.parent / "run" / lesson / "solution" / lesson
        started = time.time()
        r = subprocess.run([a.cudalab, "predict", "--gpu", a.gpu, "--json", "--", str(program),
                            "--bench"], cwd=ROOT, capture_output=True, text=True)
        seconds = time.time() - started
        try:
            launches = json.loads(r.stdout)["launches"]
        except (ValueError, KeyError):
            print(f"{lesson}: no prediction (exit {r.returncode}): {r.stderr[-400:]}")
            failed += 1
            continue
        print(f"{lesson}: predicted in {seconds:.1f} s", file=sys.stderr)
        shape = lambda x: (x["kernel"], x["grid"][0] * x["grid"][1] * x["grid"][2],
                           x["block"][0] * x["block"][1] * x["block"][2])
        # A kernel and shape traced again on other data: its sets in order.
        sets = {}
        for x in launches:
            sets[shape(x)] = max(sets.get(shape(x), 0), x.get("inputs", 1))
        for x in launches:
            if not x.get("covered"):
                continue
            kernel, grid, block = shape(x)
            estimates.append((lesson, kernel, grid, block, x.get("warp_instructions")))
            n, of = x.get("inputs", 1), sets[shape(x)]
            want = measured.get((lesson, kernel, grid, block, n, of)) or \
                measured.get((lesson, kernel, grid, block, 0, 0))
            label = f'{kernel} <<<{grid}, {block}>>>' + (f', data {n}' if of > 1 else '')
            rows.append((lesson, label, x["kernel_us"], want, x["bound"]))
    print(f"{'lesson':12s} {'kernel <<<blocks, threads>>>':40s} {'predicted':>11s} "
          f"{'measured':>11s} {'ratio':>6s}  bound")
    errors = []
    for lesson, kernel, got, want, bound in rows:
        ratio = got / want if want else float('nan')
        if want:
            errors.append(max(ratio, 1 / ratio))
        print(f"{lesson:12s} {kernel:40s} {got:9.1f}us {want or 0:9.1f}us {ratio:6.2f}  {bound}")
    if errors:
        within = lambda f: sum(e <= f for e in errors)
        geo = math.exp(sum(math.log(e) for e in errors) / len(errors))
        print(f"\n{len(errors)} kernels: {within(1.3)} within 1.3x, {within(1.5)} within 1.5x, "
              f"{within(2)} within 2x; geometric mean of the error {geo:.2f}x")
    if a.instructions:
        instructions.print_table(estimates, a.gpu)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
