// Predicted GPU times (predict/): which blocks a sample runs and what each
// stands for, and the model's limits on counts made up to hit each one.
#include "cudalab/predict/predict.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <string>
#include <tuple>

#include "cudalab/trace/format.h"
#include "cudalab/trace/sample.h"
#include "cudalab/trace/trace.h"

namespace {

namespace pr = cudalab::predict;
namespace tr = cudalab::trace;

TEST(Sample, EveryKindOfBlockFirstThenTheRestOnce) {
  // A 2D grid of 100 x 50: nine kinds (corners, edges, inside).
  const std::vector<uint32_t> s = tr::sample_blocks(100, 50, 1, 64);
  EXPECT_EQ(tr::sample_kinds(100, 50, 1), 9u);
  ASSERT_GE(s.size(), 64u);
  EXPECT_LE(s.size(), 64u + 9u);
  EXPECT_EQ(std::set<uint32_t>(s.begin(), s.end()).size(), s.size()) << "no block twice";
  // The first nine are one of each kind: the four corners among them.
  const std::set<uint32_t> first(s.begin(), s.begin() + 9);
  for (uint32_t corner : {0u, 99u, 49u * 100u, 49u * 100u + 99u})
    EXPECT_TRUE(first.count(corner)) << corner;
  for (uint32_t b : s) EXPECT_LT(b, 100u * 50u);
  // The weights add up to the grid, whatever part of the sample ran.
  for (size_t ran : {size_t(9), size_t(20), s.size()}) {
    const std::vector<uint32_t> part(s.begin(), s.begin() + long(ran));
    const std::vector<double> w = tr::sample_weights(100, 50, 1, part);
    EXPECT_NEAR(std::accumulate(w.begin(), w.end(), 0.0), 5000.0, 1e-6) << ran << " ran";
  }
}

TEST(Sample, SmallGridsAndNoSampleRunEveryBlock) {
  EXPECT_EQ(tr::sample_blocks(10, 1, 1, 64).size(), 10u);
  EXPECT_EQ(tr::sample_blocks(1000, 1, 1, 0).size(), 1000u) << "0: every block";
  const std::vector<uint32_t> one = tr::sample_blocks(1, 1, 1, 5);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0], 0u);
  // A 1D grid: three kinds (the first block, the last, those between).
  EXPECT_EQ(tr::sample_kinds(4096, 1, 1), 3u);
  const std::vector<double> w = tr::sample_weights(4096, 1, 1, tr::sample_blocks(4096, 1, 1, 16));
  EXPECT_NEAR(std::accumulate(w.begin(), w.end(), 0.0), 4096.0, 1e-6);
}

pr::Gpu test_gpu() {
  pr::Gpu g;
  g.key = "test";
  g.name = "a test GPU";
  g.multiprocessors = 100;
  g.clock_ghz = 2;
  g.l2_bytes = 50e6;
  g.figures = {{"dram_copy", 4000},
               {"dram_read", 4000},
               {"dram_write", 4000},
               {"l2_read", 8000},
               {"fp32_fma", 50},
               {"fp64_fma", 25},
               {"shared_wavefronts_conflicted", 200},
               {"atomic_spread", 400},
               {"atomic_32_addresses", 10},
               {"atomic_one_address", 1},
               {"shared_atomic", 4000},
               {"latency_l1", 20},
               {"latency_l2", 150},
               {"latency_dram", 350},
               {"barrier", 80},
               {"launch_alone", 6},
               {"launch_wide_grid", 6},
               {"empty_kernel_duration", 1.5}};
  return g;
}

pr::Work a_launch(uint64_t blocks) {
  pr::Work w;
  w.blocks = w.sampled_blocks = blocks;
  w.threads_per_block = 256;
  return w;
}

