#!/usr/bin/env bash
# Each kernel's instructions as a GPU runs them: Nsight Compute's
# smsp__inst_executed.sum (warp instructions) for every launch of the
# corpus (predict/corpus/kernels.cu --once) and of each lesson's --bench,
# the median of each launch shape. What the model's instruction estimate
# (predict/README.md, "instruction issue") is checked against.
#   predict/calibration/instruction_counts.sh OUT_FILE
# Needs nvcc, ncu and a GPU; nlohmann/json.hpp where the compiler finds it
# (or NLOHMANN_INCLUDE=DIR). Writes OUT_FILE in the form of
# h200-instructions.txt (set, kernel, grid, block, warp instructions).
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: predict/calibration/instruction_counts.sh OUT_FILE}
for tool in nvcc ncu python3; do
  command -v "$tool" >/dev/null || { echo "instruction_counts.sh: $tool not found" >&2; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
metrics=smsp__inst_executed.sum,launch__grid_size,launch__block_size
nvcc -O3 -arch=sm_90 -o "$work/kernels" predict/corpus/kernels.cu ||
  { echo "instruction_counts.sh: the corpus did not build" >&2; exit 1; }
ncu --csv --metrics "$metrics" "$work/kernels" --once >"$work/corpus.csv" 2>/dev/null ||
  { echo "instruction_counts.sh: ncu could not profile the corpus" >&2; exit 1; }
. predict/calibration/lesson_gpu_build.sh
lessons=()
for d in lessons/*/; do
  lesson=$(basename "$d")
  if lesson_gpu_build "$lesson" "$work/$lesson" "$work/$lesson.log"; then
    ncu --csv --metrics "$metrics" "$work/$lesson" --bench >"$work/$lesson.csv" 2>/dev/null &&
      lessons+=("$lesson")
  else
    echo "instruction_counts.sh: $lesson did not build:" >&2
    tail -5 "$work/$lesson.log" >&2
  fi
done
python3 - "$work" corpus "${lessons[@]}" >"$out" <<'PY'
import csv, io, statistics, sys
work, sets = sys.argv[1], sys.argv[2:]
print('# Warp instructions each kernel ran on the GPU (Nsight Compute, smsp__inst_executed.sum), the')
print('# median over the launches of one shape: predict/calibration/instruction_counts.sh.')
print('# set        kernel                                    grid     block   instructions')
for name in sets:
    text = open(f'{work}/{name}.csv').read()
    rows = [r for r in csv.DictReader(io.StringIO(text[text.find('"ID"'):])) if r.get('Metric Name')]
    launches = {}
    for r in rows:
        kernel = r['Kernel Name'].replace('<unnamed>::', '').replace('(anonymous namespace)::', '')
        kernel = kernel.removeprefix('void ').split('(')[0].replace(' ', '')
        x = launches.setdefault(r['ID'], {'kernel': kernel})
        x[r['Metric Name']] = float(r['Metric Value'].replace(',', ''))
    shapes = {}
    for x in launches.values():
        key = (x['kernel'], int(x['launch__grid_size']), int(x['launch__block_size']))
        shapes.setdefault(key, []).append(x['smsp__inst_executed.sum'])
    for (kernel, grid, block), counts in shapes.items():
        print(f'{name:12s} {kernel:40s} {grid:9d} {block:6d} {statistics.median(counts):14.0f}')
PY
echo "instruction_counts.sh: $out"
