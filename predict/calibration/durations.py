#!/usr/bin/env python3
"""Each lesson kernel's median duration from Nsight Compute's CSVs.

    python3 predict/calibration/durations.py OUT_DIR LESSON...

Reads OUT_DIR/LESSON.ncu.csv (lesson_times.sh's: one row per launch and
metric, gpu__time_duration.sum, launch__grid_size and launch__block_size)
and prints, per lesson, a line for each kernel and launch shape: its median
duration over its launches, then, where their time (in launch order) steps
by more than a quarter (other data, most often), a line for each stretch
(`inputs K of M`): the
form of predict/calibration/GPU-lesson-kernels.txt. A lesson without a CSV
is left out.
"""
import csv
import io
import statistics
import sys


def stretches(v, w=3, step=1.25):
    """Where to cut durations `v` (in launch order): [0, ..., len(v)].

    A cut goes where the median of the next `w` launches differs from that
    of the `w` before by more than `step` times; medians of three step over
    one launch of another level, and of the positions that step, the cut
    goes where the means differ most. Stretches are at least 2 `w` long (a
    warm-up's two slow launches are no stretch of their own). Whatever made
    the time step (other data, the kernel run alone, then inside a larger
    computation) is not known here."""
    cuts = [0]
    ratio = lambda a, b: max(a, b) / max(min(a, b), 1e-9)
    steps = [i for i in range(w, len(v) - w + 1)
             if ratio(statistics.median(v[i - w:i]), statistics.median(v[i:i + w])) > step]
    while steps:
        run = [i for i in steps if i - steps[0] < w]
        steps = steps[len(run):]
        best = max(run, key=lambda i: ratio(statistics.mean(v[i - w:i]), statistics.mean(v[i:i + w])))
        if best - cuts[-1] >= 2 * w and len(v) - best >= 2 * w:
            cuts.append(best)
    cuts.append(len(v))
    return cuts


def ncu_rows(path):
    """The metric rows of Nsight Compute's CSV at `path` (what the program
    printed before the table left out); None when it cannot be read."""
    try:
        text = open(path).read()
    except OSError:
        return None
    return [r for r in csv.DictReader(io.StringIO(text[text.find('"ID"'):]))
            if r.get('Metric Name')]


def main():
    if len(sys.argv) < 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    out, lessons = sys.argv[1], sys.argv[2:]
    for lesson in lessons:
        rows = ncu_rows(f'{out}/{lesson}.ncu.csv')
        if rows is None:
            continue
        # Per launch (its ID): the kernel, its duration, its grid and block.
        launches = {}
        for r in rows:
            x = launches.setdefault(r['ID'], {'kernel': r['Kernel Name'].split('(')[0]})
            v = float(r['Metric Value'].replace(',', ''))
            if r['Metric Name'] == 'gpu__time_duration.sum':
                unit = r['Metric Unit']
                x['us'] = v * {'ns': 1e-3, 'nsecond': 1e-3, 'us': 1, 'usecond': 1, 'ms': 1e3,
                               'msecond': 1e3}[unit]
            elif r['Metric Name'] == 'launch__grid_size':
                x['grid'] = int(v)
            elif r['Metric Name'] == 'launch__block_size':
                x['block'] = int(v)
        by = {}
        for _, x in sorted(launches.items(), key=lambda kv: int(kv[0])):
            if 'us' in x:
                by.setdefault((x['kernel'], x.get('grid', 0), x.get('block', 0)), []).append(x['us'])
        for (k, grid, block), v in by.items():
            print(f'{lesson:12s} {k:40s} {statistics.median(v):12.2f} us  ({len(v)} launches)'
                  f'  grid {grid} block {block}')
            # A kernel run on different data (the histogram's uniform, then
            # skewed bytes): a line for each stretch, as a prediction traces
            # such a kernel again on its new inputs.
            cuts = stretches(v)
            if len(cuts) > 2:
                for n, (a, b) in enumerate(zip(cuts, cuts[1:]), 1):
                    print(f'{lesson:12s} {k:40s} {statistics.median(v[a:b]):12.2f} us  '
                          f'({b - a} launches, inputs {n} of {len(cuts) - 1})'
                          f'  grid {grid} block {block}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