TEST(Model, AStreamIsBoundByDramUnlessItFitsInL2) {
  pr::Work w = a_launch(100000);
  w.dram_read_bytes = 800e6;
  w.dram_written_bytes = 400e6;
  w.load_lines = w.store_lines = 1e6;
  pr::Prediction p = pr::predict(w, test_gpu());
  ASSERT_TRUE(p.covered);
  EXPECT_EQ(p.bound, "DRAM bandwidth");
  EXPECT_NEAR(p.kernel_seconds, 1.2e9 / 4000e9, 1e-9);
  EXPECT_NEAR(p.event_seconds - p.kernel_seconds, 4.5e-6, 1e-9) << "launch_alone - empty kernel";
  // 12 MB touched stays in a 50 MB L2 from the launch before: no DRAM.
  w.dram_read_bytes = 8e6;
  w.dram_written_bytes = 4e6;
  p = pr::predict(w, test_gpu());
  for (const auto& t : p.terms) EXPECT_NE(t.name, "DRAM bandwidth");
}

TEST(Model, FewBlocksGetTheirMultiprocessorsShare) {
  // The same wavefronts on 10 blocks (10 of 100 multiprocessors busy) take
  // ten times as long as on 10,000.
  pr::Work many = a_launch(10000), few = a_launch(10);
  many.shared_wavefronts = few.shared_wavefronts = 2e9;
  const pr::Prediction a = pr::predict(many, test_gpu()), b = pr::predict(few, test_gpu());
  EXPECT_EQ(a.bound, "L1 and shared-memory wavefronts");
  EXPECT_NEAR(a.kernel_seconds, 2e9 / 200e9, 1e-9);
  EXPECT_NEAR(b.kernel_seconds / a.kernel_seconds, 10.0, 1e-6);
}

TEST(Model, ArithmeticLatencyAndTheLeastTime) {
  pr::Work w = a_launch(10000);
  w.flops_single = w.flops_single_issued = 5e12;  // 0.1 s at 50 TFLOP/s
  EXPECT_EQ(pr::predict(w, test_gpu()).bound, "FP32 arithmetic");
  // The same FLOPs in half of each warp's lanes: the warps issue twice as
  // many lanes' worth (the idle half too), and take twice as long.
  const double whole = pr::predict(w, test_gpu()).kernel_seconds;
  w.flops_single_issued = 10e12;
  EXPECT_NEAR(pr::predict(w, test_gpu()).kernel_seconds, 2 * whole, 1e-9);
  // One block that does nothing takes an empty kernel's time.
  pr::Work empty = a_launch(1);
  pr::Prediction p = pr::predict(empty, test_gpu());
  EXPECT_EQ(p.bound, "latency");
  EXPECT_NEAR(p.kernel_seconds, 1.5e-6, 1e-12);
  // One block whose warp waits for 100 loads that miss, one after another,
  // and 4 barriers. 100 MB touched: a quarter of it stays in the 50 MB
  // L2's half, so a miss waits a quarter of L2's latency and three
  // quarters of DRAM's.
  empty.path_misses = 100;
  empty.dram_read_bytes = 100e6;
  empty.phases_per_block = 5;
  p = pr::predict(empty, test_gpu());
  EXPECT_NEAR(p.kernel_seconds, 1.5e-6 + 100 * (0.25 * 150e-9 + 0.75 * 350e-9) + 4 * 80e-9, 1e-12);
}

