#!/usr/bin/env python3
"""A GPU's calibration made from another's, where the two share their chip.

usage: derive.py FROM.json --device NAME --l2-bytes N --memory-clock-mhz N
                 --copy-gbs TARGET SOURCE --how TEXT > GPU.json

For a GPU that could not be measured but shares the multiprocessors,
clocks and L2 of one that was (an H100 SXM and an H200 are one chip, GH100,
132 multiprocessors at up to 1980 MHz; they differ in their memory: HBM3 at
3.35 TB/s against HBM3e at 4.8 TB/s, and in the L2 enabled, 50 MiB against
60 MiB): every figure of FROM.json is kept but those DRAM's bandwidth
limits (DRAM_SCALED below), which are scaled by the ratio of the two GPUs'
device-to-device copies, each measured the same way (`--copy-gbs TARGET
SOURCE`, in GB/s). DRAM's latency is kept (one chip's memory controller;
HBM3 and HBM3e differ in pin speed, not in timings a load waits for).

The file says so (its `derived` block, and each scaled figure's `how`),
and `cudalab predict` names it "derived" beside every prediction made with
it: a calibration measured on the GPU itself (limits.cu) replaces it.
"""
import argparse
import json
import sys

# The figures a DRAM's bandwidth limits (limits.cu: each moves 1 GiB, past
# the L2): scaled by the copies' ratio. Every other figure is the chip's.
DRAM_SCALED = ("dram_write", "dram_read", "dram_copy", "dram_scattered_sectors",
               "scattered_store_sectors")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("source", help="the measured GPU's calibration (h200.json)")
    ap.add_argument("--device", required=True, help="the derived GPU's name, as CUDA gives it")
    ap.add_argument("--l2-bytes", type=int, required=True, help="its L2, in bytes")
    ap.add_argument("--memory-clock-mhz", type=int, required=True)
    ap.add_argument("--copy-gbs", type=float, nargs=2, required=True, metavar=("TARGET", "SOURCE"),
                    help="a device-to-device copy measured the same way on each GPU, GB/s")
    ap.add_argument("--how", required=True, help="where and how the two copies were measured")
    a = ap.parse_args()
    try:
        with open(a.source) as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"derive.py: {a.source}: not a calibration JSON file: {e}")
    if data.get("quick") is not False or data.get("derived"):
        sys.exit(f"derive.py: {a.source} is not a full-size measurement of a GPU")
    target, source = a.copy_gbs
    if not (0 < target and 0 < source) or a.l2_bytes <= 0 or a.memory_clock_mhz <= 0:
        sys.exit("derive.py: the copies, the L2 and the memory clock must be positive")
    ratio = target / source
    measured_on = data["device"]
    out = dict(data)
    out["device"] = a.device
    out["l2_bytes"] = a.l2_bytes
    out["memory_clock_mhz"] = a.memory_clock_mhz
    out["derived"] = {
        "from": measured_on,
        "dram_ratio": round(ratio, 4),
        "how": (f"derived, not measured on this GPU: the {measured_on}'s figures (the same chip), "
                f"DRAM's bandwidth scaled by {target:g} / {source:g} GB/s = {ratio:.4f} "
                f"({a.how}); L2 {a.l2_bytes} bytes, memory clock {a.memory_clock_mhz} MHz"),
    }
    figures = {}
    for name, f in data["figures"].items():
        g = dict(f)
        if name in DRAM_SCALED:
            g["value"] = round(f["value"] * ratio, 4)
            g.pop("ms", None)  # the source's time, not this GPU's
            g["how"] = f"the {measured_on}'s {f['value']:g} x {ratio:.4f}"
        figures[name] = g
    missing = [n for n in DRAM_SCALED if n not in figures]
    if missing:
        sys.exit(f"derive.py: {a.source} has no {', '.join(missing)}")
    out["figures"] = figures
    write(out)


def write(data):
    """As limits.cu prints a calibration: a line per figure."""
    lines = []
    for key, value in data.items():
        if key == "figures":
            rows = [f'    "{n}": {json.dumps(f)}' for n, f in value.items()]
            lines.append('  "figures": {\n' + ",\n".join(rows) + "\n  }")
        else:
            lines.append(f'  "{key}": {json.dumps(value)}')
    sys.stdout.write("{\n" + ",\n".join(lines) + "\n}\n")


if __name__ == "__main__":
    main()
