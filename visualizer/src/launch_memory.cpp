// The heatmaps, hover lists and per-block index of a launch (launch_memory.h).
#include "launch_memory.h"

#include <algorithm>
#include <map>

namespace cudalab::viz {
namespace {

// Every lane of every request, with its entry for `touches`: the request's
// index and the lane's position among the request's active lanes.
template <class F>
void for_each_touch(const trace::Launch& l, F f) {
  trace::LaneAddress lanes[32];
  for (uint32_t i = 0; i < l.requests.size(); ++i) {
    const trace::Request& r = l.requests[i];
    const int n = l.lanes_of(r, lanes);
    for (int k = 0; k < n; ++k)
      f(trace::Access{r.block, r.warp * 32u + lanes[k].lane, r.phase, lanes[k].allocation,
                      lanes[k].offset, r.pc, r.size, r.write(), r.atomic()},
        uint64_t(i) << 5 | uint64_t(k));
  }
}

}  // namespace

trace::Access access_of(const trace::Launch& l, uint64_t touch) {
  const trace::Request& r = l.requests[size_t(touch >> 5)];
  trace::LaneAddress lanes[32];
  const int n = l.lanes_of(r, lanes);
  const int k = std::min(int(touch & 31), n - 1);
  return trace::Access{r.block,         r.warp * 32u + lanes[k].lane,
                       r.phase,         lanes[k].allocation,
                       lanes[k].offset, r.pc,
                       r.size,          r.write(),
                       r.atomic()};
}

LaunchMemory launch_memory(const trace::Trace& t, const trace::Launch& l, uint64_t max_cells,
                           size_t max_touches) {
  LaunchMemory m;
  std::map<uint32_t, size_t> index;  // allocation id -> buffers[i]
  for (const auto& a : t.allocations) {
    BufferMap b;
    b.allocation = &a;
    const uint64_t words = std::max<uint64_t>(1, (a.size + 3) / 4);
    b.per_cell = (words + max_cells - 1) / std::max<uint64_t>(1, max_cells);
    b.cells = size_t((words + b.per_cell - 1) / b.per_cell);  // no cell past the end
    index[a.id] = m.buffers.size();
    m.buffers.push_back(std::move(b));
  }
  std::vector<bool> used(m.buffers.size(), false);
  // First pass: how many accesses each cell has, and who was last.
  for (auto& b : m.buffers) {
    b.last_block.assign(b.cells, -1);
    b.last_thread.assign(b.cells, -1);
    b.last_writer_block.assign(b.cells, -1);
    b.last_writer_thread.assign(b.cells, -1);
    b.first.assign(b.cells + 1, 0);
  }
  size_t kept = 0;
  for_each_touch(l, [&](const trace::Access& x, uint64_t) {
    if (x.shared()) return;
    auto it = index.find(x.allocation);
    if (it == index.end()) {
      ++m.no_buffer_count;
      if (m.no_buffer.size() < 256) m.no_buffer.push_back(x);
      return;
    }
    BufferMap& b = m.buffers[it->second];
    used[it->second] = true;
    if (x.offset >= b.allocation->size) {
      ++b.missed_count;
      if (b.missed.size() < 256) b.missed.push_back(x);
      return;
    }
    const size_t c = size_t(x.offset / 4 / b.per_cell);
    b.last_block[c] = x.block;
    b.last_thread[c] = x.thread;
    if (x.write) {
      b.last_writer_block[c] = x.block;
      b.last_writer_thread[c] = x.thread;
    }
    if (kept < max_touches) {
      ++b.first[c + 1];
      ++kept;
    }
  });
  // Second pass: the accesses by cell (the first `max_touches` of them).
  for (auto& b : m.buffers) {
    for (size_t c = 0; c < b.cells; ++c) b.first[c + 1] += b.first[c];
    b.touches.resize(b.first[b.cells]);
  }
  std::vector<std::vector<uint32_t>> next(m.buffers.size());
  for (size_t i = 0; i < m.buffers.size(); ++i)
    next[i].assign(m.buffers[i].first.begin(), m.buffers[i].first.end() - 1);
  kept = 0;
  for_each_touch(l, [&](const trace::Access& x, uint64_t touch) {
    if (x.shared() || kept >= max_touches) return;
    auto it = index.find(x.allocation);
    if (it == index.end()) return;
    BufferMap& b = m.buffers[it->second];
    if (x.offset >= b.allocation->size) return;
    const size_t c = size_t(x.offset / 4 / b.per_cell);
    b.touches[next[it->second][c]++] = touch;
    ++kept;
  });
  // Only the buffers this launch touched (or missed).
  std::vector<BufferMap> touched;
  for (size_t i = 0; i < m.buffers.size(); ++i)
    if (used[i]) touched.push_back(std::move(m.buffers[i]));
  m.buffers = std::move(touched);
  // Requests by block (a counting sort keeps each block's in order).
  const size_t blocks = size_t(l.grid.count());
  m.block_first.assign(blocks + 1, 0);
  for (const auto& r : l.requests)
    if (r.block < blocks) ++m.block_first[r.block + 1];
  for (size_t b = 0; b < blocks; ++b) m.block_first[b + 1] += m.block_first[b];
  m.block_requests.resize(m.block_first[blocks]);
  std::vector<uint32_t> at(m.block_first.begin(), m.block_first.end() - 1);
  for (uint32_t i = 0; i < l.requests.size(); ++i)
    if (l.requests[i].block < blocks) m.block_requests[at[l.requests[i].block]++] = i;
  return m;
}

std::vector<trace::Access> thread_accesses(const trace::Launch& l, const LaunchMemory& m,
                                           uint32_t block, uint32_t thread,
                                           std::vector<uint32_t>* requests) {
  if (requests) requests->clear();
  std::vector<trace::Access> out;
  if (block + 1 >= m.block_first.size() || thread / 32 > 0xffff) return out;
  trace::LaneAddress lanes[32];
  for (uint32_t k = m.block_first[block]; k < m.block_first[block + 1]; ++k) {
    const trace::Request& r = l.requests[m.block_requests[k]];
    if (r.warp != thread / 32 || !(r.mask >> (thread % 32) & 1)) continue;
    const int n = l.lanes_of(r, lanes);
    for (int i = 0; i < n; ++i)
      if (lanes[i].lane == thread % 32) {
        out.push_back(trace::Access{r.block, thread, r.phase, lanes[i].allocation, lanes[i].offset,
                                    r.pc, r.size, r.write(), r.atomic()});
        if (requests) requests->push_back(m.block_requests[k]);
      }
  }
  return out;
}

std::pair<uint32_t, uint32_t> stopped_thread(const trace::Launch& l) {
  constexpr uint64_t kEnough = 16;
  const uint32_t fault_warp = l.fault.thread / 32, fault_lane = l.fault.thread % 32;
  uint64_t found = 0;
  for (const trace::Request& r : l.requests)
    if (r.block == l.fault.block && r.warp == fault_warp && (r.mask >> fault_lane & 1) &&
        ++found >= kEnough)
      return {l.fault.block, l.fault.thread};
  const auto first = std::find_if(l.requests.begin(), l.requests.end(),
                                  [](const trace::Request& r) { return r.mask != 0; });
  if (first == l.requests.end()) return {l.fault.block, l.fault.thread};
  const uint32_t block = first->block;
  std::vector<uint64_t> count(std::min<uint64_t>(l.block.count(), 1024));
  for (const trace::Request& r : l.requests)
    if (r.block == block)
      for (uint32_t lane = 0; lane < 32; ++lane)
        if ((r.mask >> lane & 1) && r.warp * 32u + lane < count.size())
          ++count[r.warp * 32u + lane];
  const auto busiest = std::max_element(count.begin(), count.end());
  if (busiest == count.end() || *busiest <= found) return {l.fault.block, l.fault.thread};
  return {block, uint32_t(busiest - count.begin())};
}

BlockSteps block_steps(const trace::Launch& l, const LaunchMemory& m, uint32_t block) {
  BlockSteps b;
  if (block + 1 >= m.block_first.size()) return b;
  trace::LaneAddress lanes[32];
  for (uint32_t k = m.block_first[block]; k < m.block_first[block + 1]; ++k) {
    const trace::Request& r = l.requests[m.block_requests[k]];
    if (r.phase >= 65536) continue;  // no block has that many barriers worth stepping through
    if (r.phase >= b.by_phase.size()) {
      b.by_phase.resize(r.phase + 1);
      b.instruction_first.resize(r.phase + 1);
    }
    b.instruction_first[r.phase].push_back(uint32_t(b.by_phase[r.phase].size()));
    const int n = l.lanes_of(r, lanes);
    for (int i = 0; i < n; ++i) {
      const trace::Access x{r.block,         r.warp * 32u + lanes[i].lane,
                            r.phase,         lanes[i].allocation,
                            lanes[i].offset, r.pc,
                            r.size,          r.write(),
                            r.atomic()};
      b.by_phase[r.phase].push_back(x);
      if (x.allocation == trace::Request::kStaticShared)
        b.static_shared_bytes = std::max(b.static_shared_bytes, x.offset + x.size);
      else if (x.allocation == trace::Request::kDynamicShared)
        b.dynamic_shared_bytes = std::max(b.dynamic_shared_bytes, x.offset + x.size);
    }
  }
  b.phases = uint32_t(b.by_phase.size());
  return b;
}

std::vector<std::vector<WrongCell>> wrong_cells(const LaunchMemory& m,
                                                const std::vector<trace::Comparison>& compared) {
  std::vector<std::vector<WrongCell>> cells(m.buffers.size());
  for (size_t b = 0; b < m.buffers.size(); ++b) {
    const BufferMap& h = m.buffers[b];
    int last = -1;  // the buffer's last comparison
    for (size_t c = 0; c < compared.size(); ++c)
      if (compared[c].allocation == h.allocation->id) last = int(c);
    if (last < 0) continue;
    const trace::Comparison& c = compared[size_t(last)];
    cells[b].assign(h.cells, WrongCell{});
    auto cell_of = [&](uint64_t index) {
      return (c.offset + index * c.element_bytes) / 4 / h.per_cell;
    };
    for (const auto& [first, count] : c.runs)
      for (uint64_t cell = cell_of(first); cell <= cell_of(first + count - 1) && cell < h.cells;
           ++cell)
        cells[b][cell].comparison = last;
    // The first listed element of each cell, for its values.
    for (size_t e = 0; e < c.elements.size(); ++e) {
      const uint64_t cell = cell_of(c.elements[e].index);
      if (cell < h.cells && cells[b][cell].element < 0) cells[b][cell] = {last, int32_t(e)};
    }
  }
  return cells;
}

int last_launch_touching(const trace::Trace& t, uint32_t id) {
  for (size_t i = t.launches.size(); i-- > 0;)
    for (const trace::Request& r : t.launches[i].requests)
      if (r.allocation == id) return int(i);
  return -1;
}

}  // namespace cudalab::viz
