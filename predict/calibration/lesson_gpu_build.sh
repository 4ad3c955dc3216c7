# Sourced by lesson_times.sh and instruction_counts.sh (from the project's
# top folder): how a lesson's solution is built for a GPU as one program,
# its driver, solution and the framework's host code (nvcc, sm_90, -O3;
# cuBLAS where the driver compares with it).
#   lesson_gpu_build LESSON EXE LOG   exit status 0 when EXE was built
lesson_gpu_build() {
  local lesson=$1 exe=$2 log=$3 d=lessons/$1 libs=()
  grep -q "cublas_v2.h" "$d/driver.cu" && libs=(-lcublas)
  nvcc -O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -I framework/include -I support/include \
    -I trace/include -I "$d" -I "${NLOHMANN_INCLUDE:-/usr/include}" "$d/driver.cu" "$d/solution.cu" \
    framework/src/compare.cpp framework/src/judge_side.cpp framework/src/submission_side.cpp \
    framework/src/wire.cpp support/src/*.cpp "${libs[@]}" -o "$exe" >"$log" 2>&1
}
