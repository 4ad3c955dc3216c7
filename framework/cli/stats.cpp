// cudalab stats: a trace's metrics, each next to the Nsight Compute metric
// it corresponds to.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli.h"
#include "cudalab/trace/metrics.h"

namespace cudalab::cli {

namespace {
using namespace cudalab::trace;
nlohmann::json counts_json(const GlobalCounts& c) {
  return nlohmann::json{{"requests", c.requests},
                        {"sectors", c.sectors},
                        {"sectors_per_request", c.sectors_per_request()},
                        {"efficiency_percent", c.efficiency()},
                        {"bytes_requested", c.bytes},
                        {"bytes_moved", c.sectors * 32},
                        {"lanes", c.lanes},
                        {"lanes_per_request", c.lanes_per_request()}};
}
nlohmann::json shared_json(const SharedCounts& c) {
  return nlohmann::json{{"requests", c.requests},
                        {"wavefronts", c.wavefronts},
                        {"wavefronts_per_request", c.wavefronts_per_request()},
                        {"bank_conflicts", c.conflicts}};
}
nlohmann::json steps_json(const StepCounts& c) {
  return nlohmann::json{{"steps", c.steps},
                        {"lanes_per_step", c.lanes_per_step()},
                        {"efficiency_percent", c.efficiency()},
                        {"divergent_branches", c.divergent},
                        {"flops_single", c.flops_single},
                        {"flops_double", c.flops_double}};
}
}  // namespace

nlohmann::json stats_json(const Trace& t, const std::string& path) {
  const auto kernels = memory_metrics(t);
  nlohmann::json out = {{"trace", path}, {"kernels", nlohmann::json::array()}};
  for (const auto& k : kernels) {
    nlohmann::json lines = nlohmann::json::array();
    for (const auto& l : k.lines)
      lines.push_back({{"where", l.where},
                       {"global_loads", counts_json(l.loads)},
                       {"global_stores", counts_json(l.stores)},
                       {"global_atomics", counts_json(l.atomics)},
                       {"shared_loads", shared_json(l.shared_loads)},
                       {"shared_stores", shared_json(l.shared_stores)},
                       {"warp_steps", steps_json(l.steps)}});
    out["kernels"].push_back({{"kernel", k.kernel},
                              {"launches", k.launches},
                              {"global_loads", counts_json(k.loads)},
                              {"global_stores", counts_json(k.stores)},
                              {"global_atomics", counts_json(k.atomics)},
                              {"shared_loads", shared_json(k.shared_loads)},
                              {"shared_stores", shared_json(k.shared_stores)},
                              {"warp_steps", steps_json(k.steps)},
                              {"flops_counted", k.flops_counted},
                              {"flops", k.steps.flops()},
                              {"arithmetic_intensity", k.arithmetic_intensity()},
                              {"most_by_one_thread",
                               {{"global_reads", k.most.global_reads},
                                {"global_writes", k.most.global_writes},
                                {"shared_reads", k.most.shared_reads},
                                {"shared_writes", k.most.shared_writes}}},
                              {"lines", lines}});
  }
  return out;
}

// cudalab stats TRACE: the memory metrics of a recorded run, each next to
// the Nsight Compute metric it corresponds to.
int stats(const std::string& path, bool as_json) {
  using namespace cudalab::trace;
  Trace t;
  try {
    t = read_trace(path);
  } catch (const TraceError& e) {
    std::cerr << "cudalab: " << e.what() << "\n";
    return 1;
  }
  const auto kernels = memory_metrics(t);
  if (as_json) {
    std::cout << stats_json(t, path).dump(2) << "\n";
    return 0;
  }
  if (t.accesses_total == 0)
    std::cout << "The trace has no memory accesses (was the program built with --fast? did "
                 "CUDALAB_TRACE_BLOCKS leave every block out?).\n";
  auto row = [](const char* what, const std::string& where, const GlobalCounts& c) {
    if (!c.requests) return;
    std::printf("  %-6s %-28s %10llu %12llu %9.2f %9.1f%%\n", what, where.c_str(),
                (unsigned long long)c.requests, (unsigned long long)c.sectors,
                c.sectors_per_request(), c.efficiency());
  };
  auto shared_row = [](const char* what, const std::string& where, const SharedCounts& c) {
    if (!c.requests) return;
    std::printf("  %-6s %-28s %10llu %12llu %9.2f %10llu\n", what, where.c_str(),
                (unsigned long long)c.requests, (unsigned long long)c.wavefronts,
                c.wavefronts_per_request(), (unsigned long long)c.conflicts);
  };
  for (const auto& k : kernels) {
    std::printf("\nkernel %s (%llu launch%s)\n", k.kernel.c_str(), (unsigned long long)k.launches,
                k.launches == 1 ? "" : "es");
    std::printf("  %-6s %-28s %10s %12s %9s %10s\n", "global", "line", "requests", "sectors",
                "sect/req", "efficiency");
    row("load", "all", k.loads);
    row("store", "all", k.stores);
    row("atomic", "all", k.atomics);
    if (k.loads.requests || k.stores.requests)
      std::printf(
          "  %-6s %.1f of 32 lanes active per instruction; %llu bytes moved for %llu "
          "asked for\n",
          "",
          double(k.loads.lanes + k.stores.lanes) /
              double(std::max<uint64_t>(1, k.loads.requests + k.stores.requests)),
          (unsigned long long)((k.loads.sectors + k.stores.sectors) * 32),
          (unsigned long long)(k.loads.bytes + k.stores.bytes));
    for (const auto& l : k.lines) {
      row("load", l.where, l.loads);
      row("store", l.where, l.stores);
      row("atomic", l.where, l.atomics);
    }
    if (k.flops_counted)
      std::printf(
          "  %-6s %llu FLOPs (%llu single, %llu double precision): %.3f FLOPs per byte moved\n", "",
          (unsigned long long)k.steps.flops(), (unsigned long long)k.steps.flops_single,
          (unsigned long long)k.steps.flops_double, k.arithmetic_intensity());
    std::printf(
        "  most by one thread: %llu global reads, %llu global writes, %llu shared "
        "reads, %llu shared writes\n",
        (unsigned long long)k.most.global_reads, (unsigned long long)k.most.global_writes,
        (unsigned long long)k.most.shared_reads, (unsigned long long)k.most.shared_writes);
    if (k.steps.steps) {
      std::printf("  %-6s %-28s %10s %12s %9s %10s\n", "warps", "line", "steps", "lanes/step",
                  "efficiency", "divergent");
      auto steps_row = [](const std::string& where, const StepCounts& c) {
        if (!c.steps) return;
        std::printf("  %-6s %-28s %10llu %12.1f %8.1f%% %10llu\n", "", where.c_str(),
                    (unsigned long long)c.steps, c.lanes_per_step(), c.efficiency(),
                    (unsigned long long)c.divergent);
      };
      steps_row("all", k.steps);
      for (const auto& l : k.lines)
        if (!l.simulator_header && (l.steps.divergent || l.steps.lanes_per_step() < 31.95))
          steps_row(l.where, l.steps);
    }
    if (k.shared_loads.requests || k.shared_stores.requests) {
      std::printf("  %-6s %-28s %10s %12s %9s %10s\n", "shared", "line", "requests", "wavefronts",
                  "wave/req", "conflicts");
      shared_row("load", "all", k.shared_loads);
      shared_row("store", "all", k.shared_stores);
      for (const auto& l : k.lines) {
        shared_row("load", l.where, l.shared_loads);
        shared_row("store", l.where, l.shared_stores);
      }
    }
  }
  std::cout
      << "\nNsight Compute names them: requests = l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
         " (_st for stores, _atom for atomics), sectors = "
         "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,\n"
         "sectors/request = their ratio (4 when a warp reads 32 consecutive floats), "
         "efficiency = bytes the lanes asked for / (sectors x 32).\n"
         "Shared: wavefronts = l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum, "
         "conflicts = l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum (_st for "
         "stores).\n"
         "Warps: a step is a warp running one basic block of the kernel; lanes/step = "
         "smsp__thread_inst_executed_per_inst_executed.ratio\n"
         "(Nsight Compute counts it per GPU instruction), divergent = "
         "smsp__sass_branch_targets_threads_divergent.sum (the GPU compiler turns short\n"
         "branches into predicated instructions, which do not count); lines are listed where "
         "lanes were idle or went different ways.\n"
         "FLOPs = smsp__sass_thread_inst_executed_op_fadd_pred_on.sum + _fmul_ + 2 x _ffma_ "
         "(and _dadd_, _dmul_, _dfma_ for double), counted in the\n"
         "compiled kernel (a division or square root counts 1); FLOPs per byte moved divides "
         "by global sectors x 32 (ncu's roofline divides by dram__bytes.sum,\n"
         "which the caches make smaller).\n";
  return 0;
}

}  // namespace cudalab::cli