TEST(Model, AWarpAloneWaitsForItsChainsAndHasOneSchedulerOfFour) {
  pr::Gpu g = test_gpu();
  g.figures["dependent_fp32"] = 2;
  g.figures["dependent_int"] = 4;
  g.figures["dependent_fp64"] = 5;
  g.figures["switch_turn"] = 40;
  g.figures["switch_turns_multiprocessor"] = 500;
  // One warp: 1,000 single-precision and integer instructions one after
  // another (3 ns each, the mean of the two), 100 double ones (5 ns), 10
  // turns at a switch (40 ns): 3.9 us of waits on top of the least time.
  pr::Work one = a_launch(1);
  one.threads_per_block = 32;
  one.chain_single = 1000;
  one.chain_double = 100;
  one.switch_turns = one.switch_turns_per_warp = 10;
  one.instructions = 1200;
  pr::Prediction p = pr::predict(one, g);
  EXPECT_EQ(p.bound, "latency");
  const double start = 6e-6 - 6e-6;  // launch_wide_grid - launch_alone: no cost to start a block
  EXPECT_NEAR(p.kernel_seconds, 1.5e-6 + start + 1000 * 3e-9 + 100 * 5e-9 + 10 * 40e-9, 1e-12);
  // Its instructions issue on one scheduler of the four: a quarter of the
  // multiprocessor's rate, and its turns at the calibration's.
  const auto issue = std::find_if(p.terms.begin(), p.terms.end(),
                                  [](const pr::Term& t) { return t.name == "instruction issue"; });
  ASSERT_NE(issue, p.terms.end());
  EXPECT_NEAR(issue->seconds, 1200 / (1.0 * g.clock_ghz * 1e9) + 10 / 500e6, 1e-12);
  EXPECT_NE(issue->figures.find("1 of 4 schedulers"), std::string::npos) << issue->figures;
  // A full multiprocessor (8 blocks of 256 on each) issues at four a
  // clock, and the same chains in each warp are hidden by the others.
  pr::Work full = a_launch(800);
  full.chain_single = 1000;
  full.instructions = 800 * 8 * 1200.0;
  p = pr::predict(full, g);
  EXPECT_EQ(p.bound, "instruction issue");
  EXPECT_NEAR(p.kernel_seconds, 8 * 8 * 1200 / (4.0 * g.clock_ghz * 1e9), 1e-12);
}

TEST(Work, PartedWarpsChainsAndASwitchsTurnsAreCounted) {
  // One block of two warps. At a switch's jump table (3 instructions) the
  // lanes parted 10 times, four ways each time; at a two-way branch (1
  // instruction), 10 times; each warp ran each block 5 times.
  tr::Trace t;
  tr::Launch l;
  l.grid = {1, 1, 1};
  l.block = {64, 1, 1};
  l.steps.push_back({0x100, 10, 320, 10, 40});
  l.steps.push_back({0x200, 10, 320, 10, 20});
  tr::FloatOps table;
  table.instructions = 3;
  table.chain_single = 2;
  table.chain_double = 1;
  table.indirect_jump = true;
  t.float_ops[0x100] = table;
  tr::FloatOps branch;
  branch.instructions = 1;
  t.float_ops[0x200] = branch;
  const pr::Work w = pr::work_of(t, l);
  // Their own work; a parting of more than two ways adds nvcc's
  // reconvergence (2) and a branch a way (4); a two-way one nothing (nvcc
  // predicates short sides).
  EXPECT_DOUBLE_EQ(w.instructions, 10 * 3 + 10 * (2 + 4) + 10 * 1);
  EXPECT_DOUBLE_EQ(w.switch_turns, 40);
  EXPECT_DOUBLE_EQ(w.switch_turns_per_warp, 20);
  EXPECT_DOUBLE_EQ(w.chain_single, 10 * 2 / 2.0);
  EXPECT_DOUBLE_EQ(w.chain_double, 10 * 1 / 2.0);
}

// One thread's loads of floats from buffer 1: `pcs` instructions an
// iteration at `offsets` (bytes) from iteration * `step`.
tr::Launch one_thread_loads(int iterations, int64_t step, const std::vector<uint64_t>& offsets) {
  tr::Launch l;
  l.grid = {1, 1, 1};
  l.block = {1, 1, 1};
  // Each request's other lanes (none): a pattern of one address.
  l.lane_data = {char(tr::LaneEncoding::kPattern), 5, 0, 0, 0, 0, 0, 0, 0, 0};
  for (int i = 0; i < iterations; ++i)
    for (size_t k = 0; k < offsets.size(); ++k) {
      tr::Request r;
      r.size = 4;
      r.mask = 1;
      r.pc = 0x100 + 0x10 * k;
      r.allocation = 1;
      r.offset = uint64_t(4096 + int64_t(i) * step) + offsets[k];
      l.requests.push_back(r);
    }
  return l;
}

