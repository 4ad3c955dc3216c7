#!/usr/bin/env bash
# The lessons' kernels timed on a GPU, the two ways a prediction is compared
# with: what each lesson's --bench prints (CUDA events around a launch,
# launch overhead included) and each kernel's own duration as Nsight
# Compute measures it (gpu__time_duration.sum), launch by launch, with the
# GPU's clocks and caches left as they are when the program runs alone.
#   predict/calibration/lesson_times.sh OUT_DIR [--levels]
# Needs nvcc, ncu and a GPU (not the simulator's build). Writes, per lesson,
# OUT_DIR/LESSON.bench.txt (--bench's output) and OUT_DIR/LESSON.ncu.csv
# (ncu's CSV: one row per launch), OUT_DIR/durations.txt: each kernel's
# median duration in microseconds, by lesson and launch shape (grid and
# block sizes), and OUT_DIR/empty_kernel.csv: an empty kernel's own
# duration (the calibration program's, under ncu). With --levels, also
# OUT_DIR/LESSON.levels.csv: the third launch of each kernel, what it moved
# at each level of the memory (DRAM, L2, L1, shared memory), the
# instructions it ran and the occupancy it got, as Nsight Compute counts
# them (caches as they are): what a prediction's model is checked against,
# level by level; and OUT_DIR/levels.txt, those figures by kernel.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: predict/calibration/lesson_times.sh OUT_DIR [--levels]}
levels=${2:-}
mkdir -p "$out"
for tool in nvcc ncu python3; do
  command -v "$tool" >/dev/null || { echo "lesson_times.sh: $tool not found" >&2; exit 2; }
done
mapfile -t lessons < <(python3 -c '
import glob, json
found = [json.load(open(f)) for f in glob.glob("lessons/*/lesson.json")]
for lesson in sorted(found, key=lambda j: (j["order"], j["name"])):
    print(lesson["name"])')
. predict/calibration/lesson_gpu_build.sh
build() {
  lesson_gpu_build "$1" "$out/${1}_gpu" "$out/$1.build.log" ||
    { cat "$out/$1.build.log"; echo "lesson_times.sh: $1 did not build" >&2; return 1; }
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
  ncu --clock-control none --cache-control none --csv \
    --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size \
    "$out/${lesson}_gpu" --bench >"$out/$lesson.ncu.csv" 2>/dev/null ||
    failed=1
  if [ "$levels" = --levels ]; then
    ncu --clock-control none --cache-control none --kernel-id ::regex:.:3 --csv \
      --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex.sum,lts__t_sectors_srcunit_tex_lookup_hit.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts.sum,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,sm__maximum_warps_per_active_cycle_pct,launch__registers_per_thread,launch__grid_size,launch__block_size \
      "$out/${lesson}_gpu" --bench >"$out/$lesson.levels.csv" 2>/dev/null || failed=1
  fi
done
if [ "$levels" = --levels ]; then
  python3 - "$out" "${lessons[@]}" <<'PY' >"$out/levels.txt"
import sys
sys.path.insert(0, 'predict/calibration')
from durations import ncu_rows
out, lessons = sys.argv[1], sys.argv[2:]
for lesson in lessons:
    rows = ncu_rows(f'{out}/{lesson}.levels.csv')
    if rows is None:
        continue
    by = {}
    for r in rows:
        by.setdefault(r['Kernel Name'].split('(')[0], {})[r['Metric Name']] = (r['Metric Value'], r['Metric Unit'])
    for k, m in by.items():
        print(lesson, k)
        for name, (v, unit) in sorted(m.items()):
            print(f'    {name:60s} {v:>20s} {unit}')
PY
fi
python3 predict/calibration/durations.py "$out" "${lessons[@]}" >"$out/durations.txt"
# An empty kernel's own duration: the least a launch takes on the GPU (the
# calibration program's launch benchmarks, under Nsight Compute).
if nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -o "$out/limits" \
    predict/calibration/limits.cu >"$out/limits.build.log" 2>&1; then
  ncu --clock-control none --kernel-name empty_kernel --launch-count 20 --csv \
    --metrics gpu__time_duration.sum,launch__grid_size "$out/limits" --only launch \
    >"$out/empty_kernel.csv" 2>/dev/null || failed=1
else
  cat "$out/limits.build.log"
  failed=1
fi
cat "$out/durations.txt"
exit $failed
