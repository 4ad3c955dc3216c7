#!/usr/bin/env python3
# Compares a cuRAND dump's output on the simulator (stdin) with the H100's
# (tests/data/curand_host_gpu.txt or curand_sobol_gpu.txt, argv[1]; at least
# argv[2] values, 9000 if not given): integers and uniforms exactly,
# normals and log-normals within 1e-5 relative (the GPU's fast sine, cosine
# and inverse error function differ in the last bits). Expected parts the
# simulator leaves out (MTGP32, XORWOW's seeded ordering, Poisson, scrambled
# Sobol's host API) are skipped; every value the simulator printed must be
# there. Prints "compared N values" on success.
import re
import sys


def blocks(lines):
    out, key = {}, None
    for line in lines:
        words = line.split()
        if not words:
            continue
        m = re.match(r"u32 (\w+) order (\d+) offset (\d+)", line)
        if m:
            key = ("u32",) + m.groups()
            out[key] = []
        elif re.fullmatch(r"[0-9a-f]{8}", words[0]) and key:
            out[key] += words
        else:
            key = None
            out[tuple(words[:2]) if len(words) > 2 else tuple(words)] = words[2:]
    return out


expected = blocks(open(sys.argv[1]))
text = sys.stdin.read().splitlines(keepends=True)
if text and text[0].startswith("no CUDA device"):
    print("skipped: no CUDA device")  # the GPU twin without a GPU
    sys.exit(0)
got = blocks(text)
compared, bad = 0, 0
for key, values in got.items():
    if key not in expected:
        print("not in the H100's output:", key)
        bad += 1
        continue
    want = expected[key]
    if key[0] == "u32":
        values = values[: len(want)]
    if len(values) != len(want) and key[0] != "u32":
        print("length differs:", key)
        bad += 1
        continue
    for a, b in zip(values, want):
        compared += 1
        if key[0] in ("normal", "normal_double", "lognormal"):
            if abs(float(a) - float(b)) > 1e-5 * max(1.0, abs(float(b))):
                print("differs:", key, a, b)
                bad += 1
        elif a != b:
            print("differs:", key, a, b)
            bad += 1
if bad or compared < (int(sys.argv[2]) if len(sys.argv) > 2 else 9000):
    print("FAILED", bad, "differences,", compared, "values compared")
    sys.exit(1)
print("compared", compared, "values")