TEST(Work, AnUnrolledLoopsLoadsAreOneLoopAndAStencilsAreNot) {
  tr::Trace t;
  t.allocations.push_back({1, 0x10000, 1 << 20, "t.cu:1", "d_in"});
  t.allocation_index[1] = 0;
  // A sum the host's compiler unrolled by 4: four loads 4 bytes apart, a
  // step of 16. 64 iterations, 256 floats: a new sector every 8 floats.
  pr::Work w = pr::work_of(t, one_thread_loads(64, 16, {0, 4, 8, 12}));
  EXPECT_DOUBLE_EQ(w.loop_hits + w.loop_misses, 256);
  EXPECT_DOUBLE_EQ(w.loop_misses, 32);
  // A column's stencil: a row's step (4 KiB), the row below and the
  // neighbours on this row: loads of one iteration, the slowest is the
  // loop (the row below, each a miss).
  w = pr::work_of(t, one_thread_loads(64, 4096, {4092, 4, 4096}));
  EXPECT_DOUBLE_EQ(w.loop_hits + w.loop_misses, 64);
  EXPECT_DOUBLE_EQ(w.loop_misses, 64);
}

TEST(Model, ALoopsIterationsWaitOrOverlapAsTheCalibrationMeasured) {
  pr::Gpu g = test_gpu();
  g.figures["warp_loop_store_l2"] = 150;
  g.figures["warp_loop_store_dram"] = 350;
  g.figures["warp_loop_sum_grid_stride_l2"] = 160;
  g.figures["warp_loop_sum_grid_stride_dram"] = 360;
  g.figures["warp_loop_sum_l2"] = 40;
  g.figures["warp_loop_sum_dram"] = 90;
  // One warp alone, 1,000 iterations that miss L1, all in L2 (1 MB).
  pr::Work w = a_launch(1);
  w.threads_per_block = 32;
  w.loop_misses = 1000;
  w.dram_read_bytes = 1e6;
  using Wait = pr::Work::LoopWait;
  const std::pair<Wait, double> kinds[] = {
      {Wait::kStore, 150e-9}, {Wait::kGridStride, 160e-9}, {Wait::kOverlapped, 40e-9}};
  for (const auto& [kind, each] : kinds) {
    w.loop_wait = kind;
    const pr::Prediction p = pr::predict(w, g);
    EXPECT_EQ(p.bound, "latency");
    EXPECT_NEAR(p.kernel_seconds, 1.5e-6 + 1000 * each, 1e-12) << int(kind);
  }
  // 400 more iterations that hit L1 (20 ns): each waits in full where a
  // store comes between, four at a time where the loads overlap.
  w.loop_hits = 400;
  w.loop_wait = Wait::kStore;
  EXPECT_NEAR(pr::predict(w, g).kernel_seconds, 1.5e-6 + 1000 * 150e-9 + 400 * 20e-9, 1e-12);
  w.loop_wait = Wait::kOverlapped;
  EXPECT_NEAR(pr::predict(w, g).kernel_seconds, 1.5e-6 + 1000 * 40e-9 + 400 * 5e-9, 1e-12);
}

