#!/usr/bin/env python3
"""The corpus's kernels predicted on the simulator beside their times on a GPU.

    python3 predict/corpus/compare.py CUDALAB [--gpu h200] [--instructions]

Builds predict/corpus/kernels.cu with cudalab-cc (beside CUDALAB), predicts
its run (cudalab predict --json -- kernels), and prints each kernel's
predicted time as CUDA events around one launch measure it beside the time
measured on the GPU (predict/corpus/GPU.txt: the same program built by
nvcc), their ratio and the bound the model names; then the share within
1.5x and 2x and the geometric mean of the error. Kernels the model does not
time are listed with its reason. With --instructions, also the model's
instruction estimate beside the GPU's count (predict/calibration/instructions.py).
"""
import argparse
import json
import math
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "calibration"))
import instructions  # noqa: E402 (beside this script's folder)
# The kernels.cu kernels launched twice (templates, or two shapes), as the
# program names each launch.
TEMPLATES = {"fmas": ["fma_fp32", "fma_fp64"],
             "shared_loads": ["shared_conflicts", "shared_no_conflicts"],
             "fma_chain": ["fma_chain_one_warp", "fma_chain_four_blocks"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cudalab")
    ap.add_argument("--gpu", default="h200")
    ap.add_argument("--instructions", action="store_true",
                    help="also the instruction estimate beside the GPU's count")
    a = ap.parse_args()
    measured = {}
    for line in open(HERE / f"{a.gpu}.txt"):
        if not line.startswith("#") and line.strip():
            name, us, _ = line.split()
            measured[name] = float(us)
    cc = Path(a.cudalab).resolve().parent / "cudalab-cc"
    with tempfile.TemporaryDirectory() as tmp:
        program = Path(tmp) / "kernels"
        b = subprocess.run([str(cc), "-O2", str(HERE / "kernels.cu"), "-o", str(program)],
                           capture_output=True, text=True)
        if b.returncode:
            sys.exit("compare.py: kernels.cu did not build:\n" + b.stdout + b.stderr)
        r = subprocess.run([a.cudalab, "predict", "--gpu", a.gpu, "--json", "--", str(program)],
                           capture_output=True, text=True)
    try:
        launches = json.loads(r.stdout)["launches"]
    except (ValueError, KeyError):
        sys.exit(f"compare.py: no prediction (exit {r.returncode}): {r.stderr[-600:]}")
    print(f"{'kernel':22s} {'predicted':>11s} {'measured':>11s} {'ratio':>6s}  bound")
    errors, estimates = [], []
    for x in launches:
        # The corpus's kernel names: a template's name without its arguments.
        name = x["kernel"].split("<")[0]
        if TEMPLATES.get(name):  # one kernel, two launches: in the order run
            name = TEMPLATES[name].pop(0)
        want = measured.get(name)
        estimates.append(("corpus", x["kernel"], x["grid"][0] * x["grid"][1] * x["grid"][2],
                          x["block"][0] * x["block"][1] * x["block"][2], x.get("warp_instructions")))
        if not x.get("covered"):
            print(f"{name:22s} {'-':>11s} {want or 0:9.1f}us {'':6s}  no prediction: "
                  f"{x.get('not_covered')}")
            continue
        got = x["event_us"]
        ratio = got / want if want else float("nan")
        if want:
            errors.append((name, max(ratio, 1 / ratio)))
        print(f"{name:22s} {got:9.1f}us {want or 0:9.1f}us {ratio:6.2f}  {x['bound']}")
    if errors:
        e = [v for _, v in errors]
        geo = math.exp(sum(math.log(v) for v in e) / len(e))
        print(f"\n{len(e)} kernels: {sum(v <= 1.5 for v in e)} within 1.5x, "
              f"{sum(v <= 2 for v in e)} within 2x; geometric mean of the error {geo:.2f}x")
    if a.instructions:
        instructions.print_table(estimates, a.gpu)
    return 0


if __name__ == "__main__":
    sys.exit(main())
