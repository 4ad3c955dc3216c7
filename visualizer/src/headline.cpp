#include "headline.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "atomic_tells.h"

namespace cudalab::viz {
namespace {

std::string coordinates(int64_t linear, const trace::Dim3& dims) {
  const trace::Dim3 d = trace::unflatten(uint32_t(linear), dims);
  char b[48];
  std::snprintf(b, sizeof(b), "(%u,%u,%u)", d.x, d.y, d.z);
  return b;
}

// Which finding leads: a bad access, then a barrier that part of a block
// skipped or met at another call (the races that follow from it are its
// symptoms: fixing the barrier fixes them), then a race, then a read of
// memory nobody wrote.
int tool_rank(const std::string& tool) {
  static const char* const order[] = {"memcheck", "synccheck", "racecheck", "initcheck"};
  for (int i = 0; i < 4; ++i)
    if (tool == order[i]) return i;
  return 4;
}

std::string finding_words(const trace::Launch& l, const trace::Finding& f) {
  std::string s = f.tool + ": " + f.kind;
  // (Where a stray shared access lands, in another kernel's variables, is
  // the simulator's layout, not the student's mistake: the text says it.)
  if (!f.message.empty()) s += ", " + f.message.substr(0, f.message.find("; it lands in "));
  if (!f.where.empty()) s += ", at " + file_name(f.where);
  if (!f.where_other.empty()) s += " against " + file_name(f.where_other);
  if (f.block >= 0) s += " (" + whose(l, f.block, f.thread) + ")";
  // The checks' advice names the cause and the line of the fix (a race
  // across a loop's iterations: the barrier at the end of its body).
  if (!f.advice.empty())
    s += ". " + std::string(1, char(std::toupper(f.advice[0]))) + f.advice.substr(1);
  return s;
}

// `s` with its first letter a capital: a sentence of its own.
std::string sentence(std::string s) {
  if (!s.empty()) s[0] = char(std::toupper(static_cast<unsigned char>(s[0])));
  return s;
}

// The comparison of the graded test that the trace's wrong values belong
// to: the last one of an array with wrong elements (an array compared more
// than once counts as its final values).
const trace::Comparison* wrong_comparison(const trace::TestResults& r) {
  const trace::Comparison* found = nullptr;
  for (const trace::Comparison& c : r.compared)
    if (c.wrong > 0) found = &c;
  return found;
}

// Whether a thread wrote 4-byte word `word` of buffer `b`: a cell of one
// word says it; a cell of several is looked into, access by access (its
// accesses kept for the hover lists; when they were not kept, it was).
bool element_written(const trace::Launch& l, const BufferMap& b, uint64_t word) {
  const uint64_t cell = word / b.per_cell;
  if (cell >= b.cells || b.last_writer_block[cell] < 0) return false;
  if (b.per_cell == 1 || b.first[cell] == b.first[cell + 1]) return true;
  for (uint32_t k = b.first[cell]; k < b.first[cell + 1]; ++k) {
    const trace::Access x = access_of(l, b.touches[k]);
    if (x.write && x.offset / 4 <= word &&
        word < (x.offset + std::max<uint64_t>(x.size, 1) + 3) / 4)
      return true;
  }
  return false;
}

// Where the wrong elements of `c` lie in `m`, in words: no thread wrote
// them, or they sit on the edges between the blocks' parts of a grid or
// matrix (the tell of a halo or tile bug); "" when neither.
std::string pattern_of(const trace::Comparison& c, const trace::Launch& l, const LaunchMemory& m) {
  const auto buffer = std::find_if(m.buffers.begin(), m.buffers.end(), [&](const BufferMap& b) {
    return b.allocation->id == c.allocation;
  });
  if (buffer == m.buffers.end() || c.element_bytes != 4 || c.offset % 4 != 0) return "";
  const BufferMap& b = *buffer;
  const uint64_t first_cell = c.offset / 4;
  // Who wrote each element last (a halo's reader does not count). A
  // buffer no thread of the launch wrote (the host copied the results into
  // it, or swapped it with the one the kernel wrote) has only its readers:
  // they tell the blocks' parts apart, not which side went wrong.
  const bool kernel_wrote = has_writes(b);
  const std::vector<int64_t>& by = kernel_wrote ? b.last_writer_block : b.last_block;
  auto block_of = [&](uint64_t i) -> int64_t {
    const uint64_t cell = (first_cell + i) / b.per_cell;
    return cell < b.cells ? by[cell] : -2;
  };
  uint64_t seen = 0, unwritten = 0, on_edges = 0;
  // How many sit next to another block's element above, below, left, right.
  uint64_t side[4] = {0, 0, 0, 0};
  const uint64_t row = c.row_length;
  for (const auto& [start, count] : c.runs)
    for (uint64_t i = start; i < start + count && seen < 200000; ++i) {
      ++seen;
      const int64_t mine = block_of(i);
      if (kernel_wrote && (mine == -1 || (b.per_cell > 1 && seen <= 4096 &&
                                          !element_written(l, b, first_cell + i)))) {
        ++unwritten;
        continue;
      }
      if (b.per_cell != 1 || row == 0) continue;
      const uint64_t column = i % row;
      const bool other[4] = {i >= row && block_of(i - row) != mine,
                             i + row < c.count && block_of(i + row) != mine,
                             column > 0 && block_of(i - 1) != mine,
                             column + 1 < row && i + 1 < c.count && block_of(i + 1) != mine};
      bool edge = false;
      for (int k = 0; k < 4; ++k) {
        side[k] += other[k];
        edge = edge || other[k];
      }
      on_edges += edge;
    }
  if (seen == 0) return "";
  if (kernel_wrote && unwritten == seen)
    return c.elements.empty() ? "no thread wrote any of them"
                              : "no thread wrote any of them (the first: " + c.name + "[" +
                                    std::to_string(c.elements.front().index) + "])";
  if (kernel_wrote && unwritten * 2 >= seen)
    return std::to_string(unwritten) + " of them no thread wrote (dark cells)";
  const uint64_t written = seen - unwritten;
  if (seen < 4 || written == 0 || on_edges * 10 < written * 9) return "";
  // The edges tell only where the blocks' parts have an inside: where each
  // block's part is a row or two (a block per row), every element is on an
  // edge, wrong or not.
  uint64_t sampled = 0, edges_of_all = 0;
  for (uint64_t i = 0; i < c.count && sampled < 200000; ++i, ++sampled) {
    const int64_t mine = block_of(i);
    const uint64_t column = i % row;
    edges_of_all += (i >= row && block_of(i - row) != mine) ||
                    (i + row < c.count && block_of(i + row) != mine) ||
                    (column > 0 && block_of(i - 1) != mine) ||
                    (column + 1 < row && i + 1 < c.count && block_of(i + 1) != mine);
  }
  if (edges_of_all * 10 >= sampled * 9) return "";
  // One side for (nearly) all of them: the halo or tile side that went wrong.
  static const char* const sides[4] = {
      "the first row of each block's part (next to the block above)",
      "the last row of each block's part (next to the block below)",
      "the first column of each block's part (next to the block on the left)",
      "the last column of each block's part (next to the block on the right)"};
  for (int k = 0; k < 4 && kernel_wrote; ++k)
    if (side[k] * 10 >= on_edges * 9 && side[k] * 10 >= written * 9)
      return std::string(on_edges == seen ? "all" : std::to_string(on_edges) + " of them") +
             " on " + sides[k];
  return on_edges == seen
             ? "all on the edges between the blocks' parts"
             : std::to_string(on_edges) + " of them on the edges between the blocks' parts";
}

// A buffer the launch used but left partly untouched (no thread read or
// wrote some of its elements before the last one it touched), other than
// `wrong_id`: a loop that stops early or an index that skips a part shows
// as the inputs' dark cells. "" when every buffer was touched all over.
std::string untouched_inputs(const LaunchMemory& m, uint32_t wrong_id) {
  for (const BufferMap& b : m.buffers) {
    if (b.allocation->id == wrong_id || b.cells == 0) continue;
    // Up to the last cell touched: what lies past it is mostly room the
    // test left after the array (a red zone), which no kernel should touch.
    const auto last =
        std::find_if(b.last_block.rbegin(), b.last_block.rend(), [](int64_t w) { return w >= 0; });
    if (last == b.last_block.rend()) continue;
    const auto untouched = uint64_t(std::count(b.last_block.begin(), last.base(), int64_t(-1)));
    if (untouched == 0) continue;
    const uint64_t elements = (b.allocation->size + 3) / 4;
    const std::string name = b.allocation->name.empty()
                                 ? "allocation " + std::to_string(b.allocation->id)
                                 : b.allocation->name;
    return "; no thread touched " + std::string(b.per_cell > 1 ? "at least " : "") +
           std::to_string(std::min(untouched * b.per_cell, elements)) + " of the " +
           std::to_string(elements) + " elements of " + name +
           " (dark cells): does a loop stop short of them (its bound)?";
  }
  return "";
}

// When no launch of the trace wrote the buffer that holds the wrong values
// (the host put them there: a copy, or a swap of two buffers): which
// buffers the launches did write. "" when a launch wrote it.
std::string written_elsewhere(const trace::Trace& t, uint32_t id, const std::string& name) {
  std::vector<uint32_t> written;
  for (const trace::Launch& l : t.launches)
    for (const trace::Request& q : l.requests) {
      if (!q.write() || q.allocation == trace::Request::kStaticShared ||
          q.allocation == trace::Request::kDynamicShared)
        continue;
      if (q.allocation == id) return "";
      if (std::find(written.begin(), written.end(), q.allocation) == written.end())
        written.push_back(q.allocation);
    }
  if (written.empty()) return "";
  std::string names;
  for (size_t i = 0; i < written.size() && i < 3; ++i) {
    const trace::Allocation* a = t.allocation(written[i]);
    names += (i ? ", " : "") +
             (a && !a->name.empty() ? a->name : "allocation " + std::to_string(written[i]));
  }
  return ". No kernel wrote " + name + " (the launches wrote " + names +
         "): were the results copied back, or the two buffers swapped?";
}

// The first wrong element, in words: "; the first, c[7] (row 0, column 7),
// is 3.5, expected 4"; "" when none was kept.
std::string first_wrong(const trace::Comparison& c) {
  if (c.elements.empty()) return "";
  const trace::WrongElement& e = c.elements.front();
  std::string s = "; the first, " + c.name + "[" + std::to_string(e.index) + "]";
  if (c.row_length > 0)
    s += " (row " + std::to_string(e.index / c.row_length) + ", column " +
         std::to_string(e.index % c.row_length) + ")";
  return s + ", is " + e.got + ", expected " + e.want;
}

// When (nearly) every wrong element kept holds the value expected of the
// element `d` before it (d = 1, or a row), for some d: the tell of an index
// off by one or a scan that is exclusive where it should be inclusive.
// Compared as printed. "" when there is no such shift.
std::string shifted(const trace::Comparison& c) {
  if (c.elements.size() < 4) return "";
  std::unordered_map<uint64_t, const std::string*> want;
  for (const trace::WrongElement& e : c.elements) want[e.index] = &e.want;
  const int64_t rows = c.row_length > 1 ? int64_t(c.row_length) : 0;
  for (const int64_t d : {int64_t(1), int64_t(-1), rows, -rows}) {
    if (d == 0) continue;
    size_t checked = 0, same = 0;
    for (const trace::WrongElement& e : c.elements) {
      const auto other = want.find(uint64_t(int64_t(e.index) - d));
      if (other == want.end()) continue;
      ++checked;
      same += *other->second == e.got;
    }
    if (checked >= 3 && same * 10 >= checked * 9) {
      const bool row = d == rows || d == -rows;
      return std::string(". Each holds the value expected of the ") +
             (row ? "element a row " : "element ") + (d > 0 ? "before" : "after") +
             " it: an index off by one" + (row ? " row" : "") +
             (d > 0 && !row ? ", or a scan that leaves out its own element" : "");
    }
  }
  // A square matrix whose elements hold the values expected across the
  // diagonal (row and column swapped): a transpose that copied, or an
  // index with its row and column the wrong way round. First the same by
  // tiles (a transpose through shared memory): each tile in its place but
  // not transposed inside, or transposed inside but in the untransposed
  // place; only elements of tiles off the diagonal tell these from the
  // whole matrix's mirror.
  const uint64_t n = c.row_length;
  if (n > 1 && c.count == n * n) {
    for (const uint64_t tile : {uint64_t(32), uint64_t(16), uint64_t(64), uint64_t(8)}) {
      if (n < 2 * tile) continue;
      size_t in_checked = 0, in_same = 0, at_checked = 0, at_same = 0;
      for (const trace::WrongElement& e : c.elements) {
        const uint64_t r = e.index / n, col = e.index % n;
        const uint64_t r0 = r - r % tile, c0 = col - col % tile;
        if (r0 == c0) continue;  // a tile on the diagonal: the same as the whole's mirror
        const uint64_t inside = (r0 + (col - c0)) * n + c0 + (r - r0);  // mirrored in its tile
        const uint64_t place = (c0 + (r - r0)) * n + r0 + (col - c0);   // the mirrored tile's
        if (const auto o = want.find(inside); o != want.end() && inside != e.index)
          ++in_checked, in_same += *o->second == e.got;
        if (const auto o = want.find(place); o != want.end() && place != e.index)
          ++at_checked, at_same += *o->second == e.got;
      }
      const std::string t = std::to_string(tile);
      if (in_checked >= 3 && in_same * 10 >= in_checked * 9)
        return ". Each holds the value expected at its mirror inside its own " + t + " x " + t +
               " tile: the tiles went to their places, but each tile's inside is not transposed "
               "(a tile read back as tile[ty][tx] where tile[tx][ty] was meant?)";
      if (at_checked >= 3 && at_same * 10 >= at_checked * 9)
        return ". Each holds the value expected at the same place in the " + t + " x " + t +
               " tile mirrored across the diagonal: each tile is transposed inside, but went to "
               "the untransposed place (are blockIdx.x and blockIdx.y swapped for the output?)";
    }
    size_t checked = 0, same = 0;
    for (const trace::WrongElement& e : c.elements) {
      const auto other = want.find((e.index % n) * n + e.index / n);
      if (other == want.end() || other->first == e.index) continue;
      ++checked;
      same += *other->second == e.got;
    }
    if (checked >= 3 && same * 10 >= checked * 9)
      return ". Each holds the value expected at its mirror across the diagonal (row and column "
             "swapped): the rows and columns of the index are the wrong way round";
  }
  return "";
}

// A wrong element's value and its expected value, as printed; false when
// either is not a finite number.
bool finite_values(const trace::WrongElement& e, double* got, double* want) {
  char* end = nullptr;
  *got = std::strtod(e.got.c_str(), &end);
  if (end == e.got.c_str() || !std::isfinite(*got)) return false;
  *want = std::strtod(e.want.c_str(), &end);
  return end != e.want.c_str() && std::isfinite(*want);
}

// When (nearly) every wrong element kept is off from its expected value by
// one amount (a carry from the wrong tile, a constant added twice) or by
// one factor (a sum counted 32 times, a mean not divided), while the
// expected values differ: that amount. Values as printed; "" when they do
// not agree or there are fewer than 4.
std::string same_error(const trace::Comparison& c) {
  std::vector<std::pair<double, double>> v;  // got, want
  for (const trace::WrongElement& e : c.elements)
    if (double got = 0, want = 0; finite_values(e, &got, &want)) v.emplace_back(got, want);
  if (v.size() < 4 || v.size() * 10 < c.elements.size() * 9) return "";
  // Where every expected value is one value, one error for all says nothing.
  if (std::all_of(v.begin(), v.end(), [&](auto p) { return p.second == v.front().second; }))
    return "";
  // The value most of them share, within a part in 10^4 of the values.
  auto most_share = [&](auto of, double* shared) {
    for (size_t k = 0; k < std::min<size_t>(v.size(), 8); ++k) {
      const double x = of(v[k]);
      size_t same = 0;
      for (const auto& p : v) same += std::fabs(of(p) - x) <= 1e-4 * (std::fabs(x) + 1e-30);
      if (same * 10 >= v.size() * 9) {
        *shared = x;
        return true;
      }
    }
    return false;
  };
  char b[64];
  if (double d = 0; most_share([](auto p) { return p.first - p.second; }, &d) && d != 0) {
    std::snprintf(b, sizeof(b), "%+.6g", d);
    return std::string(". Each is off by the same amount, ") + b +
           " (got minus expected): a value added to all of them, or left out";
  }
  if (double r = 0; std::all_of(v.begin(), v.end(), [](auto p) { return p.second != 0; }) &&
                    most_share([](auto p) { return p.first / p.second; }, &r) && r != 1) {
    std::snprintf(b, sizeof(b), "%.6g", r);
    return std::string(". Each is ") + b +
           " times the expected value: what scales them all (a sum, a count, a maximum) is off";
  }
  return "";
}

// When the wrong elements of a buffer drawn in rows are, row by row, off
// from their expected values by one factor, a factor of their own row
// (each row's values right against each other, each row scaled wrong): a
// row's sum or maximum, as softmax and other normalizations divide by, is
// wrong. "" unless at least 2 rows of 4 or more wrong elements each agree
// within their row, and not all rows by one factor (same_error says that).
std::string per_row_factor(const trace::Comparison& c) {
  if (c.row_length == 0) return "";
  std::map<uint64_t, std::vector<double>> ratios;  // by row
  for (const trace::WrongElement& e : c.elements)
    if (double got = 0, want = 0; finite_values(e, &got, &want) && want != 0)
      ratios[e.index / c.row_length].push_back(got / want);
  std::vector<std::pair<uint64_t, double>> rows;  // row, its factor
  size_t rows_seen = 0;
  for (auto& [row, v] : ratios) {
    if (v.size() < 4) continue;
    ++rows_seen;
    std::sort(v.begin(), v.end());
    const double mid = v[v.size() / 2];
    const auto near = size_t(std::count_if(
        v.begin(), v.end(), [&](double r) { return std::fabs(r - mid) <= 1e-3 * std::fabs(mid); }));
    if (near * 10 >= v.size() * 9 && std::fabs(mid - 1) > 1e-3) rows.emplace_back(row, mid);
  }
  if (rows.size() < 2 || rows.size() * 10 < rows_seen * 9) return "";
  // The first row whose factor is not the first row's (none: one factor).
  const auto other = std::find_if(rows.begin(), rows.end(), [&](const auto& r) {
    return std::fabs(r.second - rows[0].second) > 1e-3 * std::fabs(rows[0].second);
  });
  if (other == rows.end()) return "";
  char b[160];
  std::snprintf(b, sizeof(b), " (row %llu: %.4g times, row %llu: %.4g times)",
                (unsigned long long)rows[0].first, rows[0].second, (unsigned long long)other->first,
                other->second);
  return std::string(". In each row the values are off by one factor, the row's own") + b +
         ": right against each other, scaled wrong: what each row is divided by (its sum, its "
         "maximum) is wrong";
}

// What the wrong values themselves tell: NaN or inf, else a shift, else one
// error for all, else one factor a row.
// When (nearly) every wrong element kept is NaN, or infinite: where such
// values come from. "" otherwise.
std::string not_finite(const trace::Comparison& c) {
  size_t nan = 0, inf = 0;
  for (const trace::WrongElement& e : c.elements) {
    const double got = std::strtod(e.got.c_str(), nullptr);
    nan += std::isnan(got);
    inf += std::isinf(got);
  }
  const size_t n = c.elements.size();
  if (n == 0) return "";
  if (nan * 10 >= n * 9)
    return ". They are NaN (not a number), which 0/0, inf/inf and inf - inf give (-INFINITY - "
           "-INFINITY too), and every sum or product with a NaN: look for a divisor that came "
           "out 0 (every term underflowed, as expf(x - m) does when m is far above x), a value "
           "that overflowed to inf (a float's expf above about 88) or a maximum still -INFINITY";
  if ((nan + inf) * 10 >= n * 9)
    return ". They are infinite: a value too large for its type (a float's expf above about 88) "
           "or a division by 0";
  return "";
}

// What the values say of themselves (NaN or inf, one error for all, a
// factor per row), beside the shifts, which say more and go first.
std::string value_kind_tell(const trace::Comparison& c) {
  if (std::string weird = not_finite(c); !weird.empty()) return weird;
  if (std::string same = same_error(c); !same.empty()) return same;
  return per_row_factor(c);
}

// The sentences of `line` from its start that fit in `room` characters
// (each ending with a period or a question mark); "" when the first does
// not fit.
std::string sentences_within(const std::string& line, size_t room) {
  if (line.size() <= room) return line;
  for (size_t k = std::min(room, line.size() - 1); k > 0; --k)
    if ((line[k - 1] == '.' || line[k - 1] == '?') && line[k] == ' ') return line.substr(0, k);
  return "";
}

// What a lesson's test said of its wrong values after listing them (the
// scan's "Tile 3 is scanned right within itself, but ..."): its lines
// after "N of M elements are wrong", its notes in parentheses left out,
// while they fit in about three lines of the headline (a line longer than
// that to its last full sentence that fits). "" when it said nothing more.
std::string test_explanation(const std::string& output) {
  constexpr size_t kBudget = 330;
  const std::string mark = "elements are wrong (first at the top)";
  const size_t listed = output.rfind(mark);
  if (listed == std::string::npos) return "";
  std::string said;
  size_t start = output.find('\n', listed);
  while (start != std::string::npos && start + 1 < output.size()) {
    const size_t end = std::min(output.find('\n', start + 1), output.size());
    std::string line = output.substr(start + 1, end - start - 1);
    start = end < output.size() ? end : std::string::npos;
    const size_t first = line.find_first_not_of(' ');
    if (first == std::string::npos) continue;
    line.erase(0, first);
    if (line.rfind("What your program printed", 0) == 0) break;
    if (line[0] == '(') continue;
    const size_t room = kBudget - std::min(kBudget, said.size() + 1);
    if (line.size() > room) {
      if (!said.empty()) break;
      line = sentences_within(line, room);
      if (line.empty()) break;
    }
    said += (said.empty() ? "" : " ") + line;
  }
  return said;
}

// Who stored the first wrong element last, and at which line: where to
// look when no check finds the bug (the arithmetic of that line, or what
// it read). ", written last by thread (5,0,0) of block (1,0,0) at
// add.cu:12"; "" when no store of the trace reached it.
std::string last_writer(const trace::Trace& t, const trace::Comparison& c, size_t shown) {
  if (c.elements.empty() || c.allocation == 0) return "";
  const uint64_t first = c.offset + c.elements.front().index * c.element_bytes;
  const uint64_t end = first + c.element_bytes;
  trace::LaneAddress lanes[32];
  for (size_t k = t.launches.size(); k-- > 0;) {
    const trace::Launch& l = t.launches[k];
    for (size_t i = l.requests.size(); i-- > 0;) {
      const trace::Request& r = l.requests[i];
      if (!r.write() || r.mask == 0 || r.shared() || r.lanes_at >= l.lane_data.size()) continue;
      const int n = l.lanes_of(r, lanes);
      for (int j = n; j-- > 0;) {
        const trace::LaneAddress& a = lanes[j];
        if (a.allocation != c.allocation || a.offset + r.size <= first || a.offset >= end) continue;
        const std::string where = t.where(r.pc);
        std::string s =
            std::string(r.atomic() ? ", updated last by an atomic of " : ", written last by ") +
            whose(l, r.block, int64_t(r.warp) * 32 + a.lane);
        if (k != shown) s += " in " + l.kernel;
        return where == "?" ? s : s + " at " + file_name(where);
      }
    }
  }
  return "";
}

// How often the launch read each element of a buffer it only read (an
// input), where that can explain a wrong total or a wrong histogram: most
// elements read more than once, by more than one block (the blocks walk
// over each other's parts: the loop's start or stride), a few read more
// than once and the rest once (elements counted twice), or some never read
// and the rest once (elements left out). An element is the smallest access
// made to the buffer (a float4 load reads four floats). Only inputs of at
// least `min_elements` elements up to the last one read; "" when each was
// read once, or the input is larger than 4 MiB (the counts take 10 bytes a
// byte).
// How far one thread's reads of allocation `id` go from one time round its
// loop to the next: the most common step between the reads of one lane
// (the launch's first reader of it) at one instruction, in bytes (0 when
// it read it once), and how many times that instruction read it.
std::pair<int64_t, uint64_t> thread_step(const trace::Launch& l, uint32_t id) {
  trace::LaneAddress lanes[32];
  const trace::Request* first = nullptr;
  uint32_t lane = 0;
  uint64_t last = 0;
  std::map<int64_t, int> steps;
  for (const trace::Request& r : l.requests) {
    if (r.shared() || r.write() || r.mask == 0 || r.allocation != id) continue;
    if (first && (r.block != first->block || r.warp != first->warp || r.pc != first->pc)) continue;
    const int n = l.lanes_of(r, lanes);
    for (int j = 0; j < n; ++j) {
      if (first && lanes[j].lane != lane) continue;
      if (!first) {
        first = &r, lane = lanes[j].lane;
      } else {
        ++steps[int64_t(lanes[j].offset) - int64_t(last)];
      }
      last = lanes[j].offset;
      break;
    }
  }
  int64_t step = 0;
  int most = 0;
  uint64_t rounds = first ? 1 : 0;
  for (const auto& [s, count] : steps) {
    rounds += uint64_t(count);
    if (count > most) step = s, most = count;
  }
  return {step, rounds};
}

std::string input_reads(const trace::Trace& t, const trace::Launch& l, uint64_t min_elements = 0) {
  constexpr uint32_t kNone = UINT32_MAX;
  struct Reads {
    const trace::Allocation* allocation = nullptr;
    bool written = false;
    uint32_t smallest = 16;              // bytes: the smallest access
    std::vector<uint16_t> count;         // reads of each byte
    std::vector<uint32_t> first, other;  // the first block that read it, another (kNone: none)
  };
  std::vector<Reads> by;  // in the order of first access
  std::unordered_map<uint32_t, size_t> index;
  trace::LaneAddress lanes[32];
  for (const trace::Request& r : l.requests) {
    if (r.shared() || r.mask == 0 || r.lanes_at >= l.lane_data.size()) continue;
    const int n = l.lanes_of(r, lanes);
    for (int j = 0; j < n; ++j) {
      const trace::LaneAddress& a = lanes[j];
      auto it = index.find(a.allocation);
      if (it == index.end()) {
        const trace::Allocation* alloc = t.allocation(a.allocation);
        if (!alloc || alloc->size == 0 || alloc->size > (uint64_t(4) << 20)) continue;
        it = index.emplace(a.allocation, by.size()).first;
        Reads fresh;
        fresh.allocation = alloc;
        by.push_back(std::move(fresh));
      }
      Reads& b = by[it->second];
      if (r.write()) {
        b.written = true;
        continue;
      }
      if (b.written) continue;
      if (b.count.empty()) {
        b.count.assign(b.allocation->size, 0);
        b.first.assign(b.allocation->size, kNone);
        b.other.assign(b.allocation->size, kNone);
      }
      b.smallest = std::min<uint32_t>(b.smallest, r.size);
      const uint64_t end = std::min<uint64_t>(a.offset + r.size, b.allocation->size);
      for (uint64_t x = a.offset; x < end; ++x) {
        if (b.count[x] < UINT16_MAX) ++b.count[x];
        if (b.first[x] == kNone) {
          b.first[x] = r.block;
        } else if (b.first[x] != r.block && b.other[x] == kNone) {
          b.other[x] = r.block;
        }
      }
    }
  }
  for (const Reads& b : by) {
    if (b.written || b.count.empty()) continue;
    const uint64_t e = b.smallest >= 16 ? 4 : std::max<uint32_t>(1, b.smallest);
    const uint64_t elements = b.allocation->size / e;
    uint64_t last = 0, any = 0;
    for (uint64_t i = 0; i < elements; ++i)
      if (b.count[i * e] > 0) last = i, any = 1;
    if (!any || last + 1 < min_elements) continue;
    // Up to the last element read: a graded test leaves a few KiB after
    // its array (its guard), which no kernel should read. A far larger
    // part never read is the input's own end, left out.
    const uint64_t tail = elements - (last + 1);
    const uint64_t n = tail * e > 8192 && tail * 4 > elements ? elements : last + 1;
    uint64_t never = 0, once = 0, more = 0, more_blocks = 0, first_never = 0, first_more = n;
    std::unordered_map<uint16_t, uint64_t> times;
    for (uint64_t i = 0; i < n; ++i) {
      const uint16_t c = b.count[i * e];
      ++times[c];
      if (c == 0) {
        if (never++ == 0) first_never = i;
      } else if (c == 1) {
        ++once;
      } else {
        ++more;
        more_blocks += b.other[i * e] != kNone;
        if (first_more == n) first_more = i;
      }
    }
    const std::string name = b.allocation->name.empty()
                                 ? "allocation " + std::to_string(b.allocation->id)
                                 : b.allocation->name;
    const std::string of = " of the " + std::to_string(n) + " elements of " + name;
    if (more * 2 >= n && more_blocks * 2 >= n) {
      uint16_t k = 0, most_times = 0;  // the count most share; the highest
      uint64_t most = 0;
      for (const auto& [c, m] : times) {
        if (c >= 2 && (m > most || (m == most && c < k))) k = c, most = m;
        most_times = std::max(most_times, c);
      }
      const std::string ask =
          ", by more than one block: do the blocks walk over each other's parts (the loop's "
          "start and stride)?";
      if (most == n)
        return "Each" + of + " was read " + std::to_string(k) + " times in this launch" + ask;
      return std::to_string(more) + of + " were read more than once in this launch (up to " +
             std::to_string(most_times) + " times)" + ask;
    }
    // A few counted twice (most elements read several times by one block
    // is a stencil's reading, not a mistake).
    if (never == 0 && more > 0 && more * 2 < n) {
      const uint64_t i = first_more * e;
      std::string by_whom = "by block " + coordinates(b.first[i], l.grid);
      if (b.other[i] != kNone) by_whom += " and block " + coordinates(b.other[i], l.grid);
      return std::to_string(more) + of +
             " were read more than once in this launch, the rest once (the first: " + name + "[" +
             std::to_string(first_more) + "], " + by_whom + "): counted twice?";
    }
    if (never > 0 && more == 0 && once > 0) {
      const std::string said =
          std::to_string(never) + of +
          " were never read in this launch, the rest once (the first: " + name + "[" +
          std::to_string(first_never) + "])";
      // A loop that steps a whole number of times the grid's threads
      // (the step counted in bytes for elements of several, say) skips
      // what lies between.
      // A thread's piece each time round: the bytes read over the grid's
      // threads and its rounds (a 16-byte load may be four of 4 bytes).
      const auto [step, rounds] = thread_step(l, b.allocation->id);
      const uint64_t threads = l.grid.count() * l.block.count();
      const uint64_t read = once * e;
      const uint64_t piece =
          rounds && read % (threads * rounds) == 0 ? read / (threads * rounds) : 0;
      if (piece > 0 && step > 0 && uint64_t(step) % (threads * piece) == 0 &&
          uint64_t(step) / (threads * piece) > 1)
        return said + ". Each thread's loop steps by " + std::to_string(step / int64_t(piece)) +
               " pieces of " + std::to_string(piece) + " bytes, " +
               std::to_string(uint64_t(step) / (threads * piece)) + " times the grid's " +
               std::to_string(threads) +
               " threads: is the step counted in bytes, or in elements of another size, where "
               "the grid's threads were meant?";
      // Every thread of the grid read one piece, and the loop ended: its
      // first step went past the end.
      if (piece > 0 && piece <= 64 && rounds == 1 && first_never * e == read)
        return said + ". Each of the grid's " + std::to_string(threads) + " threads read one " +
               std::to_string(piece) +
               "-byte piece and its loop ended there: does the loop's step jump past the end "
               "(counted in bytes, or in elements of another size, where the grid's threads "
               "were meant)?";
      return said + ": does a loop stop short or step too far (its bound and stride)?";
    }
  }
  return "";
}

// Elements of the compared array that plain stores of more than one block
// wrote in this launch: two blocks' parts overlap (each block starts at
// the same place: the block's offset left out of the index). Atomics are
// left out (many blocks add to one bin by design). "" when none.
std::string written_by_several_blocks(const trace::Launch& l, const trace::Comparison& c) {
  // (Not for arrays of more than 4M elements: 9 bytes an element here.)
  if (c.allocation == 0 || c.element_bytes == 0 || c.count == 0 || c.count > (uint64_t(1) << 22))
    return "";
  std::vector<int64_t> first(c.count, -1);
  std::vector<bool> several(c.count, false);
  uint64_t written = 0, overlapping = 0, first_overlap = c.count;
  trace::LaneAddress lanes[32];
  auto each_store = [&](auto f) {
    for (const trace::Request& r : l.requests) {
      if (r.kind != 1 || r.shared() || r.mask == 0 || r.lanes_at >= l.lane_data.size()) continue;
      const int n = l.lanes_of(r, lanes);
      for (int j = 0; j < n; ++j) {
        const trace::LaneAddress& a = lanes[j];
        if (a.allocation != c.allocation || a.offset < c.offset) continue;
        const uint64_t i = (a.offset - c.offset) / c.element_bytes;
        if (i < c.count) f(i, int64_t(r.block));
      }
    }
  };
  each_store([&](uint64_t i, int64_t block) {
    if (first[i] < 0) {
      first[i] = block;
      ++written;
    } else if (first[i] != block && !several[i]) {
      several[i] = true;
      ++overlapping;
      first_overlap = std::min(first_overlap, i);
    }
  });
  if (overlapping == 0) return "";
  std::vector<int64_t> blocks;  // the blocks that wrote the first such element
  each_store([&](uint64_t i, int64_t block) {
    if (i == first_overlap && std::find(blocks.begin(), blocks.end(), block) == blocks.end())
      blocks.push_back(block);
  });
  return ". " + std::to_string(overlapping) + " of the " + std::to_string(written) +
         " elements written were written by more than one block (" + c.name + "[" +
         std::to_string(first_overlap) + "] by " + std::to_string(blocks.size()) +
         " blocks): the blocks' parts overlap; does the index leave out the block's offset "
         "(blockIdx.x * blockDim.x)?";
}

// What the writers of the compared array say, when the values do not: the
// only right elements are those one thread of each block wrote (the
// others used a value only it had), or each wrong tile of a square matrix
// was written by the block at its own place (a transpose's block writes
// its mirror's). "" when neither.
std::string writers_tell(const trace::Comparison& c, const trace::Launch& l) {
  if (c.allocation == 0 || c.element_bytes == 0 || c.count == 0 || c.count > (uint64_t(1) << 22) ||
      c.runs.empty())
    return "";
  // The thread and block that stored each element last (atomics left out).
  std::vector<int64_t> thread_of(c.count, -1), block_of(c.count, -1);
  trace::LaneAddress lanes[32];
  for (const trace::Request& r : l.requests) {
    if (r.kind != 1 || r.shared() || r.mask == 0 || r.lanes_at >= l.lane_data.size()) continue;
    const int n = l.lanes_of(r, lanes);
    for (int j = 0; j < n; ++j) {
      if (lanes[j].allocation != c.allocation || lanes[j].offset < c.offset) continue;
      const uint64_t i = (lanes[j].offset - c.offset) / c.element_bytes;
      if (i >= c.count) continue;
      thread_of[i] = int64_t(r.warp) * 32 + lanes[j].lane;
      block_of[i] = r.block;
    }
  }
  std::vector<bool> wrong(c.count, false);
  for (const auto& [start, count] : c.runs)
    for (uint64_t i = start; i < start + count && i < c.count; ++i) wrong[i] = true;
  // Right and wrong elements by the thread (in its block) that wrote them.
  std::map<int64_t, std::pair<uint64_t, uint64_t>> by_thread;  // thread -> (right, wrong)
  uint64_t right = 0, wrong_count = 0;
  for (uint64_t i = 0; i < c.count; ++i) {
    const int64_t thread = thread_of[i];
    if (thread < 0) continue;
    auto& [r, w] = by_thread[thread];
    ++(wrong[i] ? w : r);
    ++(wrong[i] ? wrong_count : right);
  }
  for (const auto& [thread, rw] : by_thread)
    if (right >= 4 && wrong_count > right && rw.first * 10 >= right * 9 &&
        rw.second * 10 <= rw.first)
      return ". The only right ones are those thread " + coordinates(thread, l.block) +
             " of each block wrote: do the other threads use a value only it has (one it "
             "computed alone and did not share, or shared without a barrier before the others "
             "read it)?";
  // A square matrix in tiles of the block's width.
  const uint64_t n = c.row_length, tile = l.block.x;
  if (n < 2 * tile || tile < 4 || c.count != n * n || n % tile != 0) return "";
  uint64_t off_diagonal = 0, own_place = 0;
  for (uint64_t i = 0; i < c.count && off_diagonal < 65536; ++i) {
    const int64_t block = block_of[i];
    if (!wrong[i] || block < 0) continue;
    const uint64_t row_tile = i / n / tile, column_tile = i % n / tile;
    if (row_tile == column_tile) continue;
    ++off_diagonal;
    own_place += uint64_t(block) % l.grid.x == column_tile &&
                 uint64_t(block) / l.grid.x % l.grid.y == row_tile;
  }
  if (off_diagonal >= 4 && own_place * 10 >= off_diagonal * 9)
    return ". Each wrong " + std::to_string(tile) +
           "-wide tile was written by the block at its "
           "own place (block (x, y) wrote the tile at column x, row y): a transpose's block "
           "writes the tile at its mirror (are blockIdx.x and blockIdx.y swapped for the "
           "output?)";
  return "";
}

// When every store and atomic to the compared array came from one thread
// of each block (the same thread index in each), and some elements were
// never written: that thread's loop is where to look ("" otherwise).
std::string one_writer_tell(const trace::Trace& t, const trace::Comparison& c,
                            const trace::Launch& l) {
  if (c.allocation == 0 || c.element_bytes == 0 || c.count == 0) return "";
  int64_t writer = -1;
  uint64_t pc = 0, low = c.count, high = 0, written = 0;
  // The block that wrote each element first (-1: none): two blocks' plain
  // stores on one element is another mistake (written_by_several_blocks
  // says it); their atomics are a design (bins all blocks add to).
  std::vector<int64_t> block_of(std::min<uint64_t>(c.count, uint64_t(1) << 22), -1);
  trace::LaneAddress lanes[32];
  for (const trace::Request& r : l.requests) {
    if (!r.write() || r.shared() || r.mask == 0 || r.lanes_at >= l.lane_data.size()) continue;
    const int n = l.lanes_of(r, lanes);
    for (int j = 0; j < n; ++j) {
      if (lanes[j].allocation != c.allocation || lanes[j].offset < c.offset) continue;
      const uint64_t i = (lanes[j].offset - c.offset) / c.element_bytes;
      if (i >= block_of.size()) continue;
      const int64_t thread = int64_t(r.warp) * 32 + lanes[j].lane;
      if (writer >= 0 && thread != writer) return "";
      if (block_of[i] >= 0 && block_of[i] != int64_t(r.block) && !r.atomic()) return "";
      if (writer < 0) writer = thread, pc = r.pc;
      if (block_of[i] < 0) block_of[i] = r.block, ++written;
      low = std::min(low, i);
      high = std::max(high, i);
    }
  }
  if (writer < 0 || l.block.count() < 2 || written >= c.count || written == 0) return "";
  std::string s = ". The elements written (" + std::to_string(written) + ", from " + c.name + "[" +
                  std::to_string(low) + "] to " + c.name + "[" + std::to_string(high) +
                  "]) were all written by thread " + coordinates(writer, l.block) +
                  " of each block";
  if (const std::string where = t.where(pc); where != "?") s += ", at " + file_name(where);
  return s +
         ": does its loop stop short of the last element, or should every thread of the "
         "block take a share?";
}

// A bad access of thread `thread` of `block` (a memcheck finding's, a
// faulted launch's), set against the
// thread's own good access of the same buffer at another line: one grid
// (gridDim.x * blockDim.x elements) or one block further on, the tell of a
// second element per thread (an unrolled loop, a prefetch) that is not
// checked against the end on its own. "" when there is no such pair.
std::string step_past_end_tell(const trace::Trace& t, const trace::Launch& l, const LaunchMemory& m,
                               int64_t block_index, int64_t thread) {
  if (block_index < 0 || thread < 0) return "";
  const std::vector<trace::Access> mine =
      thread_accesses(l, m, uint32_t(block_index), uint32_t(thread));
  const uint64_t threads = l.grid.count() * l.block.count(), block = l.block.count();
  for (const trace::Access& bad : mine) {
    if (!t.missed(bad) || t.allocation(bad.allocation) == nullptr || bad.size == 0) continue;
    for (const trace::Access& good : mine) {
      if (good.allocation != bad.allocation || t.missed(good) || good.pc == bad.pc ||
          good.size != bad.size || bad.offset <= good.offset)
        continue;
      const uint64_t elements = (bad.offset - good.offset) / bad.size;
      if ((bad.offset - good.offset) % bad.size != 0 || (elements != threads && elements != block))
        continue;
      const std::string at = file_name(t.where(bad.pc)), before = file_name(t.where(good.pc));
      return ". The access at " + at + " is " + std::to_string(elements) + " elements (one " +
             (elements == threads ? "grid: gridDim.x * blockDim.x" : "block: blockDim.x") +
             ") past this thread's own at " + before +
             ", and nothing checks it against the end: " + "the index at " + at +
             " needs a bound check of its own (a second element per thread, a loop's next "
             "step)";
    }
  }
  return "";
}

// What a memcheck finding's accesses past the end of a buffer have in
// common: only the element just past the end (index n of n: a loop or a
// check that goes one too far, an index one too high), or many elements
// past it, from several threads (no check of the index against the size,
// or one that tests another index). "" when neither is clear: a read
// before the start, no buffer named.
std::string past_end_tell(const trace::Trace& t, const trace::Launch& l, const LaunchMemory& m,
                          const trace::Finding& f) {
  if (f.tool != "memcheck" || f.message.find("after the last byte of") == std::string::npos)
    return "";
  const bool one_past = f.message.rfind("1 byte after the last byte of", 0) == 0 ||
                        f.message.rfind("1 bytes after the last byte of", 0) == 0;
  const std::string one =
      ". It is the element just past the end (index n of an array of n): does a loop or a check "
      "go one too far (<= where < was meant), or is the index one too high?";
  if (f.space == "__shared__") {
    if (one_past && f.count <= l.grid.count()) return one;
    // The first thread past the end of a static array whose elements (of
    // 4 or 8 bytes) are fewer than the block's threads: the array is
    // smaller than the threads that index it.
    const size_t at = f.message.find("(static __shared__, ");
    if (at == std::string::npos || f.thread <= 0) return "";
    const uint64_t bytes = std::strtoull(f.message.c_str() + at + 20, nullptr, 10);
    // The element read, from "N bytes after the last byte" (4-byte
    // elements): a partner d past the thread's own, d dividing the block
    // (a tree's offset), is a tree whose reader is not checked first.
    const uint64_t after = std::strtoull(f.message.c_str(), nullptr, 10);
    if (bytes % 4 == 0 && after > 0 && (bytes + after - 1) % 4 == 0) {
      const uint64_t element = (bytes + after - 1) / 4, own = uint64_t(f.thread);
      const uint64_t d = element > own ? element - own : 0;
      if (d > 0 && own < bytes / 4 && l.block.count() % d == 0)
        return ". Thread " + std::to_string(own) + " reads element " + std::to_string(own) + " + " +
               std::to_string(d) + " of an array of " + std::to_string(bytes / 4) + ": a partner " +
               std::to_string(d) +
               " away. In a tree the first offset is half the elements (blockDim.x / 2 for an "
               "element per thread), and a thread reads its partner only when tid < offset: "
               "is the offset too large, or is the check after the read?";
    }
    for (uint64_t element : {4, 8})
      if (bytes == uint64_t(f.thread) * element && l.block.count() > uint64_t(f.thread))
        return ". Thread " + std::to_string(f.thread) +
               " is the first past the end: the array has " + std::to_string(f.thread) +
               " elements and the block " + std::to_string(l.block.count()) +
               " threads that index it: is it declared too small (an element per thread), or "
               "should those threads not get to this line?";
    return "";
  }
  const size_t open = f.message.find('`'), close = f.message.find('`', open + 1);
  if (open == std::string::npos || close == std::string::npos) return "";
  const std::string name = f.message.substr(open + 1, close - open - 1);
  const std::string line = file_name(f.where);
  for (const BufferMap& b : m.buffers) {
    if (b.allocation == nullptr || b.allocation->name != name) continue;
    uint64_t low = ~uint64_t(0), high = 0, bad = 0, size = 1;
    std::vector<std::pair<uint32_t, uint32_t>> threads;  // (block, thread), the first 4
    for (const trace::Access& x : b.missed) {
      if (x.offset < b.allocation->size || x.offset - b.allocation->size > (uint64_t(1) << 40) ||
          file_name(t.where(x.pc)) != line)
        continue;
      ++bad;
      size = std::max<uint64_t>(x.size, 1);
      low = std::min(low, x.offset);
      high = std::max(high, x.offset);
      if (threads.size() < 4 &&
          std::find(threads.begin(), threads.end(), std::pair(x.block, x.thread)) == threads.end())
        threads.emplace_back(x.block, x.thread);
    }
    if (bad == 0) return "";
    if (one_past && low == high) return one;
    if (bad < 2 || threads.size() < 2) return "";
    return ". " + std::string(b.missed_count > b.missed.size() ? "At least " : "") +
           std::to_string(bad) + " accesses at " + line + " went past the end of " + name +
           ", from element " + std::to_string(low / size) + " (of " +
           std::to_string(b.allocation->size / size) +
           "), by threads whose index is past it: the index at " + line +
           " needs a check against the size (i < n) before the access, or the check there "
           "tests another index";
  }
  return "";
}

// "3 of the 64 elements of out are wrong (framed in yellow)"
std::string wrong_count(const trace::Comparison& c) {
  return std::to_string(c.wrong) + " of the " + std::to_string(c.count) + " elements of " + c.name +
         " are wrong (framed in yellow)";
}

std::string wrong_words(const trace::Trace& t, const trace::Comparison& c, const trace::Launch& l,
                        const LaunchMemory& m, size_t shown, const std::string& explained) {
  std::string s = wrong_count(c);
  // An unordered atomic in shared memory, or lanes that should not have
  // added, is the cause where there is one (no check reports either);
  // else values shifted from their places, else what their writers have in
  // common; else what the lesson's test said of them (it knows its inputs
  // and the usual mistakes), with what the values say of themselves when
  // both fit; else what the values say.
  auto tell = [&]() -> std::string {
    if (std::string hazard = shared_atomic_hazard(t, l); !hazard.empty())
      return ". " + sentence(hazard);
    if (std::string lanes = atomic_lanes(t, l, c.allocation); !lanes.empty())
      return ". " + sentence(lanes);
    if (std::string shift = shifted(c); !shift.empty()) return shift;
    if (std::string writers = writers_tell(c, l); !writers.empty()) return writers;
    const std::string v = value_kind_tell(c);
    if (!explained.empty()) {
      std::string said = ". " + sentence(explained);
      if (explained.size() + v.size() <= 420 && !v.empty()) {
        if (said.back() == '.') said.pop_back();
        said += v;
      }
      return said;
    }
    return v;
  };
  if (std::string pattern = pattern_of(c, l, m); !pattern.empty())
    return s + ": " + pattern +
           (pattern.rfind("no thread wrote any", 0) == 0
                ? one_writer_tell(t, c, l)
                : first_wrong(c) + last_writer(t, c, shown) + tell()) +
           written_by_several_blocks(l, c);
  const std::string elsewhere = written_elsewhere(t, c.allocation, c.name);
  // An output far smaller than an input (a histogram, partial sums) is a
  // count of the input: how the input was read may be why it is wrong.
  const std::string reads = input_reads(t, l, 4 * c.count);
  return s + first_wrong(c) + last_writer(t, c, shown) + tell() + written_by_several_blocks(l, c) +
         (reads.empty() ? untouched_inputs(m, c.allocation) : ". " + reads) + elsewhere;
}

// What the thread a stopped launch names (it never finished) had been
// doing: a few elements over and over (a loop whose index does not move),
// or one buffer walked in steps that the launch's shape explains (a
// grid-stride loop stepping by one block instead of the whole grid).
std::string never_ended_tell(const trace::Trace& t, const trace::Launch& l, const LaunchMemory& m) {
  const auto [block, thread] = stopped_thread(l);
  const std::vector<trace::Access> a = thread_accesses(l, m, block, thread);
  if (a.size() < 16) return "";
  // The thread the headline names first, or another whose accesses the
  // trace holds.
  const std::string who = block == l.fault.block && thread == l.fault.thread
                              ? "Its"
                              : "Thread " + coordinates(thread, l.block) + " of block " +
                                    coordinates(block, l.grid) + "'s";
  auto name_of = [&](uint32_t id) {
    const trace::Allocation* al = t.allocation(id);
    return al && !al->name.empty() ? al->name : "allocation " + std::to_string(id);
  };
  std::map<std::pair<uint32_t, uint64_t>, uint64_t> seen;  // element -> accesses
  for (const trace::Access& x : a)
    if (!x.shared()) ++seen[{x.allocation, x.offset}];
  const std::string made = who + " " + std::to_string(a.size()) + " recorded accesses ";
  if (!seen.empty() && seen.size() <= 8) {
    std::string which;
    for (const auto& [element, count] : seen) {
      if (!which.empty()) which += ", ";
      const trace::Access* first = nullptr;
      for (const trace::Access& x : a)
        if (x.allocation == element.first && x.offset == element.second) {
          first = &x;
          break;
        }
      which += name_of(element.first) + "[" +
               std::to_string(element.second / std::max<uint64_t>(1, first->size)) + "]";
    }
    const std::string round = made + "go round the same " + std::to_string(seen.size()) +
                              " element" + (seen.size() > 1 ? "s" : "") + " (" + which +
                              ") again and again";
    // An atomic among them: a wait for a value no other thread gives (a
    // lock held by a thread of the same warp, a flag never set).
    if (std::any_of(a.begin(), a.end(), [](const trace::Access& x) { return x.atomic; }))
      return round +
             ", waiting with an atomic: does another thread ever give the value it "
             "waits for (a lock held by a thread of its own warp, a flag never set)?";
    return round +
           ": the loop never moves on. Does its index change each time round (i += "
           "step, not i + step)?";
  }
  // The step between the thread's successive accesses at one line (the
  // loop's index going up), in elements.
  std::map<int64_t, uint64_t> steps;                           // step -> times
  std::unordered_map<uint64_t, const trace::Access*> last_at;  // pc -> last access there
  for (const trace::Access& x : a) {
    if (x.shared() || x.size == 0) continue;
    if (auto it = last_at.find(x.pc); it != last_at.end() && it->second->allocation == x.allocation)
      ++steps[(int64_t(x.offset) - int64_t(it->second->offset)) / int64_t(x.size)];
    last_at[x.pc] = &x;
  }
  if (steps.empty()) return "";
  const auto common = std::max_element(
      steps.begin(), steps.end(), [](const auto& p, const auto& q) { return p.second < q.second; });
  const int64_t step = common->first;
  if (step <= 0) return "";
  const uint64_t per_block = l.block.count(), all = per_block * l.grid.count();
  std::string s = made + "walk through memory " + std::to_string(step) + " element" +
                  (step > 1 ? "s" : "") + " at a time";
  if (uint64_t(step) == per_block && l.grid.count() > 1)
    return s + ": one block's threads (blockDim.x), while the grid has " + std::to_string(all) +
           " threads. Every block walks over the same elements: should a grid-stride loop step "
           "by the whole grid (blockDim.x * gridDim.x)?";
  if (uint64_t(step) == all)
    return s +
           ", the whole grid's threads (a grid-stride loop): is the loop's end the array's "
           "size, or does the test ask far more work than it needs?";
  return s + ". Is the loop's end the array's size, and its step the one you meant?";
}

const trace::GradedTestResult* shown_test(const trace::TestResults& r) {
  const std::string& name = r.shown.empty() ? r.traced_test : r.shown;
  for (const auto& t : r.tests)
    if (t.name == name) return &t;
  return nullptr;
}

// What a test said that is its own, line after line while they fit in
// about three lines of the headline: the grader's line about the checks'
// rerun, which comes first, says less than the test, and what the program
// printed (after "What your program printed") is not the test's. A
// lesson's test says where it ran first ("stage 4, reduce_shuffle: n =
// ..."), then what is wrong ("total is 50327.7; the floats add up to
// 49937.3"), then where to look: the first line alone would leave out
// what is wrong.
std::string own_lines(const std::string& text) {
  constexpr size_t kBudget = 450;  // characters: about four lines at 1024 pixels
  std::string said;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = std::min(text.find('\n', start), text.size());
    std::string line = text.substr(start, end - start);
    start = end + 1;
    if (line.rfind("What your program printed", 0) == 0) break;
    const bool about_rerun = line.rfind("The simulator's checks", 0) == 0 ||
                             line.rfind("(The simulator's checks", 0) == 0;
    const size_t first = line.find_first_not_of(' ');
    if (about_rerun || first == std::string::npos) continue;
    line.erase(0, first);
    if (!said.empty() && said.size() + 2 + line.size() > kBudget) {
      // The sentences of the next line that fit.
      line = sentences_within(line, kBudget - said.size() - 2);
      if (line.empty()) break;
    }
    if (!said.empty()) said += (said.back() == '.' || said.back() == ':') ? " " : ". ";
    said += line;
  }
  return said;
}

}  // namespace