TEST(Model, BarriersAndBlockStartsGoByTheBlocksSize) {
  // The calibration's barrier rounds and block starts for blocks of 256
  // and of 1024 threads; a block of 512 takes what lies halfway.
  pr::Gpu g = test_gpu();
  g.figures["barrier"] = 80;                           // blocks of 1024
  g.figures["barrier_256"] = 100;                      // blocks of 256
  g.figures["launch_wide_grid"] = 6 + 64 * 0.08;       // 80 ns a block of 256
  g.figures["launch_wide_grid_1024"] = 6 + 16 * 0.04;  // 40 ns a block of 1024
  for (const auto& [threads, barrier, start] :
       {std::tuple{256, 100e-9, 80e-9}, std::tuple{1024, 80e-9, 40e-9},
        std::tuple{512, 93.333e-9, 66.667e-9}, std::tuple{64, 100e-9, 80e-9}}) {
    pr::Work w = a_launch(100);  // one block a multiprocessor
    w.threads_per_block = uint64_t(threads);
    w.phases_per_block = 3;  // 2 barriers
    const pr::Prediction p = pr::predict(w, g);
    double latency = 0;
    for (const auto& t : p.terms)
      if (t.name == "latency") latency = t.seconds;
    EXPECT_NEAR(latency, 1.5e-6 + start + 2 * barrier, 1e-11) << threads << " threads";
  }
}

TEST(Model, BlocksStartOneAfterAnotherOnAMultiprocessor) {
  // A launch of 100,000 blocks that each wait for one load from DRAM
  // (400 MB touched): 1,000 blocks on each of the 100 multiprocessors,
  // each started in turn, 8 at a time waiting 125 rounds.
  pr::Gpu g = test_gpu();
  g.figures["launch_wide_grid"] = 6 + 64 * 0.08;  // 80 ns a block on a multiprocessor
  pr::Work w = a_launch(100000);
  w.path_misses = 1;
  w.dram_read_bytes = 400e6;
  const double miss = (25e6 / 400e6) * 150e-9 + (1 - 25e6 / 400e6) * 350e-9;
  const pr::Prediction p = pr::predict(w, g);
  double latency = 0;
  for (const auto& t : p.terms)
    if (t.name == "latency") latency = t.seconds;
  EXPECT_NEAR(latency, 1.5e-6 + 1000 * 80e-9 + 125 * miss, 1e-12);
}

TEST(Model, LargeBlocksAtBarriersQueueTheirMissesBehindTheirBytes) {
  // 100,000 blocks that each load once from DRAM, wait at a barrier and
  // store (800 MB moved: 200 us at 4 TB/s), with or without 20 M shared-
  // memory wavefronts (100 us at 200 G/s). Blocks of 1024 threads (two a
  // multiprocessor: 500 rounds, each round's share of DRAM's time 0.4 us
  // and of the wavefronts' 0.2 us) take a round as the larger root of
  // t^2 - (rest + b + L) t + rest b = 0, the wavefronts' share in `rest`
  // beside the barrier; blocks of 256 (eight a multiprocessor) keep the
  // unloaded round, the wavefronts apart.
  pr::Gpu g = test_gpu();
  g.figures["barrier"] = g.figures["barrier_256"] = 80;
  for (const uint64_t threads : {1024u, 256u})
    for (const double wavefronts : {0.0, 20e6}) {
      pr::Work w = a_launch(100000);
      w.threads_per_block = threads;
      w.path_misses = 1;
      w.phases_per_block = 2;
      w.dram_read_bytes = w.dram_written_bytes = 400e6;
      w.shared_wavefronts = wavefronts;
      const pr::Prediction p = pr::predict(w, g);
      double latency = 0, dram = 0;
      for (const auto& t : p.terms) {
        if (t.name == "latency") latency = t.seconds;
        if (t.name == "DRAM bandwidth") dram = t.seconds;
      }
      ASSERT_NEAR(dram, 200e-6, 1e-9);
      const double miss = (25e6 / 800e6) * 150e-9 + (1 - 25e6 / 800e6) * 350e-9;
      const double rounds = threads == 1024 ? 500 : 125, b = dram / rounds;
      const double rest = 80e-9 + (threads == 1024 ? wavefronts / 200e9 / rounds : 0);
      const double sum = rest + b + miss;
      const double round =
          threads == 1024 ? (sum + std::sqrt(sum * sum - 4 * rest * b)) / 2 : rest + miss;
      EXPECT_NEAR(latency, 1.5e-6 + rounds * round, 1e-10)
          << threads << " threads, " << wavefronts << " wavefronts";
      if (threads == 1024) EXPECT_EQ(p.bound, "latency");
    }
}

