// What a traced program writes (CUDALAB_TRACE): launches, allocations, every
// access grouped by warp and phase, findings, caps and chosen blocks; and what
// the reader says of a file that is not a whole trace.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>

#include "cudalab/trace/trace.h"
#include "tool_test.h"

namespace {

namespace fs = std::filesystem;

using Traces = cudalab::testing::ToolTest;
using cudalab::testing::checks_program;
using cudalab::testing::kCC;
using cudalab::testing::kPrograms;
using cudalab::testing::Result;
using cudalab::testing::run;
using cudalab::testing::Says;

TEST_F(Traces, TraceRecordsLaunchAllocationsAndEveryGlobalAccess) {
  ASSERT_EQ(run(kCC + " " + kPrograms + "/traced_add.cu -o " + path("p")).status, 0);
  Result r = run("CUDALAB_TRACE=" + path("t.trace") + " " + path("p"));
  ASSERT_EQ(r.status, 0) << r.output;
  cudalab::trace::Trace t = cudalab::trace::read_trace(path("t.trace"));
  ASSERT_EQ(t.launches.size(), 1u);
  const auto& l = t.launches[0];
  EXPECT_EQ(l.kernel, "add");
  EXPECT_EQ(l.grid.x, 2u);
  EXPECT_EQ(l.block.x, 64u);
  EXPECT_EQ(l.line, 17u);
  EXPECT_TRUE(l.ended);
  EXPECT_EQ(l.idle_threads, 28u);  // 128 threads, 100 elements
  ASSERT_EQ(t.allocations.size(), 3u);
  EXPECT_NE(t.allocations[0].site.find("traced_add.cu:12"), std::string::npos);
  EXPECT_TRUE(t.allocations[2].freed);
  const auto accesses = l.all_accesses();
  ASSERT_EQ(accesses.size(), 300u);  // two reads and a write per element
  int writes = 0, line6 = 0;
  for (const auto& a : accesses) {
    writes += a.write;
    EXPECT_EQ(a.size, 4);
    // element = global thread index: the mapping students learn
    EXPECT_EQ(a.offset / 4, a.block * 64 + a.thread);
    line6 += t.where(a.pc) == "traced_add.cu:6";
  }
  EXPECT_EQ(writes, 100);
  EXPECT_EQ(line6, 300);
}

// The bugs are in the trace: accesses past a buffer's end and before its
// start at their offsets from it, and a faulting null-pointer write under no
// buffer, with the launch naming the thread that faulted and its line.
TEST_F(Traces, AccessesOutsideEveryBufferAndTheFaultAreRecorded) {
  // 1024 threads, 1000 elements: threads 1000..1023 write past the end.
  ASSERT_EQ(run("CUDALAB_TRACE=" + path("w.trace") + " " + checks_program("oob_write")).status, 0);
  cudalab::trace::Trace w = cudalab::trace::read_trace(path("w.trace"));
  ASSERT_EQ(w.launches.size(), 1u);
  std::set<uint64_t> past;
  size_t inside = 0;
  for (const auto& a : w.launches[0].all_accesses()) {
    if (!w.missed(a)) {
      ++inside;
      continue;
    }
    EXPECT_TRUE(a.write);
    EXPECT_EQ(a.allocation, w.allocations[0].id);
    EXPECT_EQ(a.offset / 4, a.block * 256 + a.thread);  // its own element, past the end
    EXPECT_EQ(w.where(a.pc), "oob_write.cu:6");
    past.insert(a.offset / 4);
  }
  EXPECT_EQ(inside, 1000u);
  EXPECT_EQ(past.size(), 24u);
  EXPECT_EQ(*past.begin(), 1000u);
  EXPECT_FALSE(w.launches[0].faulted);

  // x[i - 1] at i = 0: 4 bytes before the start, a negative offset.
  ASSERT_EQ(
      run("CUDALAB_TRACE=" + path("b.trace") + " " + checks_program("oob_read_before")).status, 0);
  cudalab::trace::Trace b = cudalab::trace::read_trace(path("b.trace"));
  size_t before = 0;
  for (const auto& a : b.launches.at(0).all_accesses())
    if (b.missed(a)) {
      ++before;
      EXPECT_EQ(int64_t(a.offset), -4);
      EXPECT_EQ(a.thread, 0u);
      EXPECT_FALSE(a.write);
    }
  EXPECT_EQ(before, 1u);

  // The write through a null pointer faults: recorded, then the thread stops.
  ASSERT_EQ(run("CUDALAB_TRACE=" + path("n.trace") + " " + checks_program("null_pointer")).status,
            0);
  cudalab::trace::Trace n = cudalab::trace::read_trace(path("n.trace"));
  const auto& l = n.launches.at(0);
  EXPECT_TRUE(l.faulted);
  ASSERT_TRUE(l.fault.known);
  EXPECT_EQ(l.fault.block, 0u);
  EXPECT_EQ(l.fault.thread, 0u);
  EXPECT_TRUE(Says(l.fault.where, "null_pointer.cu:9")) << l.fault.where;
  EXPECT_TRUE(Says(l.fault.what, "invalid write to address 0x0: a null pointer")) << l.fault.what;
  const auto accesses = l.all_accesses();
  ASSERT_EQ(accesses.size(), 1u);
  EXPECT_EQ(accesses[0].allocation, cudalab::trace::kNoBufferId);
  EXPECT_EQ(accesses[0].offset, 0u);
  EXPECT_TRUE(accesses[0].write);
  EXPECT_TRUE(n.missed(accesses[0]));
}

TEST_F(Traces, CMakeBuiltProgramsTraceTheCuFileToo) {
  // Built by cudalab_add_cuda_executable: rewritten into the build tree, yet
  // every access names the .cu file and line.
  Result r = run("CUDALAB_TRACE=" + path("t.trace") + " " CUDALAB_CMAKE_TRACED_PROGRAM);
  ASSERT_EQ(r.status, 0) << r.output;
  cudalab::trace::Trace t = cudalab::trace::read_trace(path("t.trace"));
  ASSERT_EQ(t.launches.size(), 1u);
  ASSERT_FALSE(t.launches[0].requests.empty());
  for (const auto& r : t.launches[0].requests) EXPECT_EQ(t.where(r.pc), "traced_add.cu:6");
}

TEST_F(Traces, TruncatedAndForeignTracesGiveClearErrors) {
  ASSERT_EQ(run("CUDALAB_TRACE=" + path("t.trace") + " " CUDALAB_CMAKE_TRACED_PROGRAM).status, 0);
  const auto size = fs::file_size(path("t.trace"));
  for (uintmax_t cut : {size - 3, size / 2, uintmax_t(20)}) {
    fs::copy_file(path("t.trace"), path("cut.trace"), fs::copy_options::overwrite_existing);
    fs::resize_file(path("cut.trace"), cut);
    try {
      cudalab::trace::read_trace(path("cut.trace"));
      ADD_FAILURE() << "a trace cut at " << cut << " bytes was accepted";
    } catch (const cudalab::trace::TraceError& e) {
      EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
    }
  }
  std::ofstream(path("junk.trace")) << "this is not a trace at all";
  auto error_of = [](const std::string& file) -> std::string {
    try {
      cudalab::trace::read_trace(file);
    } catch (const cudalab::trace::TraceError& e) {
      return e.what();
    }
    return "(accepted)";
  };
  EXPECT_TRUE(Says(error_of(path("junk.trace")), "is not a cudalab trace"));
  EXPECT_TRUE(Says(error_of(path("absent.trace")), "cannot open"));
  EXPECT_TRUE(Says(error_of(dir().string()), "is a folder, not a trace file"));
}

TEST_F(Traces, CorruptedTracesNeverCrashTheReader) {
  ASSERT_EQ(run("CUDALAB_TRACE=" + path("t.trace") + " " CUDALAB_CMAKE_TRACED_PROGRAM).status, 0);
  std::ifstream in(path("t.trace"), std::ios::binary);
  const std::string good((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  uint64_t state = 12345;
  auto next = [&] { return state = state * 6364136223846793005ull + 1442695040888963407ull; };
  int rejected = 0, changed = 0;
  for (int k = 0; k < 300; ++k) {
    std::string bad = good;
    for (int flips = 1 + int(next() % 4); flips > 0; --flips)
      bad[16 + next() % (bad.size() - 16)] = char(next() >> 56);
    if (bad == good) continue;  // a byte set to the value it had
    ++changed;
    std::ofstream(path("bad.trace"), std::ios::binary) << bad;
    try {
      cudalab::trace::read_trace(path("bad.trace"));
      ADD_FAILURE() << "a changed trace was read as if whole";
    } catch (const cudalab::trace::TraceError& e) {
      // A changed payload fails its checksum; a changed record header
      // makes a length or a type that does not fit.
      const std::string what = e.what();
      EXPECT_TRUE(Says(what, "does not match its checksum") || Says(what, "truncated") ||
                  Says(what, "corrupt"))
          << what;
      ++rejected;
    }
  }
  EXPECT_GT(changed, 250);
  EXPECT_EQ(rejected, changed);
}

TEST_F(Traces, FindingsAreRecordedInTraces) {
  const Result r = run("CUDALAB_CHECK=racecheck CUDALAB_TRACE=" + path("r.trace") + " " +
                       checks_program("race_shared_no_barrier"));
  EXPECT_TRUE(Says(r.output, "Race reported"));
  const cudalab::trace::Trace t = cudalab::trace::read_trace(path("r.trace"));
  ASSERT_EQ(t.launches.size(), 1u);
  ASSERT_FALSE(t.launches[0].findings.empty());
  const auto& f = t.launches[0].findings[0];
  EXPECT_EQ(f.tool, "racecheck");
  EXPECT_EQ(f.kind, "read-after-write");
  EXPECT_NE(f.where.find("race_shared_no_barrier.cu:10"), std::string::npos) << f.where;
  EXPECT_NE(f.message.find("`s` in reverse"), std::string::npos) << f.message;
  EXPECT_EQ(f.count, 32u);
  // The two racing accesses, for the viewer to step to: thread 32 reading
  // at line 10 what thread 31 wrote at line 9, in block 0.
  EXPECT_NE(f.where_other.find("race_shared_no_barrier.cu:9"), std::string::npos) << f.where_other;
  EXPECT_EQ(f.thread, 32);
  EXPECT_EQ(f.block, 0);
  EXPECT_EQ(f.other_thread, 31);
  EXPECT_EQ(f.other_block, 0);
  EXPECT_NE(f.advice.find("__syncthreads()"), std::string::npos) << f.advice;
}

// The trace groups lanes as a warp issues them: one request per warp-level
// instruction with its active lanes, numbered by barrier phase, and every
// lane's address back as it was, whatever the pattern.
TEST_F(Traces, TraceGroupsLanesIntoRequestsByWarpAndPhase) {
  ASSERT_EQ(run(kCC + " " + kPrograms + "/warp_steps.cu -o " + path("p")).status, 0);
  const Result r = run("CUDALAB_TRACE=" + path("p.trace") + " " + path("p"));
  ASSERT_EQ(r.status, 0) << r.output;
  const cudalab::trace::Trace t = cudalab::trace::read_trace(path("p.trace"));
  ASSERT_EQ(t.launches.size(), 4u);
  auto line = [&](uint64_t pc) {
    const std::string w = t.where(pc);
    return w.rfind("warp_steps.cu:", 0) == 0 ? std::stoi(w.substr(14)) : 0;
  };
  // uniform<<<1, 48>>>: a full warp and one of 16 lanes.
  const auto& uniform = t.launches[0];
  ASSERT_EQ(uniform.requests.size(), 2u);
  EXPECT_EQ(uniform.requests[0].mask, 0xffffffffu);
  EXPECT_EQ(uniform.requests[1].mask, 0xffffu);
  EXPECT_EQ(uniform.requests[1].warp, 1);
  // phases<<<1, 64>>>: line 22 before the first barrier, 24 between, 26-27 after.
  std::map<int, std::set<uint32_t>> phases_of_line;
  for (const auto& q : t.launches[2].requests) phases_of_line[line(q.pc)].insert(q.phase);
  EXPECT_EQ(phases_of_line[22], std::set<uint32_t>{0});
  EXPECT_EQ(phases_of_line[24], std::set<uint32_t>{1});
  EXPECT_EQ(phases_of_line[26], std::set<uint32_t>{2});
  EXPECT_EQ(phases_of_line[27], std::set<uint32_t>{2});
  // gather: scattered offsets, and lanes of one request in two buffers.
  uint32_t in = 0, other = 0;
  for (const auto& a : t.allocations) {
    if (a.name == "in") in = a.id;
    if (a.name == "other") other = a.id;
  }
  ASSERT_NE(in, 0u);
  ASSERT_NE(other, 0u);
  int scattered = 0, mixed = 0, near = 0;
  for (const auto& a : t.launches[3].all_accesses()) {
    if (a.write || a.allocation == other || (a.allocation == in && line(a.pc) == 36)) {
      if (line(a.pc) == 36 && !a.write) {
        EXPECT_EQ(a.allocation, a.thread % 2 ? other : in) << a.thread;
        EXPECT_EQ(a.offset, a.thread * 4u) << a.thread;
        ++mixed;
      }
      continue;
    }
    if (a.allocation == in && line(a.pc) == 34) {
      EXPECT_EQ(a.offset, ((a.thread * 1237 + 11) % 4096) * 4u) << a.thread;
      ++scattered;
    }
    if (a.allocation == in && line(a.pc) == 37) {
      EXPECT_EQ(a.offset, ((a.thread * 7) % 32) * 4u) << a.thread;
      ++near;
    }
  }
  EXPECT_EQ(scattered, 64);
  EXPECT_EQ(near, 64);
  EXPECT_EQ(mixed, 64);
}

// A capped trace stops recording accesses at the cap, says so on stderr and
// in a note, and stays a whole, readable trace.
TEST_F(Traces, TraceCapStopsRecordingWithANote) {
  const std::string prog = CUDALAB_CMAKE_TRACED_PROGRAM;
  const Result r =
      run("CUDALAB_TRACE_MAX_ACCESSES=70 CUDALAB_TRACE=" + path("c.trace") + " " + prog);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(Says(r.output, "recording of accesses stops here"));
  const cudalab::trace::Trace t = cudalab::trace::read_trace(path("c.trace"));
  ASSERT_EQ(t.launches.size(), 1u);
  EXPECT_EQ(t.accesses_total, 70u);
  EXPECT_EQ(t.launches[0].all_accesses().size(), 70u);
  bool noted = false;
  for (const auto& n : t.notes) noted |= n.find("stopped at the limit of 70") != std::string::npos;
  EXPECT_TRUE(noted);
  const Result bad =
      run("CUDALAB_TRACE_MAX_ACCESSES=lots CUDALAB_TRACE=" + path("d.trace") + " " + prog);
  EXPECT_EQ(bad.status, 2);
  EXPECT_TRUE(Says(bad.output, "is not a positive number"));
}

TEST_F(Traces, TraceBlocksRecordsTheChosenBlocksOnly) {
  const std::string prog = CUDALAB_CMAKE_TRACED_PROGRAM;
  ASSERT_EQ(run("CUDALAB_TRACE_BLOCKS=1,3-4 CUDALAB_TRACE=" + path("b.trace") + " " + prog).status,
            0);
  const cudalab::trace::Trace t = cudalab::trace::read_trace(path("b.trace"));
  ASSERT_FALSE(t.launches.empty());
  std::set<uint32_t> blocks;
  for (const auto& l : t.launches)
    for (const auto& r : l.requests) blocks.insert(r.block);
  EXPECT_FALSE(blocks.empty());
  for (uint32_t b : blocks) EXPECT_TRUE(b == 1 || b == 3 || b == 4) << b;
  ASSERT_FALSE(t.notes.empty());
  EXPECT_NE(t.notes[0].find("only the accesses of blocks 1,3-4"), std::string::npos);
  const Result bad = run("CUDALAB_TRACE_BLOCKS=3-1 CUDALAB_TRACE=" + path("x.trace") + " " + prog);
  EXPECT_EQ(bad.status, 2);
  EXPECT_TRUE(Says(bad.output, "is not a list of blocks"));
}

}  // namespace
