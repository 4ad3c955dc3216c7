#!/usr/bin/env python3
"""Checks a run of the calibration program and the data files beside it.

usage: check_data.py RUN.json DATA.json...

RUN.json is what `limits` printed on this machine: every kernel's result
must have been right (wrong_results 0). Each data file must hold every
figure the run holds, each a positive number with the same unit, measured
at full size (not --quick), with the device it was taken on: a figure
added to the program and not measured again on each GPU fails here, by
name.
"""
import json, sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f'{path}: not a calibration JSON file: {e}')


if len(sys.argv) < 3:
    sys.exit(__doc__)
run = load(sys.argv[1])
problems = []
if run.get('wrong_results') != 0:
    problems.append(f"{sys.argv[1]}: {run.get('wrong_results')} kernels computed a wrong result")
figures = run.get('figures', {})
if not figures:
    problems.append(f'{sys.argv[1]}: no figures')
data_files = [p for p in sys.argv[2:] if p != sys.argv[1]]
for path in data_files:
    data = load(path)
    if data.get('quick') is not False:
        problems.append(f'{path}: measured with --quick (tiny sizes), not a GPU\'s limits')
    if not data.get('device'):
        problems.append(f'{path}: does not name its device')
    have = data.get('figures', {})
    for name, f in figures.items():
        g = have.get(name)
        if g is None:
            problems.append(f'{path}: no figure "{name}" (run predict/calibration/limits on that GPU again)')
        elif not isinstance(g.get('value'), (int, float)) or g['value'] <= 0:
            problems.append(f'{path}: "{name}" is not a positive number')
        elif g.get('unit') != f.get('unit'):
            problems.append(f'{path}: "{name}" is in {g.get("unit")!r}, the program gives {f.get("unit")!r}')
    for name in have:
        if name not in figures:
            problems.append(f'{path}: "{name}" is no longer measured by the program')
if problems:
    print('\n'.join(problems))
    sys.exit(1)
print(f'calibration data: {len(figures)} figures in each of {len(data_files)} files')