TEST(Model, AtomicsOnAFewAddressesTakeTurns) {
  // 1,000 requests on 256 addresses, their lanes 2 on one address at most:
  // each request costs what the calibration's request of 32 lanes on 32
  // addresses does less one turn (3.2 - 1 ns), and each turn 1 ns.
  pr::Work w = a_launch(1000);
  w.atomic_requests = 1000;
  w.atomic_lanes = w.atomic_ops = 32000;
  w.atomic_addresses = 256;
  w.atomic_turns = 2000;
  pr::Prediction p = pr::predict(w, test_gpu());
  EXPECT_EQ(p.bound, "global atomics");
  EXPECT_NEAR(p.kernel_seconds, 1000 * 2.2e-9 + 2000 * 1e-9, 1e-12);
  // Without the calibration's figures for it: the rate for spread atomics,
  // never a figure made of a missing one.
  pr::Gpu g = test_gpu();
  g.figures.erase("atomic_32_addresses");
  p = pr::predict(w, g);
  double atomics = -1;
  for (const auto& t : p.terms)
    if (t.name == "global atomics") atomics = t.seconds;
  EXPECT_NEAR(atomics, 32000 / 400e9, 1e-15);
  EXPECT_TRUE(std::isfinite(p.kernel_seconds));
}

TEST(Model, AtomicsGoAtTheRateOfAsManyAddresses) {
  pr::Work w = a_launch(1000);
  w.atomic_lanes = w.atomic_ops = 1e9;
  w.atomic_addresses = 1;
  EXPECT_EQ(pr::predict(w, test_gpu()).bound, "global atomics");
  EXPECT_NEAR(pr::predict(w, test_gpu()).kernel_seconds, 1.0, 1e-6);
  w.atomic_addresses = 1 << 20;
  EXPECT_LT(pr::predict(w, test_gpu()).kernel_seconds, 0.01);
}

TEST(Model, WhatItCannotPredictItSays) {
  pr::Work used = a_launch(10);
  used.load_lines = 1e6;
  used.uses = tr::kUsesTextures | tr::kUsesStreams;
  const pr::Prediction q = pr::predict(used, test_gpu());
  EXPECT_FALSE(q.covered);
  EXPECT_EQ(q.not_covered,
            "it uses textures, kernels on several streams, which may run at once, which the model "
            "does not time");
  pr::Work w = a_launch(10);
  w.sampled_blocks = 0;
  EXPECT_FALSE(pr::predict(w, test_gpu()).covered) << "no block ran";
  pr::Work huge = a_launch(10);
  huge.shared_bytes_per_block = 300 * 1024;
  const pr::Prediction p = pr::predict(huge, test_gpu());
  EXPECT_FALSE(p.covered);
  EXPECT_NE(p.not_covered.find("shared memory"), std::string::npos) << p.not_covered;
}

TEST(Gpus, TheDataKeptAreReadAndAnUnknownGpuIsNamed) {
  std::string why;
  const auto h200 = pr::load_gpu("h200", &why);
  ASSERT_TRUE(h200) << why;
  EXPECT_EQ(h200->multiprocessors, 132);
  EXPECT_GT(h200->figure("dram_copy"), 1000);
  EXPECT_GT(h200->figure("empty_kernel_duration"), 0);
  EXPECT_FALSE(pr::load_gpu("voodoo2", &why));
  EXPECT_NE(why.find("voodoo2"), std::string::npos) << why;
  EXPECT_NE(why.find("h200"), std::string::npos) << "lists the GPUs there are data for: " << why;
  EXPECT_TRUE(h200->derived.empty()) << "measured on the GPU itself";
}

