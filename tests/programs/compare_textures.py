#!/usr/bin/env python3
"""Compares textures.cu's output on the simulator with an H100's.

usage: compare_textures.py SIMULATOR_OUTPUT GPU_OUTPUT KNOWN_DIFFERENCES

Both outputs are sections of hex values ("name: v v v ..." with continuation
lines). KNOWN_DIFFERENCES lists, one per line, "section<TAB>index" of the
values where the simulator is known to differ (docs/simulator.md says why).
Every other value must be equal; a known difference that became equal is
reported but is no failure. Prints the counts; exit status 1 on any other
difference.
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
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sim, _ = sections(sys.argv[1])
    gpu, order = sections(sys.argv[2])
    known = set()
    with open(sys.argv[3]) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                name, index = line.rstrip("\n").rsplit("\t", 1)
                known.add((name, int(index)))
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
            elif (name, i) not in known:
                unexpected.append(f"{name} [{i}]: simulator {g}, GPU {w}")
    fixed = [k for k in known if k[0] in gpu and k[1] < len(sim.get(k[0], []))
             and sim[k[0]][k[1]] == gpu[k[0]][k[1]]]
    print(f"{equal} of {total} values equal the GPU's; {len(known)} known differences")
    if fixed:
        print(f"{len(fixed)} known differences are equal now: update {sys.argv[3]}")
    for u in unexpected:
        print(u)
    sys.exit(1 if unexpected else 0)


if __name__ == "__main__":
    main()
