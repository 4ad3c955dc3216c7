#!/usr/bin/env python3
"""Checks that each kernel named on the command line got a block-loops body
in BINARY (the symbol `KERNEL(...) [clone .cudalab_block_loops]` that
simulator/passes/block_loops.cpp adds), and that each kernel named after
--not did not. A kernel that silently fell back to a fiber per thread would
pass every other test of tests/programs/block_loops.cu.

usage: has_block_loops.py BINARY KERNEL... [--not KERNEL...]"""
import re
import subprocess
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    binary, names = sys.argv[1], sys.argv[2:]
    without = names[names.index("--not") + 1:] if "--not" in names else []
    wanted = names[:names.index("--not")] if "--not" in names else names
    r = subprocess.run(["nm", "-C", binary], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"has_block_loops: nm {binary} failed: {r.stderr.strip()}")
    bodies = {m.group(1) for m in re.finditer(r"\b(\w+)\(.*\.cudalab_block_loops", r.stdout)}
    missing = [k for k in wanted if k not in bodies]
    extra = [k for k in without if k in bodies]
    for k in missing:
        print(f"{k}: no block-loops body (it runs a fiber per thread)")
    for k in extra:
        print(f"{k}: has a block-loops body, but should keep its fibers")
    if missing or extra:
        sys.exit(1)
    print(f"block-loops bodies: {len(wanted)} kernels as expected ({', '.join(sorted(wanted))})")


if __name__ == "__main__":
    main()
