#!/usr/bin/env bash
# GPU run without CMake, for a machine that has nvcc and a GPU but not the
# simulator's dependencies: builds the lesson's GPU variants with nvcc, runs
# the graded tests, the launch-error comparison and the bandwidth benchmark.
#   bench/gpu.sh OUT_DIR     (NLOHMANN_INCLUDE=dir if nlohmann/json.hpp is elsewhere)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: bench/gpu.sh OUT_DIR}
mkdir -p "$out"
inc=(-I framework/include -I lessons/vector_add -I "${NLOHMANN_INCLUDE:-/usr/include}")
arch=(-gencode arch=compute_90,code=sm_90)
nvcc -O3 -std=c++17 "${arch[@]}" "${inc[@]}" lessons/vector_add/driver.cu lessons/vector_add/solution.cu \
  framework/src/compare.cpp -o "$out/vector_add_gpu"
nvcc -O3 -std=c++17 "${arch[@]}" "${inc[@]}" lessons/vector_add/grade.cu lessons/vector_add/solution.cu \
  framework/src/compare.cpp framework/src/grading.cpp -o "$out/vector_add_grader_gpu"
nvcc -O3 -std=c++17 "${arch[@]}" "${inc[@]}" lessons/vector_add/grade.cu lessons/vector_add/exercise.cu \
  framework/src/compare.cpp framework/src/grading.cpp -o "$out/vector_add_grader_exercise_gpu"
nvcc -O3 -std=c++17 "${arch[@]}" tests/programs/launch_errors.cu -o "$out/launch_errors_gpu"
echo "== graded tests, solution, on the GPU";  "$out/vector_add_grader_gpu" || true
echo "== graded tests, exercise, on the GPU";  "$out/vector_add_grader_exercise_gpu" | tail -2 || true
echo "== driver";                              "$out/vector_add_gpu" 1000003 || true
echo "== launch and API errors";               "$out/launch_errors_gpu" || true
echo "== bandwidth";                            "$out/vector_add_gpu" --bench || true