std::string whose(const trace::Launch& l, int64_t block, int64_t thread) {
  std::string s;
  if (thread >= 0) s = "thread " + coordinates(thread, l.block) + " of ";
  return s + "block " + coordinates(block, l.grid);
}

bool has_writes(const BufferMap& b) {
  return std::any_of(b.last_writer_block.begin(), b.last_writer_block.end(),
                     [](int64_t w) { return w >= 0; });
}

bool has_wrong_values(const trace::TestResults& r) {
  return std::any_of(r.compared.begin(), r.compared.end(),
                     [](const trace::Comparison& c) { return c.wrong > 0; });
}

std::string file_name(const std::string& where) {
  const size_t slash = where.rfind('/');
  return slash == std::string::npos ? where : where.substr(slash + 1);
}

int focus_finding(const std::vector<trace::Finding>& findings) {
  // By tool, then one that names a thread (it can be selected) before one
  // that names a block alone, then a bad write before a bad read, then the
  // one seen most often (of two races, the one that spoils most results).
  // Of two bad accesses, a write before a read: an array too small is
  // written past its end by the threads it has no room for, and read past
  // it after (the reads are what the writes left).
  auto rank = [&](size_t i) {
    const bool read =
        findings[i].tool == "memcheck" && findings[i].kind.find("write") == std::string::npos;
    return std::tuple(tool_rank(findings[i].tool), findings[i].thread < 0 ? 1 : 0, read ? 1 : 0,
                      -int64_t(findings[i].count));
  };
  int best = -1;
  for (size_t i = 0; i < findings.size(); ++i)
    if (best < 0 || rank(i) < rank(size_t(best))) best = int(i);
  return best;
}

