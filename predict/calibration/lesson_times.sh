#!/usr/bin/env bash
# The lessons' kernels timed on a GPU, the two ways a prediction is compared
# with: what each lesson's --bench prints (CUDA events around a launch,
# launch overhead included) and each kernel's own duration as Nsight
# Compute measures it (gpu__time_duration.sum), launch by launch, with the
# GPU's clocks and caches left as they are when the program runs alone.
#   predict/calibration/lesson_times.sh OUT_DIR
# Needs nvcc, ncu and a GPU (not the simulator's build). Writes, per lesson,
# OUT_DIR/LESSON.bench.txt (--bench's output) and OUT_DIR/LESSON.ncu.csv
# (ncu's CSV: one row per launch), and OUT_DIR/durations.txt: each kernel's
# median duration in microseconds, by lesson.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: predict/calibration/lesson_times.sh OUT_DIR}
mkdir -p "$out"
for tool in nvcc ncu python3; do
  command -v "$tool" >/dev/null || { echo "lesson_times.sh: $tool not found" >&2; exit 2; }
done
mapfile -t lessons < <(python3 -c '
import glob, json
found = [json.load(open(f)) for f in glob.glob("lessons/*/lesson.json")]
for lesson in sorted(found, key=lambda j: (j["order"], j["name"])):
    print(lesson["name"])')
framework=(framework/src/compare.cpp framework/src/judge_side.cpp framework/src/submission_side.cpp
           framework/src/wire.cpp support/src/*.cpp)
build() {
  local lesson=$1 d=lessons/$1 libs=()
  grep -q "cublas_v2.h" "$d/driver.cu" && libs=(-lcublas)
  nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -I framework/include -I support/include \
    -I trace/include -I "$d" -I "${NLOHMANN_INCLUDE:-/usr/include}" "$d/driver.cu" "$d/solution.cu" \
    "${framework[@]}" "${libs[@]}" -o "$out/${lesson}_gpu" >"$out/$lesson.build.log" 2>&1 ||
    { cat "$out/$lesson.build.log"; echo "lesson_times.sh: $lesson did not build" >&2; return 1; }
}
# The builds side by side, the timings one at a time (the GPU to itself).
pids=()
for lesson in "${lessons[@]}"; do build "$lesson" & pids+=($!); done
failed=0
for p in "${pids[@]}"; do wait "$p" || failed=1; done
for lesson in "${lessons[@]}"; do
  [ -x "$out/${lesson}_gpu" ] || continue
  "$out/${lesson}_gpu" --bench >"$out/$lesson.bench.txt" 2>&1 || failed=1
  # As the program runs alone: the GPU's own clocks (ncu locks them to the
  # base clock unless told not to) and caches kept between launches (ncu
  # flushes them before each one unless told not to).
  ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum --csv \
    "$out/${lesson}_gpu" --bench >"$out/$lesson.ncu.csv" 2>/dev/null ||
    failed=1
done
python3 - "$out" "${lessons[@]}" <<'PY' >"$out/durations.txt"
import csv, io, statistics, sys
out, lessons = sys.argv[1], sys.argv[2:]
for lesson in lessons:
    try:
        text = open(f'{out}/{lesson}.ncu.csv').read()
    except OSError:
        continue
    rows = [r for r in csv.DictReader(io.StringIO(text[text.find('"ID"'):])) if r.get('Metric Name')]
    by = {}
    for r in rows:
        unit = r['Metric Unit']
        v = float(r['Metric Value'].replace(',', ''))
        v *= {'ns': 1e-3, 'nsecond': 1e-3, 'us': 1, 'usecond': 1, 'ms': 1e3, 'msecond': 1e3}[unit]
        by.setdefault(r['Kernel Name'].split('(')[0], []).append(v)
    for k, v in by.items():
        print(f'{lesson:12s} {k:40s} {statistics.median(v):12.2f} us  ({len(v)} launches)')
PY
cat "$out/durations.txt"
exit $failed