// The H100's figures are derived from the H200's (one chip; its DRAM's
// bandwidth scaled by the two GPUs' copies), and say so; the rest is the
// H200's, and its L2 its own.
TEST(Gpus, TheH100sFiguresAreTheH200sWithItsDramScaled) {
  std::string why;
  const auto h100 = pr::load_gpu("h100", &why), h200 = pr::load_gpu("h200", &why);
  ASSERT_TRUE(h100 && h200) << why;
  EXPECT_NE(h100->derived.find("derived, not measured"), std::string::npos) << h100->derived;
  EXPECT_EQ(h100->multiprocessors, h200->multiprocessors);
  EXPECT_EQ(h100->l2_bytes, 50.0 * 1024 * 1024);
  const double ratio = h100->figure("dram_copy") / h200->figure("dram_copy");
  EXPECT_NEAR(ratio, 2980.0 / 4176, 1e-3);
  EXPECT_NEAR(h100->figure("dram_scattered_sectors") / h200->figure("dram_scattered_sectors"),
              ratio, 1e-3);
  for (const char* same : {"l2_read", "fp32_fma", "latency_dram", "launch_alone"})
    EXPECT_EQ(h100->figure(same), h200->figure(same)) << same;
  std::string file;
  const auto heat = pr::measured_lesson_kernels("h100", "heat", &file);
  ASSERT_EQ(heat.size(), 3u) << file;
  EXPECT_NE(heat[0].how.find("CUDA events"), std::string::npos) << heat[0].how;
}

// The lessons' kernels measured on a GPU: each shape of a lesson's --bench,
// in blocks and threads; none for another lesson or a GPU without data.
TEST(Gpus, TheLessonsMeasuredTimesAreReadByLessonAndShape) {
  std::string file;
  const auto va = pr::measured_lesson_kernels("h200", "vector_add", &file);
  ASSERT_EQ(va.size(), 2u) << file;
  EXPECT_EQ(va[0].kernel, "vector_add");
  EXPECT_EQ(va[0].blocks, 262144u);
  EXPECT_EQ(va[0].threads_per_block, 256u);
  EXPECT_NEAR(va[0].seconds, 259.52e-6, 1e-9);
  EXPECT_EQ(va[1].blocks, 4224u);
  const auto mm = pr::measured_lesson_kernels("h200", "matmul", &file);
  EXPECT_TRUE(std::any_of(mm.begin(), mm.end(), [](const pr::Measured& m) {
    return m.kernel == "matmul_register_tiled" && m.blocks == 1024;
  }));
  for (const auto& m : mm) EXPECT_NE(m.kernel, "vector_add");
  // The histogram's global atomics on uniform, then skewed bytes: a line for
  // all its launches, then one for each set of inputs.
  const auto h = pr::measured_lesson_kernels("h200", "histogram", &file);
  std::vector<pr::Measured> global;
  for (const auto& m : h)
    if (m.kernel == "histogram_global") global.push_back(m);
  ASSERT_EQ(global.size(), 3u) << file;
  EXPECT_EQ(global[0].input_sets, 0);
  EXPECT_EQ(global[1].inputs, 1);
  EXPECT_EQ(global[1].input_sets, 2);
  EXPECT_EQ(global[2].inputs, 2);
  EXPECT_GT(global[2].seconds, 2 * global[1].seconds);
  EXPECT_TRUE(pr::measured_lesson_kernels("h200", "no_such_lesson", &file).empty());
  EXPECT_TRUE(pr::measured_lesson_kernels("voodoo2", "vector_add", &file).empty());
  EXPECT_NE(file.find("voodoo2-lesson-kernels.txt"), std::string::npos) << file;
}

}  // namespace
