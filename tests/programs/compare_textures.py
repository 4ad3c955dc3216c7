#!/usr/bin/env python3
"""Compares textures.cu's output on the simulator with an H100's.

usage: compare_textures.py SIMULATOR_OUTPUT GPU_OUTPUT

Both outputs are sections of hex values ("name: v v v ..." with continuation
lines). Every value must be equal. Prints the count and each difference;
exit status 1 on any.
"""
import re
import sys


def sections(path):
    out, order, current = {}, [], None
    with open(path) as f:
        for line in f:
            if line.startswith(" ") and current is not None:
                out[current] += line.split()
                continue
            m = re.match(r"([^:]+):(.*)", line.rstrip("\n"))
            if m:
                current = m.group(1)
                order.append(current)
                out[current] = m.group(2).split()
    return out, order


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sim, _ = sections(sys.argv[1])
    gpu, order = sections(sys.argv[2])
    total = equal = 0
    unexpected = []
    for name in order:
        want, got = gpu[name], sim.get(name)
        if got is None:
            unexpected.append(f"{name}: missing from the simulator's output")
            continue
        if len(got) != len(want):
            unexpected.append(f"{name}: {len(got)} values, the GPU printed {len(want)}")
        for i, w in enumerate(want):
            total += 1
            g = got[i] if i < len(got) else "(none)"
            if g == w:
                equal += 1
            else:
                unexpected.append(f"{name} [{i}]: simulator {g}, GPU {w}")
    print(f"{equal} of {total} values equal the GPU's")
    for u in unexpected:
        print(u)
    sys.exit(1 if unexpected else 0)


if __name__ == "__main__":
    main()
