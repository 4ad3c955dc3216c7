#!/usr/bin/env bash
# GPU run without CMake, for a machine that has nvcc and a GPU but not the
# simulator's dependencies: builds every lesson's GPU variants with nvcc,
# runs their graded tests (solution and exercise), their programs and their
# benchmarks, and the launch-error comparison.
#   bench/gpu.sh OUT_DIR     (NLOHMANN_INCLUDE=dir if nlohmann/json.hpp is elsewhere)
# The lessons are the folders with a lessons/*/lesson.json, in its "order".
# Every step runs, whatever the ones before did; at the end the script names
# the steps that failed and exits 1 if any did: a build that fails, a
# program that crashes or exits non-zero, the solution's graded tests short
# of full points. The exercise's graded tests fail (its kernels are TODOs):
# they need only run to their report.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: bench/gpu.sh OUT_DIR}
mkdir -p "$out"
arch=(-gencode arch=compute_90,code=sm_90)
# The framework's sources (CMake's cudalab_framework) and the support
# library's it uses: compare.cpp calls the judge's side of the channel
# (judge_side.cpp, submission_side.cpp, wire.cpp), graded_tests.cpp runs the
# graded tests.
framework=(framework/src/compare.cpp framework/src/judge_side.cpp framework/src/submission_side.cpp
           framework/src/wire.cpp support/src/*.cpp)
grading=("${framework[@]}" framework/src/graded_tests.cpp)
mapfile -t lessons < <(python3 -c '
import glob, json
found = [json.load(open(f)) for f in glob.glob("lessons/*/lesson.json")]
for lesson in sorted(found, key=lambda j: (j["order"], j["name"])):
    print(lesson["name"])')
[ ${#lessons[@]} -gt 0 ] || { echo "gpu.sh: no lessons/*/lesson.json found" >&2; exit 1; }

failed=()
# step WHAT COMMAND...: runs the command; if it fails, WHAT is kept for the end.
step() {
  local what=$1
  shift
  if ! "$@"; then
    echo "gpu.sh: FAILED: $what"
    failed+=("$what")
  fi
}
# quiet LOG COMMAND...: runs the command into LOG, shown only if it fails
# (the exercise's build warns about the TODOs' unused variables).
quiet() {
  local log=$1
  shift
  "$@" >"$log" 2>&1 || { cat "$log"; return 1; }
}
# report LOG COMMAND...: runs graded tests that may fail; shows their last two
# lines and succeeds when they ran to their total (exit 0 or 1, not a crash).
report() {
  local log=$1 status=0
  shift
  "$@" >"$log" 2>&1 || status=$?
  tail -2 "$log"
  [ "$status" -le 1 ] && grep -q "^total: .* points$" "$log"
}

for lesson in "${lessons[@]}"; do
  inc=(-I framework/include -I support/include -I trace/include -I "lessons/$lesson"
       -I "${NLOHMANN_INCLUDE:-/usr/include}")
  libs=()
  d=lessons/$lesson
  # The graded tests, the hidden one too when this copy has it (as the CMake
  # build does).
  graded=("$d/grade.cu")
  if [ -f "$d/hidden.cu" ]; then graded+=("$d/hidden.cu"); fi
  if grep -q "cublas_v2.h" "$d/driver.cu"; then libs=(-lcublas); fi  # matmul's comparison
  # No program of an earlier run may stand in for one that fails to build.
  rm -f "$out/${lesson}_gpu" "$out/${lesson}_grader_gpu" "$out/${lesson}_grader_exercise_gpu"
  step "$lesson: build of the program" \
    nvcc -O3 -std=c++17 "${arch[@]}" "${inc[@]}" $d/driver.cu $d/solution.cu "${framework[@]}" \
    "${libs[@]}" -o "$out/${lesson}_gpu"
  step "$lesson: build of the graded tests, solution" \
    nvcc -O3 -std=c++17 "${arch[@]}" "${inc[@]}" "${graded[@]}" $d/solution.cu "${grading[@]}" \
    -o "$out/${lesson}_grader_gpu"
  step "$lesson: build of the graded tests, exercise" quiet "$out/${lesson}_exercise_build.log" \
    nvcc -O3 -std=c++17 "${arch[@]}" "${inc[@]}" "${graded[@]}" $d/exercise.cu "${grading[@]}" \
    -o "$out/${lesson}_grader_exercise_gpu"
done
step "build of launch_errors" \
  nvcc -O3 -std=c++17 "${arch[@]}" tests/programs/launch_errors.cu -o "$out/launch_errors_gpu"
for lesson in "${lessons[@]}"; do
  echo "== $lesson: graded tests, solution, on the GPU"
  step "$lesson: graded tests, solution" "$out/${lesson}_grader_gpu"
  echo "== $lesson: graded tests, exercise, on the GPU"
  step "$lesson: graded tests, exercise (no report)" \
    report "$out/${lesson}_grader_exercise.log" "$out/${lesson}_grader_exercise_gpu"
  echo "== $lesson: the program"
  step "$lesson: the program" "$out/${lesson}_gpu"
  echo "== $lesson: benchmark"
  step "$lesson: benchmark" "$out/${lesson}_gpu" --bench
done
echo "== launch and API errors"
step "launch and API errors" "$out/launch_errors_gpu"

# The programs whose H100 output the simulator's unit tests compare with:
# built here with nvcc, their output must still be what is stored.
same_as() {
  local expected=$1
  shift
  "$@" 2>/dev/null | diff -u "$expected" - >"$out/diff.log" || { cat "$out/diff.log"; return 1; }
}
gpu_program() {
  local name=$1 expected=$2
  shift 2
  step "build of $name" nvcc -O3 -std=c++17 "${arch[@]}" "$@" -o "$out/${name}_gpu"
  echo "== $name: its output against $expected"
  step "$name: output as stored" same_as "$expected" "$out/${name}_gpu"
}
gpu_program warp_synchronous tests/programs/warp_synchronous.expected tests/programs/warp_synchronous.cu
gpu_program dynamic_parallelism tests/programs/dynamic_parallelism.expected -rdc=true \
  tests/programs/dynamic_parallelism.cu -lcudadevrt
gpu_program graphs_as_cuda tests/programs/graphs_as_cuda.expected tests/programs/graphs_as_cuda.cu
gpu_program textures tests/data/textures_gpu.txt tests/programs/textures.cu
gpu_program source_module examples/source_module/expected_output.txt \
  examples/source_module/source_module.cu -lnvrtc -lcuda
step "build of driver_api_errors" nvcc -O3 -std=c++17 "${arch[@]}" \
  tests/programs/driver_api_errors.cu -lnvrtc -lcuda -o "$out/driver_api_errors_gpu"
echo "== driver API and NVRTC errors"
step "driver API and NVRTC errors as CUDA's" sh -c "'$out/driver_api_errors_gpu' | grep 'all as CUDA'"

if [ ${#failed[@]} -gt 0 ]; then
  echo "gpu.sh: ${#failed[@]} step(s) failed:"
  printf '  %s\n' "${failed[@]}"
  exit 1
fi
echo "gpu.sh: every build and run succeeded (${lessons[*]})"
