#include <imgui.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "places.h"
#include "views/each_view.h"

namespace cudalab::viz {

// One warp-level memory instruction (a request): its lanes' addresses
// against 32-byte sectors (global memory: coalescing) or the 32 banks of
// shared memory (conflicts), with the figures Nsight Compute counts.
void draw_warp_instruction(Shared& shared, Selection& s) {
  shared.refresh(s);
  if (s.thread < 0 || s.access < 0 || size_t(s.access) >= shared.thread_requests().size()) {
    ImGui::TextWrapped(
        "Select a thread in 'Threads of the block', then click one of its accesses in 'Selected "
        "thread': its warp's instruction is drawn here, each lane's address against the 32-byte "
        "sectors it moves (global memory) or the 32 banks (shared memory).");
    return;
  }
  const auto& l = shared.trace.launches[size_t(s.launch)];
  const trace::Request& r = l.requests[shared.thread_requests()[size_t(s.access)]];
  trace::LaneAddress lanes[32];
  const int n = l.lanes_of(r, lanes);
  const auto b = trace::unflatten(r.block, l.grid);
  ImGui::TextWrapped(
      "%s: a %s of %u bytes a lane by %d of the 32 lanes of warp %u (threads %u to "
      "%u) of block (%u,%u,%u)%s",
      shared.trace.where(r.pc).c_str(),
      r.atomic()  ? "atomic"
      : r.write() ? "write"
                  : "read",
      r.size, n, r.warp, r.warp * 32u, r.warp * 32u + 31, b.x, b.y, b.z,
      r.shared() ? ", in shared memory" : ", in global memory");
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float width = ImGui::GetContentRegionAvail().x;
  const float lane_w = std::max(10.f, width / 32.f);
  const float box = std::min(lane_w - 2, 22.f);
  const ImU32 kLane = IM_COL32(80, 150, 255, 255), kIdle = IM_COL32(60, 60, 68, 255),
              kTarget = IM_COL32(90, 220, 120, 255), kConflict = IM_COL32(255, 190, 60, 255);
  auto label = [&](ImVec2 at, const char* text) {
    dl->AddText(at, IM_COL32(230, 230, 230, 255), text);
    note_text(at, text);
  };
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float lane_y = origin.y + ImGui::GetTextLineHeight() + 4, target_y = lane_y + 120;
  label(origin, "lanes");
  uint32_t lane_of_slot[32];
  for (int i = 0; i < 32; ++i) lane_of_slot[i] = 32;
  for (int i = 0; i < n; ++i) lane_of_slot[lanes[i].lane] = uint32_t(i);
  for (uint32_t lane = 0; lane < 32; ++lane) {
    const float x = origin.x + float(lane) * lane_w;
    dl->AddRectFilled(ImVec2(x, lane_y), ImVec2(x + box, lane_y + box),
                      lane_of_slot[lane] < 32 ? kLane : kIdle);
    if (lane % 4 == 0) label(ImVec2(x, lane_y + box + 2), std::to_string(lane).c_str());
  }
  std::string said;
  if (r.shared()) {
    // Banks: a lane's 4-byte word w is in bank w % 32; lanes in one bank
    // reading different words take a wavefront each.
    const trace::SharedCounts c = trace::request_shared_counts(l, r);
    std::vector<std::vector<uint64_t>> words(32);
    for (int i = 0; i < n; ++i) {
      const uint64_t w = lanes[i].offset / 4;
      auto& in = words[w % 32];
      if (std::find(in.begin(), in.end(), w) == in.end()) in.push_back(w);
    }
    label(
        ImVec2(origin.x, target_y + box + ImGui::GetTextLineHeight() + 4),
        "banks (4-byte words; a bank holding more than one word the lanes ask for is a conflict)");
    for (int bank = 0; bank < 32; ++bank) {
      const float x = origin.x + float(bank) * lane_w;
      const size_t k = words[size_t(bank)].size();
      dl->AddRectFilled(ImVec2(x, target_y), ImVec2(x + box, target_y + box),
                        k == 0   ? kIdle
                        : k == 1 ? kTarget
                                 : kConflict);
      if (k > 1) label(ImVec2(x + 2, target_y + 2), std::to_string(k).c_str());
      if (bank % 4 == 0) label(ImVec2(x, target_y + box + 2), std::to_string(bank).c_str());
    }
    for (int i = 0; i < n; ++i) {
      const float x0 = origin.x + float(lanes[i].lane) * lane_w + box / 2;
      const float x1 = origin.x + float(lanes[i].offset / 4 % 32) * lane_w + box / 2;
      const size_t k = words[lanes[i].offset / 4 % 32].size();
      dl->AddLine(ImVec2(x0, lane_y + box), ImVec2(x1, target_y), k > 1 ? kConflict : kTarget);
    }
    char text[256];
    std::snprintf(text, sizeof(text), "%llu wavefront%s (the least it could take: %llu): %s",
                  (unsigned long long)c.wavefronts, c.wavefronts == 1 ? "" : "s",
                  (unsigned long long)(c.wavefronts - c.conflicts),
                  c.conflicts ? "the lanes of one bank wait for each other (a bank conflict)"
                              : "no bank conflict");
    said = text;
  } else {
    // Sectors: aligned 32 bytes of the address space; each distinct one
    // the lanes touch is moved whole.
    const trace::GlobalCounts c = trace::request_global_counts(shared.trace, l, r);
    std::vector<uint64_t> sectors;
    auto address = [&](const trace::LaneAddress& a) {
      const trace::Allocation* al = shared.trace.allocation(a.allocation);
      return (al ? al->base : 0) + a.offset;
    };
    for (int i = 0; i < n; ++i) {
      const uint64_t first = address(lanes[i]) / 32,
                     last = (address(lanes[i]) + std::max<uint8_t>(r.size, 1) - 1) / 32;
      for (uint64_t sct = first; sct <= last; ++sct) sectors.push_back(sct);
    }
    std::sort(sectors.begin(), sectors.end());
    sectors.erase(std::unique(sectors.begin(), sectors.end()), sectors.end());
    const size_t shown = std::min<size_t>(sectors.size(), 32);
    label(ImVec2(origin.x, target_y + box + ImGui::GetTextLineHeight() + 4),
          "32-byte sectors moved (in address order; a 128-byte line is 4 sectors)");
    for (size_t k = 0; k < shown; ++k) {
      const float x = origin.x + float(k) * lane_w;
      const bool line_start = k == 0 || sectors[k] / 4 != sectors[k - 1] / 4;
      dl->AddRectFilled(ImVec2(x, target_y), ImVec2(x + box, target_y + box), kTarget);
      if (line_start)
        dl->AddLine(ImVec2(x - 1, target_y - 4), ImVec2(x - 1, target_y + box + 4),
                    IM_COL32(230, 230, 230, 255), 2.0f);
    }
    for (int i = 0; i < n; ++i) {
      const auto at = std::lower_bound(sectors.begin(), sectors.end(), address(lanes[i]) / 32);
      const size_t k = size_t(at - sectors.begin());
      if (k >= shown) continue;
      const float x0 = origin.x + float(lanes[i].lane) * lane_w + box / 2;
      const float x1 = origin.x + float(k) * lane_w + box / 2;
      dl->AddLine(ImVec2(x0, lane_y + box), ImVec2(x1, target_y), kLane);
    }
    char text[320];
    std::snprintf(text, sizeof(text),
                  "%llu sector%s of 32 bytes moved for %llu bytes asked: %.0f %% of what moved "
                  "was used%s%s",
                  (unsigned long long)c.sectors, c.sectors == 1 ? "" : "s",
                  (unsigned long long)c.bytes, c.efficiency(),
                  c.efficiency() < 50 ? " (scattered lanes: not coalesced)" : "",
                  sectors.size() > shown ? "; the first 32 sectors drawn" : "");
    said = text;
  }
  ImGui::Dummy(ImVec2(width, target_y + box + 2 * ImGui::GetTextLineHeight() + 12 - origin.y));
  ImGui::TextWrapped("%s", said.c_str());
  ImGui::TextWrapped(
      "Nsight Compute counts the same per line: sectors per request for global memory "
      "(4 when a warp reads 32 consecutive floats), wavefronts per request for shared memory "
      "(1 without bank conflicts). The 'Metrics per line' tab sums them over the launch.");
}

}  // namespace cudalab::viz