bool finding_leads(const trace::Finding& f, bool wrong_values) {
  return !(wrong_values && f.tool == "initcheck");
}

Headline headline(const trace::Trace& t, const trace::TestResults* results, size_t launch,
                  const LaunchMemory& m) {
  Headline h;
  if (launch >= t.launches.size()) return h;
  const trace::Launch& l = t.launches[launch];
  const trace::GradedTestResult* test = results ? shown_test(*results) : nullptr;
  const std::string prefix =
      test && test->status != "passed"
          ? (test->kind == "rubric" ? "Rubric " : "Test ") + test->name + " failed. "
          : "";
  if (l.faulted && l.fault.known) {
    h.kind = HeadlineKind::kFault;
    if (l.fault.never_ended) {
      h.text = prefix + "The kernel " + l.kernel + " never finished: it was stopped with " +
               whose(l, l.fault.block, l.fault.thread) + " at " + file_name(l.fault.where) + ".";
      const std::string tell = never_ended_tell(t, l, m);
      h.text += " " + (tell.empty() ? "A loop that never ends, or far more work than the test "
                                      "needs?"
                                    : tell);
      return h;
    }
    h.text = prefix + "The kernel " + l.kernel +
             " stopped: " + whose(l, l.fault.block, l.fault.thread) + " at " +
             file_name(l.fault.where) + ": " + l.fault.what;
    if (const std::string step = step_past_end_tell(t, l, m, l.fault.block, l.fault.thread);
        !step.empty()) {
      h.text += step;
    } else if (const size_t at = l.fault.what.find(": "); at != std::string::npos) {
      // The bad access in a finding's words, for what the launch's other
      // accesses past that buffer's end have in common.
      trace::Finding bad;
      bad.tool = "memcheck";
      bad.message = l.fault.what.substr(at + 2);
      bad.where = l.fault.where;
      h.text += past_end_tell(t, l, m, bad);
    }
    return h;
  }
  const trace::Comparison* wrong = results ? wrong_comparison(*results) : nullptr;
  const int f = focus_finding(l.findings);
  if (f >= 0 && finding_leads(l.findings[size_t(f)], wrong != nullptr)) {
    h.kind = HeadlineKind::kFinding;
    const trace::Finding& x = l.findings[size_t(f)];
    h.text = prefix + finding_words(l, x);
    if (l.findings.size() > 1)
      h.text += "; " + std::to_string(l.findings.size() - 1) + " more finding" +
                (l.findings.size() > 2 ? "s" : "") + " under the launch";
    if (x.tool == "memcheck") {
      const std::string step = step_past_end_tell(t, l, m, x.block, x.thread);
      h.text += step.empty() ? past_end_tell(t, l, m, x) : step;
    }
    // Wrong values no thread wrote are a second symptom worth its words (an
    // index off by one reads past the end and leaves the first unwritten).
    if (wrong)
      if (const std::string pattern = pattern_of(*wrong, l, m); pattern.rfind("no thread", 0) == 0)
        h.text += ". " + std::to_string(wrong->wrong) + " of the " + std::to_string(wrong->count) +
                  " elements of " + wrong->name + " are wrong (framed in yellow): " + pattern;
    return h;
  }
  if (wrong) {
    h.kind = HeadlineKind::kWrongValues;
    const std::string explained = test ? test_explanation(test->output) : "";
    if (f < 0) {
      h.text = prefix + wrong_words(t, *wrong, l, m, launch, explained);
      return h;
    }
    // An uninitialized read whose check says why (the lines that write the
    // array, a barrier missing after them) is the cause: it goes first,
    // after how many values are wrong.
    const trace::Finding& x = l.findings[size_t(f)];
    const std::string read = ". " + x.tool + ": " + x.kind + " read at " + file_name(x.where);
    if (x.advice.empty())
      h.text = prefix + wrong_words(t, *wrong, l, m, launch, explained) + read;
    else
      h.text = prefix + wrong_count(*wrong) + read + " (" + whose(l, x.block, x.thread) +
               "): " + x.advice;
    return h;
  }
  if (test && test->status != "passed") {
    h.kind = HeadlineKind::kTest;
    const std::string said = own_lines(test->output);
    h.text = prefix + (said.empty() ? test->verdict : said);
    // A total printed has no element to frame: an unordered atomic in
    // shared memory, lanes that should not have added to it, or how the
    // launch read its input may show where it went wrong.
    std::string tell = shared_atomic_hazard(t, l);
    for (size_t i = 0; i < t.allocations.size() && tell.empty(); ++i)
      tell = atomic_lanes(t, l, t.allocations[i].id);
    if (tell.empty()) tell = input_reads(t, l);
    if (!tell.empty()) {
      if (!h.text.empty() && h.text.back() != '.') h.text += '.';
      h.text += " " + sentence(tell);
    }
  }
  return h;
}

}  // namespace cudalab::viz
