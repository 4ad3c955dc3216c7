// The viewer's memory data (visualizer/src/launch_memory.h) on a made-up
// launch: one cell per element up to the cap and never a cell past a
// buffer's end, every access of a cell in order for the hover list, the
// accesses that missed a buffer kept apart, a thread's accesses read
// from its block's requests alone, and a graded test's wrong elements
// placed on the cells that hold them.
#include "launch_memory.h"

#include <gtest/gtest.h>

namespace {

using cudalab::trace::Allocation;
using cudalab::trace::Launch;
using cudalab::trace::Request;
using cudalab::trace::Trace;

// A request of one lane: thread `thread` of block `block`.
Request one_lane(uint32_t block, uint32_t thread, uint32_t allocation, uint64_t offset, bool write,
                 uint64_t pc = 0x10) {
  Request r;
  r.block = block;
  r.warp = uint16_t(thread / 32);
  r.mask = 1u << (thread % 32);
  r.size = 4;
  r.kind = write ? 1 : 0;
  r.pc = pc;
  r.allocation = allocation;
  r.offset = offset;
  return r;
}

// Adds `r` to the launch, its other lanes (none) in the pattern encoding.
void push(Launch& l, Request r) {
  r.lanes_at = l.lane_data.size();
  const char pattern[10] = {char(cudalab::trace::LaneEncoding::kPattern), 5};  // sx = sy = 0
  l.lane_data.insert(l.lane_data.end(), pattern, pattern + 10);
  l.requests.push_back(r);
}

Trace two_buffers(uint64_t words_a, uint64_t words_b) {
  Trace t;
  for (uint32_t id : {1u, 2u}) {
    Allocation a;
    a.id = id;
    a.size = 4 * (id == 1 ? words_a : words_b);
    a.name = id == 1 ? "d_a" : "d_b";
    t.allocation_index[id] = t.allocations.size();
    t.allocations.push_back(a);
  }
  Launch l;
  l.grid.x = 2;
  l.block.x = 64;
  t.launches.push_back(l);
  return t;
}

TEST(LaunchMemory, CellsCoverTheBufferAndNoMore) {
  // 3000 elements over at most 2048 cells: two a cell, 1500 cells (not 2048
  // with the last 548 drawn as untouched).
  Trace t = two_buffers(3000, 10);
  Launch& l = t.launches[0];
  push(l, one_lane(0, 0, 1, 4 * 2999, true));
  push(l, one_lane(0, 1, 2, 4 * 9, true));
  const auto m = cudalab::viz::launch_memory(t, l, 2048);
  ASSERT_EQ(m.buffers.size(), 2u);
  EXPECT_EQ(m.buffers[0].per_cell, 2u);
  EXPECT_EQ(m.buffers[0].cells, 1500u);
  EXPECT_EQ(m.buffers[0].last_thread[1499], 0);
  EXPECT_EQ(m.buffers[1].per_cell, 1u);
  EXPECT_EQ(m.buffers[1].cells, 10u);
  EXPECT_EQ(m.buffers[1].last_thread[9], 1);
  EXPECT_EQ(m.buffers[1].last_thread[0], -1);
}

TEST(LaunchMemory, EveryAccessOfACellInOrderAndMissesApart) {
  Trace t = two_buffers(16, 16);
  Launch& l = t.launches[0];
  push(l, one_lane(1, 5, 1, 8, false, 0x20));                     // d_a[2] read by (5, block 1)
  push(l, one_lane(0, 3, 1, 8, true, 0x30));                      // then written by (3, block 0)
  push(l, one_lane(0, 40, 1, 64, true));                          // d_a[16]: one past the end
  push(l, one_lane(0, 41, 1, uint64_t(-4), false));               // before its start
  push(l, one_lane(1, 7, cudalab::trace::kNoBufferId, 0, true));  // null
  const auto m = cudalab::viz::launch_memory(t, l, 2048);
  ASSERT_EQ(m.buffers.size(), 1u);  // d_b untouched: not shown
  const auto& a = m.buffers[0];
  ASSERT_EQ(a.first[3] - a.first[2], 2u);
  const auto first = cudalab::viz::access_of(l, a.touches[a.first[2]]);
  const auto second = cudalab::viz::access_of(l, a.touches[a.first[2] + 1]);
  EXPECT_EQ(first.block, 1u);
  EXPECT_EQ(first.thread, 5u);
  EXPECT_FALSE(first.write);
  EXPECT_EQ(second.thread, 3u);
  EXPECT_TRUE(second.write);
  EXPECT_EQ(a.last_block[2], 0);
  EXPECT_EQ(a.last_thread[2], 3);
  EXPECT_EQ(a.missed_count, 2u);
  ASSERT_EQ(a.missed.size(), 2u);
  EXPECT_EQ(a.missed[0].offset, 64u);
  EXPECT_EQ(int64_t(a.missed[1].offset), -4);
  EXPECT_TRUE(t.missed(a.missed[0]));
  EXPECT_EQ(m.no_buffer_count, 1u);
  EXPECT_EQ(m.no_buffer.at(0).thread, 7u);
  // A thread's accesses, from its block's requests, in its order.
  const auto mine = cudalab::viz::thread_accesses(l, m, 0, 41);
  ASSERT_EQ(mine.size(), 1u);
  EXPECT_EQ(int64_t(mine[0].offset), -4);
  EXPECT_EQ(cudalab::viz::thread_accesses(l, m, 1, 5).size(), 1u);
  EXPECT_TRUE(cudalab::viz::thread_accesses(l, m, 1, 6).empty());
}

TEST(LaunchMemory, HoverListsStopAtTheirCapButCellsStayColoured) {
  Trace t = two_buffers(4, 4);
  Launch& l = t.launches[0];
  for (uint32_t i = 0; i < 10; ++i) push(l, one_lane(0, i, 1, 4 * (i % 4), true));
  const auto m = cudalab::viz::launch_memory(t, l, 2048, 6);
  const auto& a = m.buffers.at(0);
  EXPECT_EQ(a.touches.size(), 6u);
  EXPECT_EQ(a.last_thread[1], 9);  // the last toucher, beyond the cap too
}

// A comparison starts 8 bytes into d_a, which has 3000 elements (two a
// cell): element i is word i + 2, in cell (i + 2) / 2.
TEST(LaunchMemory, WrongElementsFallOnTheirCells) {
  Trace t = two_buffers(3000, 10);
  Launch& l = t.launches[0];
  push(l, one_lane(0, 0, 1, 0, true));
  push(l, one_lane(0, 1, 2, 0, true));
  const auto m = cudalab::viz::launch_memory(t, l, 2048);
  cudalab::trace::Comparison early, last;
  early.name = last.name = "c";
  early.allocation = last.allocation = 1;
  early.offset = last.offset = 8;
  early.count = last.count = 2990;
  early.runs = {{0, 100}};  // compared before: its marks give way to the last comparison's
  last.wrong = 5;
  last.runs = {{3, 4}, {2000, 1}};  // words 5..8 and 2002: cells 2..4 and 1001
  last.elements = {{4, "1", "2"}, {2000, "nan", "3"}};
  const std::vector<cudalab::trace::Comparison> compared = {early, last};
  const auto cells = cudalab::viz::wrong_cells(m, compared);
  ASSERT_EQ(cells.size(), 2u);
  ASSERT_EQ(cells[0].size(), m.buffers[0].cells);
  EXPECT_TRUE(cells[1].empty());  // d_b was not compared
  std::vector<size_t> marked;
  for (size_t c = 0; c < cells[0].size(); ++c)
    if (cells[0][c].comparison >= 0) marked.push_back(c);
  EXPECT_EQ(marked, (std::vector<size_t>{2, 3, 4, 1001}));
  EXPECT_EQ(cells[0][2].comparison, 1);
  EXPECT_EQ(cells[0][2].element, -1);  // element 3: its value was not kept
  EXPECT_EQ(cells[0][3].element, 0);   // element 4 (word 6, cell 3)
  EXPECT_EQ(cells[0][1001].element, 1);
}

}  // namespace
