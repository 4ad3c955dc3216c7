// `cudalab stats`: sectors per request, bank conflicts, warp steps and FLOPs
// of a trace, against what Nsight Compute measured on an H200.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "cudalab/trace/trace.h"
#include "tool_test.h"

namespace {

using Stats = cudalab::testing::ToolTest;
using cudalab::testing::kCC;
using cudalab::testing::kPrograms;
using cudalab::testing::Result;
using cudalab::testing::run;
using cudalab::testing::Says;

// Sectors per request for the classic patterns, as ncu measured them on an
// H200 (docs/measurements.md): a[i] 4, a[i+1] 5, a[2i] 8, a[32i] 32, a[0] 1, double 8;
// and shared-memory wavefronts and bank conflicts.
TEST_F(Stats, StatsCountSectorsPerRequestAsNsightComputeDoes) {
  const nlohmann::json stats = access_pattern_stats();
  // Allocations carry the variable each cudaMalloc filled.
  const cudalab::trace::Trace t = cudalab::trace::read_trace(path("p.trace"));
  std::vector<std::string> names;
  for (const auto& a : t.allocations) names.push_back(a.name);
  EXPECT_EQ(names, (std::vector<std::string>{"a", "d", "out", "big"}));
  const Result table = run(std::string(CUDALAB_CLI_PATH) + " stats " + path("p.trace"));
  EXPECT_EQ(table.status, 0) << table.output;
  EXPECT_TRUE(Says(table.output, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"));
  auto kernel = [&](const std::string& name) -> const nlohmann::json& {
    for (const auto& k : stats["kernels"])
      if (k["kernel"] == name) return k;
    ADD_FAILURE() << "no kernel " << name;
    return stats;
  };
  const std::pair<const char*, double> expected[] = {{"coalesced", 4},  {"offset_by_one", 5},
                                                     {"stride_two", 8}, {"stride_32", 32},
                                                     {"broadcast", 1},  {"doubles", 8}};
  for (const auto& [name, sectors] : expected)
    EXPECT_DOUBLE_EQ(kernel(name)["global_loads"]["sectors_per_request"].get<double>(), sectors)
        << name;
  // Shared memory, per instruction (H200: column 32 wavefronts and 31
  // conflicts, padded column 1 and 0, stride 2 2 and 1).
  const std::tuple<int, double, double> shared[] = {
      {27, 1, 0}, {28, 32, 31}, {29, 1, 0}, {30, 2, 1}, {31, 1, 0}};
  for (const auto& [line, waves, conflicts] : shared) {
    const std::string where = "access_patterns.cu:" + std::to_string(line);
    bool found = false;
    for (const auto& l : kernel("shared_patterns")["lines"]) {
      if (l["where"] != where) continue;
      found = true;
      const auto& loads = l["shared_loads"];
      EXPECT_DOUBLE_EQ(loads["wavefronts_per_request"].get<double>(), waves) << where;
      EXPECT_DOUBLE_EQ(loads["bank_conflicts"].get<double>() / loads["requests"].get<double>(),
                       conflicts)
          << where;
    }
    EXPECT_TRUE(found) << where;
  }
  const Result missing = run(std::string(CUDALAB_CLI_PATH) + " stats " + path("nope.trace"));
  EXPECT_NE(missing.status, 0);
}

// Every figure `cudalab stats` gives for the access patterns equals what
// Nsight Compute measured for the same program on an H200.
TEST_F(Stats, StatsEqualNsightComputeOnAnH200) {
  const nlohmann::json stats = access_pattern_stats();
  // ncu's metric -> where the same figure is in the JSON.
  const std::map<std::string, std::pair<std::string, std::string>> same = {
      {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", {"global_loads", "requests"}},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", {"global_loads", "sectors"}},
      {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", {"global_stores", "requests"}},
      {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", {"global_stores", "sectors"}},
      {"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
       {"global_loads", "efficiency_percent"}},
      {"smsp__sass_inst_executed_op_global_ld.sum", {"global_loads", "requests"}},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", {"shared_loads", "wavefronts"}},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
       {"shared_loads", "bank_conflicts"}},
      {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", {"shared_stores", "wavefronts"}},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
       {"shared_stores", "bank_conflicts"}},
      {"smsp__sass_inst_executed_op_shared_ld.sum", {"shared_loads", "requests"}},
      {"smsp__sass_inst_executed_op_shared_st.sum", {"shared_stores", "requests"}}};
  std::ifstream in(CUDALAB_NCU_PATTERNS);
  ASSERT_TRUE(in) << CUDALAB_NCU_PATTERNS;
  int compared = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string kernel, metric;
    double expected = 0;
    words >> kernel >> metric >> expected;
    auto it = same.find(metric);
    ASSERT_NE(it, same.end()) << metric;
    const nlohmann::json* k = nullptr;
    for (const auto& x : stats["kernels"])
      if (x["kernel"] == kernel) k = &x;
    ASSERT_NE(k, nullptr) << kernel;
    const auto& [group, field] = it->second;
    EXPECT_DOUBLE_EQ((*k)[group][field].get<double>(), expected) << kernel << " " << metric;
    ++compared;
  }
  EXPECT_EQ(compared, 96);
}

// Warp steps: lanes per step and divergent branches, per kernel and line.
TEST_F(Stats, StatsCountWarpStepsAndDivergentBranches) {
  ASSERT_EQ(run(kCC + " " + kPrograms + "/warp_steps.cu -o " + path("p")).status, 0);
  ASSERT_EQ(run("CUDALAB_TRACE=" + path("p.trace") + " " + path("p")).status, 0);
  const Result r = run(std::string(CUDALAB_CLI_PATH) + " stats --json " + path("p.trace"));
  ASSERT_EQ(r.status, 0) << r.output;
  const auto stats = nlohmann::json::parse(r.output, nullptr, false);
  std::map<std::string, nlohmann::json> kernels;
  for (const auto& k : stats["kernels"]) kernels[k["kernel"]] = k;
  // 48 threads: every step has 32 lanes in warp 0 and 16 in warp 1.
  EXPECT_DOUBLE_EQ(kernels["uniform"]["warp_steps"]["lanes_per_step"].get<double>(), 24.0);
  EXPECT_EQ(kernels["uniform"]["warp_steps"]["divergent_branches"], 0);
  EXPECT_EQ(kernels["phases"]["warp_steps"]["divergent_branches"], 0);
  EXPECT_DOUBLE_EQ(kernels["phases"]["warp_steps"]["efficiency_percent"].get<double>(), 100.0);
  // The loop's lanes leave after 0, 1, 2 and 3 rounds: 3 divergent branches
  // (the last round ends for all), steps of 24, 16 and 8 lanes in the loop.
  const auto& diverging = kernels["diverging"];
  EXPECT_EQ(diverging["warp_steps"]["divergent_branches"], 3);
  bool loop_line = false;
  for (const auto& l : diverging["lines"])
    if (l["where"] == "warp_steps.cu:15") {
      loop_line = true;
      EXPECT_DOUBLE_EQ(l["warp_steps"]["lanes_per_step"].get<double>(), 16.0);
    }
  EXPECT_TRUE(loop_line);
  const Result table = run(std::string(CUDALAB_CLI_PATH) + " stats " + path("p.trace"));
  EXPECT_TRUE(Says(table.output, "smsp__sass_branch_targets_threads_divergent.sum"));
  // Lines of the simulator's own headers are not the student's code.
  EXPECT_EQ(table.output.find("kernel_language.h"), std::string::npos) << table.output;
  EXPECT_EQ(table.output.find("cudalab/detail/"), std::string::npos) << table.output;
}

// FLOPs and warp steps against Nsight Compute on an H200, for the kernels
// of programs/flops.cu and warp_steps.cu.
TEST_F(Stats, FlopsAndWarpStepsAgreeWithNsightComputeOnAnH200) {
  std::map<std::string, nlohmann::json> kernels;
  for (const char* program : {"flops", "warp_steps"}) {
    const std::string exe = path(program), trace = path(std::string(program) + ".trace");
    ASSERT_EQ(run(kCC + " " + kPrograms + "/" + program + ".cu -o " + exe).status, 0);
    ASSERT_EQ(run("CUDALAB_TRACE=" + trace + " " + exe).status, 0);
    const Result r = run(std::string(CUDALAB_CLI_PATH) + " stats --json " + trace);
    ASSERT_EQ(r.status, 0) << r.output;
    const nlohmann::json stats = nlohmann::json::parse(r.output);
    for (const auto& k : stats["kernels"]) kernels[k["kernel"]] = k;
  }
  std::map<std::string, std::map<std::string, double>> ncu;  // kernel -> metric -> value
  std::ifstream in(CUDALAB_NCU_FLOPS_WARPS);
  ASSERT_TRUE(in) << CUDALAB_NCU_FLOPS_WARPS;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string kernel, metric;
    double value = 0;
    words >> kernel >> metric >> value;
    ncu[kernel][metric] = value;
  }
  ASSERT_EQ(ncu.size(), 6u);
  auto op = [&](const std::string& k, const char* name) {
    return ncu[k][std::string("smsp__sass_thread_inst_executed_op_") + name + "_pred_on.sum"];
  };
  for (auto& [name, m] : ncu) {
    ASSERT_TRUE(kernels.count(name)) << name;
    const auto& steps = kernels[name]["warp_steps"];
    EXPECT_TRUE(kernels[name]["flops_counted"].get<bool>()) << name;
    // FLOPs: an add or a multiply 1, a fused multiply-add 2.
    EXPECT_EQ(steps["flops_single"].get<double>(),
              op(name, "fadd") + op(name, "fmul") + 2 * op(name, "ffma"))
        << name;
    EXPECT_EQ(steps["flops_double"].get<double>(),
              op(name, "dadd") + op(name, "dmul") + 2 * op(name, "dfma"))
        << name;
  }
  // Lanes per step where both compilers keep one path: 24 for 48 threads, 32
  // for full warps. (Where nvcc predicates a bounds check or unrolls a loop
  // the two differ: matmul 27.02 on the GPU, 28.3 here; see docs.)
  for (const char* name : {"uniform", "phases", "gather"})
    EXPECT_NEAR(kernels[name]["warp_steps"]["lanes_per_step"].get<double>(),
                ncu[name]["smsp__thread_inst_executed_per_inst_executed.ratio"], 0.005)
        << name;
  // The loop whose lanes leave after 0 to 3 rounds: 3 divergent branches.
  EXPECT_EQ(kernels["diverging"]["warp_steps"]["divergent_branches"].get<double>(),
            ncu["diverging"]["smsp__sass_branch_targets_threads_divergent.sum"]);
  // Global loads of the naive matmul on 40x40 (partial warps, row-major B).
  EXPECT_EQ(kernels["matmul"]["global_loads"]["sectors"].get<double>(),
            ncu["matmul"]["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]);
  EXPECT_EQ(kernels["matmul"]["global_loads"]["requests"].get<double>(),
            ncu["matmul"]["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]);
  // Arithmetic intensity: FLOPs per byte of global sectors.
  const auto& mm = kernels["matmul"];
  EXPECT_DOUBLE_EQ(
      mm["arithmetic_intensity"].get<double>(),
      mm["flops"].get<double>() / (32.0 * (mm["global_loads"]["sectors"].get<double>() +
                                           mm["global_stores"]["sectors"].get<double>())));
}

}  // namespace
