#!/usr/bin/env bash
# GPU run without CMake, for a machine that has nvcc and a GPU but not the
# simulator's dependencies: builds every lesson's GPU variants with nvcc,
# runs their graded tests (solution and exercise), their programs and their
# benchmarks, and the launch-error comparison.
#   bench/gpu.sh OUT_DIR     (NLOHMANN_INCLUDE=dir if nlohmann/json.hpp is elsewhere)
# The lessons are the folders with a lessons/*/lesson.json, in its "order".
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: bench/gpu.sh OUT_DIR}
mkdir -p "$out"
arch=(-gencode arch=compute_90,code=sm_90)
# The framework's sources (CMake's cudalab_framework): compare.cpp calls
# channel.cpp's side of the judge, grading.cpp runs the graded tests.
framework=(framework/src/compare.cpp framework/src/channel.cpp)
grading=("${framework[@]}" framework/src/grading.cpp)
mapfile -t lessons < <(python3 -c '
import glob, json
found = [json.load(open(f)) for f in glob.glob("lessons/*/lesson.json")]
for lesson in sorted(found, key=lambda j: (j["order"], j["name"])):
    print(lesson["name"])')
[ ${#lessons[@]} -gt 0 ] || { echo "gpu.sh: no lessons/*/lesson.json found" >&2; exit 1; }
for lesson in "${lessons[@]}"; do
  inc=(-I framework/include -I "lessons/$lesson" -I "${NLOHMANN_INCLUDE:-/usr/include}")
  libs=()
  d=lessons/$lesson
  if grep -q "cublas_v2.h" "$d/driver.cu"; then libs=(-lcublas); fi  # matmul's comparison
  nvcc -O3 -std=c++17 "${arch[@]}" "${inc[@]}" $d/driver.cu $d/solution.cu "${framework[@]}" \
    "${libs[@]}" -o "$out/${lesson}_gpu"
  nvcc -O3 -std=c++17 "${arch[@]}" "${inc[@]}" $d/grade.cu $d/solution.cu "${grading[@]}" \
    -o "$out/${lesson}_grader_gpu"
  nvcc -O3 -std=c++17 "${arch[@]}" "${inc[@]}" $d/grade.cu $d/exercise.cu "${grading[@]}" \
    -o "$out/${lesson}_grader_exercise_gpu" 2>/dev/null
done
nvcc -O3 -std=c++17 "${arch[@]}" tests/programs/launch_errors.cu -o "$out/launch_errors_gpu"
for lesson in "${lessons[@]}"; do
  echo "== $lesson: graded tests, solution, on the GPU";  "$out/${lesson}_grader_gpu" || true
  echo "== $lesson: graded tests, exercise, on the GPU";
  "$out/${lesson}_grader_exercise_gpu" | tail -2 || true
  echo "== $lesson: the program";                          "$out/${lesson}_gpu" || true
  echo "== $lesson: benchmark";                            "$out/${lesson}_gpu" --bench || true
done
echo "== launch and API errors";                           "$out/launch_errors_gpu" || true
