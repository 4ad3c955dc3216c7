"""The model's instruction estimate beside the instructions a GPU ran.

predict/compare.py and predict/corpus/compare.py print this table with
--instructions: for each launch predicted, the warp instructions the model
estimates from the simulator's machine code (`warp_instructions` in
`cudalab predict --json`) beside those Nsight Compute counted on the GPU
(predict/calibration/GPU-instructions.txt, from instruction_counts.sh), and
their ratio. The instruction-issue term of a prediction is only as good as
this estimate.
"""
import math
from pathlib import Path

HERE = Path(__file__).resolve().parent


def counted(gpu):
    """{(set, kernel, grid, block): warp instructions}; {} when not measured."""
    path = HERE / f"{gpu}-instructions.txt"
    out = {}
    if not path.exists():
        return out
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        name, kernel, grid, block, count = line.split()
        out[(name, kernel, int(grid), int(block))] = float(count)
    return out


def print_table(rows, gpu):
    """rows: (set, kernel, grid, block, estimated); prints those the GPU counted."""
    gpu_counts = counted(gpu)
    print(f"\nInstructions, estimated by the model beside counted on the {gpu} "
          f"(predict/calibration/{gpu}-instructions.txt):")
    print(f"{'set':12s} {'kernel <<<blocks, threads>>>':44s} {'estimated':>14s} {'counted':>14s} {'ratio':>6s}")
    errors = []
    for name, kernel, grid, block, estimated in rows:
        want = gpu_counts.get((name, kernel, grid, block))
        if not want or estimated is None:
            continue
        ratio = estimated / want
        errors.append(max(ratio, 1 / ratio))
        shape = f"{kernel} <<<{grid}, {block}>>>"
        print(f"{name:12s} {shape:44s} {estimated:14.4g} {want:14.4g} {ratio:6.2f}")
    if errors:
        geo = math.exp(sum(math.log(e) for e in errors) / len(errors))
        print(f"{len(errors)} launches: {sum(e <= 1.5 for e in errors)} within 1.5x, "
              f"{sum(e <= 2 for e in errors)} within 2x; geometric mean of the error {geo:.2f}x")
    else:
        print("(none of these launches was counted on the GPU)")
