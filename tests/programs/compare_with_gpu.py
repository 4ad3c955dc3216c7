#!/usr/bin/env python3
"""Compares a test program's output on the simulator with an H100's
(inline_ptx.cu, half_complex.cu, simd_intrinsics.cu, cub_algorithms.cu:
tests/data/*_gpu.txt).

usage: compare_with_gpu.py SIMULATOR_OUTPUT GPU_OUTPUT

Lines are compared one by one. Lines marked `~` hold decimal results of
PTX's approximate instructions (rcp.approx, ex2.approx, ...), which a GPU
computes to within the error bound the PTX ISA gives, not IEEE-rounded:
those values must agree within that bound (tanh.approx's is 2^-10.987
relative; sin.approx's and cos.approx's 2^-20.5 absolute in [-pi, pi]; the
others' are taken as 2^-18 relative or 2^-20 absolute), as must a float
result whose last bits depend on the GPU's timing (CUB's scan of floats). Values marked `~h`
or `~b` are half-precision or bfloat16 functions a GPU approximates (hexp,
hsin, ...): within one unit in the last place of their format (2^-10 or
2^-7 relative). Every
other line must be equal. Prints each difference and the counts; exit
status 1 on any difference.
"""
import math
import sys

TANH = "approx 7~:"


def lines(path):
    with open(path) as f:
        return [l.rstrip("\n") for l in f]


def close(a, b, section, format16=None):
    """format16: None for PTX values, else (relative, absolute) bounds of one
    unit in the last place of a 16-bit format (absolute: its subnormals')."""
    if a == b:
        return True
    try:
        x, y = float(a), float(b)
    except ValueError:
        return False
    if not (math.isfinite(x) and math.isfinite(y)):
        return False  # an infinity or NaN must be the same on both sides
    relative, absolute = format16 or (2.0 ** -10.987 if section == TANH else 2.0 ** -18,
                                      2.0 ** -20)
    return abs(x - y) <= max(abs(x), abs(y)) * relative or abs(x - y) <= absolute


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sim, gpu = lines(sys.argv[1]), lines(sys.argv[2])
    if len(sim) != len(gpu):
        print(f"the simulator printed {len(sim)} lines, the GPU {len(gpu)}")
    different, values, section = 0, 0, ""
    for n, (s, g) in enumerate(zip(sim, gpu), 1):
        if not s.startswith((" ", "~")):
            section = g.split(":")[0] + ":"
        if "~" in g:
            ts, tg = s.split(":")[-1].split(), g.split(":")[-1].split()
            format16 = ((2.0 ** -10, 2.0 ** -24) if "~h" in tg else
                        (2.0 ** -7, 2.0 ** -133) if "~b" in tg else None)
            ts = [t for t in ts if t not in ("~", "~h", "~b")]
            tg = [t for t in tg if t not in ("~", "~h", "~b")]
            values += len(tg)
            bad = len(ts) != len(tg) or not all(close(a, b, section, format16)
                                                for a, b in zip(ts, tg))
        else:
            values += max(0, len(g.split()) - (0 if g.startswith(" ") else 2))
            bad = s != g
        if bad:
            different += 1
            print(f"line {n} ({section}):\n  simulator: {s}\n  GPU:       {g}")
    ok = different == 0 and len(sim) == len(gpu)
    print(f"{len(gpu)} lines, about {values} values: "
          f"{'all equal' if ok else str(different) + ' lines differ'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
