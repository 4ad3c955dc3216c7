// The trace library: the format's document and its code say the same, each
// lane encoding reads back what was written, and a changed or cut-short
// file is an error that says so.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <string>

#include "cudalab/trace/encode.h"
#include "cudalab/trace/metrics.h"
#include "cudalab/trace/report_key.h"
#include "cudalab/trace/trace.h"

namespace fs = std::filesystem;
using namespace cudalab::trace;

namespace {

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The rows of the markdown table that follows `header` in `doc`.
std::vector<std::string> table_rows(const std::string& doc, const std::string& header) {
  std::vector<std::string> rows;
  const size_t at = doc.find(header);
  if (at == std::string::npos) return rows;
  std::istringstream in(doc.substr(at));
  std::string line;
  std::getline(in, line);  // the header
  std::getline(in, line);  // | --- |
  while (std::getline(in, line) && line.rfind("|", 0) == 0) rows.push_back(line);
  return rows;
}

TEST(TraceFormat, TheDocumentNamesEveryRecordTypeAsTheCodeDoes) {
  const std::string doc = read_text(fs::path(CUDALAB_DOCS_DIR) / "trace-format.md");
  ASSERT_FALSE(doc.empty());
  std::map<int, std::string> documented;
  const std::regex row(R"(^\| (\d+) \| ([a-z ]+) \|)");
  for (const std::string& line : table_rows(doc, "| type | name | payload |")) {
    std::smatch m;
    ASSERT_TRUE(std::regex_search(line, m, row)) << line;
    documented[std::stoi(m[1])] = m[2];
  }
  std::map<int, std::string> in_code;
  for (const RecordName& r : kRecordNames) in_code[int(r.type)] = std::string(r.name);
  EXPECT_EQ(documented, in_code);
}

TEST(TraceFormat, TheDocumentHasTheCodesVersionAndHeaderSizes) {
  const std::string doc = read_text(fs::path(CUDALAB_DOCS_DIR) / "trace-format.md");
  EXPECT_NE(doc.find("# The cudalab trace format, version " + std::to_string(kTraceVersion)),
            std::string::npos);
  EXPECT_NE(doc.find("| 4 | version, `" + std::to_string(kTraceVersion) + "`"), std::string::npos);
  EXPECT_NE(doc.find("## Header (" + std::to_string(kFileHeaderBytes) + " bytes)"),
            std::string::npos);
  // The request's fields before its lanes add up to kRequestHeadBytes.
  size_t bytes = 0;
  const auto rows = table_rows(doc.substr(doc.find("### Requests")), "| bytes | content |");
  ASSERT_FALSE(rows.empty());
  for (const std::string& line : rows) bytes += std::stoul(line.substr(2));
  EXPECT_EQ(bytes, kRequestHeadBytes);
  // Each encoding's number as the code has it.
  const auto encodings = table_rows(doc, "| encoding | data | offset of lane `l` |");
  ASSERT_EQ(encodings.size(), 3u);
  EXPECT_EQ(encodings[0].rfind("| " + std::to_string(int(LaneEncoding::kPattern)) + " pattern", 0),
            0u);
  EXPECT_EQ(encodings[1].rfind("| " + std::to_string(int(LaneEncoding::kDeltas8)) + ", " +
                                   std::to_string(int(LaneEncoding::kDeltas16)) + ", " +
                                   std::to_string(int(LaneEncoding::kDeltas32)) + " deltas",
                               0),
            0u);
  EXPECT_EQ(encodings[2].rfind("| " + std::to_string(int(LaneEncoding::kEach)) + " each", 0), 0u);
}

TEST(TraceFormat, Crc32IsTheStandardOne) {
  EXPECT_EQ(crc32("123456789", 9), 0xCBF43926u);
  EXPECT_EQ(crc32("", 0), 0u);
  // In pieces, the same as at once.
  EXPECT_EQ(crc32("6789", 4, crc32("12345", 5)), 0xCBF43926u);
}

// A small whole trace: one allocation, one launch of one block of 64
// threads, and the requests given.
class SmallTrace : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = fs::temp_directory_path() /
            ("cudalab-trace-format-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".trace");
  }
  void TearDown() override { fs::remove(path_); }

  // Saves the trace with the requests `encode` appends and `records`
  // (whole records) just before its end record.
  template <class F>
  void save_with(F encode, const std::vector<char>& records) {
    std::vector<char> bytes = write(encode);
    const size_t end_record = bytes.size() - (kRecordHeaderBytes + 12);
    bytes.insert(bytes.begin() + long(end_record), records.begin(), records.end());
    save(bytes);
  }

  // The saved trace read back when it holds its records whole; when one is
  // cut short (`whole` false), none, and reading it must be an error.
  std::optional<Trace> read_back(bool whole) {
    if (whole) return read_trace(path_.string());
    EXPECT_NE(error(), "(no error)");
    return std::nullopt;
  }

  // Writes the trace with the requests `encode` appends; returns its bytes.
  template <class F>
  std::vector<char> write(F encode) {
    std::vector<char> out;
    const auto header = file_header();
    out.insert(out.end(), header.begin(), header.end());
    append_record(out, Record::kProgram, Payload().str("small"));
    append_record(out, Record::kAllocation,
                  Payload().u32(1).u64(0x1000).u64(4096).str("small.cu:3").str("d_x"));
    append_record(out, Record::kAllocation,
                  Payload().u32(2).u64(0x9000).u64(4096).str("small.cu:4").str("d_y"));
    append_record(out, Record::kLaunch,
                  Payload()
                      .u32(1)
                      .str("k")
                      .str("small.cu")
                      .u32(9)
                      .u32(1)
                      .u32(1)
                      .u32(1)
                      .u32(64)
                      .u32(1)
                      .u32(1)
                      .u64(0));
    const size_t at = begin_record(out, Record::kRequests);
    Payload head;
    head.u32(1).u32(0).u32(0).u64(0).u32(0);
    out.insert(out.end(), head.bytes.begin(), head.bytes.end());
    const uint32_t count = encode(out);
    std::memcpy(out.data() + at + kRecordHeaderBytes + kRequestsCountAt, &count, 4);
    finish_record(out, at);
    append_record(out, Record::kLaunchEnd, Payload().u32(1).u8(0).u64(0));
    append_record(out, Record::kEnd, Payload().u64(64).u32(1));
    save(out);
    return out;
  }
  void save(const std::vector<char>& bytes) {
    std::ofstream(path_, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
  }
  std::string error() {
    try {
      read_trace(path_.string());
    } catch (const TraceError& e) {
      return e.what();
    }
    return "(no error)";
  }
  fs::path path_;
};

// Lanes with these offsets (lane l at offsets[l]; -1: not active) in
// allocation 1, or in allocation 2 where other_allocation[l].
struct Lanes {
  int64_t offsets[32];
  bool other_allocation[32] = {};
};

uint32_t encode_lanes(std::vector<char>& out, uint16_t warp, const Lanes& x) {
  LaneAccess at[32];
  const LaneAccess* lanes[32] = {};
  uint32_t mask = 0;
  for (int l = 0; l < 32; ++l) {
    if (x.offsets[l] < 0) continue;
    at[l] = LaneAccess{0x400, uint64_t(x.offsets[l]), x.other_allocation[l] ? 2u : 1u, 4, 0};
    lanes[l] = &at[l];
    mask |= 1u << l;
  }
  encode_request(out, warp, lanes, mask);
  return 1;
}

// One request: a warp reading 32 neighbouring floats.
uint32_t one_warp_of_floats(std::vector<char>& out) {
  Lanes contiguous;
  for (int l = 0; l < 32; ++l) contiguous.offsets[l] = 4 * l;
  return encode_lanes(out, 0, contiguous);
}

TEST_F(SmallTrace, EveryLaneEncodingReadsBackWhatWasWritten) {
  std::vector<Lanes> cases;
  Lanes contiguous, tile, bytes, words, far, mixed, one, some;
  for (int l = 0; l < 32; ++l) {
    contiguous.offsets[l] = 4 * l;                             // a pattern, one stride
    tile.offsets[l] = 4 * (l % 8) + 256 * (l / 8);             // a pattern, W = 8
    bytes.offsets[l] = (l * 37) % 101;                         // deltas of 8 bits
    words.offsets[l] = 1000 + (l * 7919) % 3001;               // deltas of 16 bits
    far.offsets[l] = int64_t(l % 3) * 100000 + (l * 13) % 17;  // deltas of 32 bits
    mixed.offsets[l] = 4 * l;                                  // two allocations: each
    mixed.other_allocation[l] = l % 2 == 1;
    one.offsets[l] = l == 7 ? 40 : -1;  // a single lane
    some.offsets[l] = l % 3 == 0 ? 4 * (31 - l) : -1;
  }
  cases = {contiguous, tile, bytes, words, far, mixed, one, some};
  write([&](std::vector<char>& out) {
    for (const Lanes& c : cases) encode_lanes(out, 1, c);
    return uint32_t(cases.size());
  });
  const Trace t = read_trace(path_.string());
  ASSERT_EQ(t.launches.size(), 1u);
  const Launch& l = t.launches[0];
  ASSERT_EQ(l.requests.size(), cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    LaneAddress got[32];
    const int n = l.lanes_of(l.requests[i], got);
    int k = 0;
    for (uint32_t lane = 0; lane < 32; ++lane) {
      if (cases[i].offsets[lane] < 0) continue;
      ASSERT_LT(k, n) << "case " << i;
      EXPECT_EQ(got[k].lane, lane) << "case " << i;
      EXPECT_EQ(got[k].offset, uint64_t(cases[i].offsets[lane]))
          << "case " << i << " lane " << lane;
      EXPECT_EQ(got[k].allocation, cases[i].other_allocation[lane] ? 2u : 1u) << "case " << i;
      ++k;
    }
    EXPECT_EQ(k, n) << "case " << i;
  }
  // The regular ones are small: a pattern takes 9 bytes after the encoding.
  EXPECT_EQ(uint8_t(l.lane_data[l.requests[0].lanes_at]), uint8_t(LaneEncoding::kPattern));
  EXPECT_EQ(uint8_t(l.lane_data[l.requests[1].lanes_at]), uint8_t(LaneEncoding::kPattern));
  EXPECT_EQ(uint8_t(l.lane_data[l.requests[2].lanes_at]), uint8_t(LaneEncoding::kDeltas8));
  EXPECT_EQ(uint8_t(l.lane_data[l.requests[3].lanes_at]), uint8_t(LaneEncoding::kDeltas16));
  EXPECT_EQ(uint8_t(l.lane_data[l.requests[4].lanes_at]), uint8_t(LaneEncoding::kDeltas32));
  EXPECT_EQ(uint8_t(l.lane_data[l.requests[5].lanes_at]), uint8_t(LaneEncoding::kEach));
}

TEST_F(SmallTrace, AChangedByteIsAnErrorThatNamesTheRecord) {
  std::vector<char> bytes = write(one_warp_of_floats);
  ASSERT_NO_THROW(read_trace(path_.string()));
  // Every byte of every payload is covered: flip each in turn.
  size_t pos = kFileHeaderBytes, checked = 0;
  while (pos < bytes.size()) {
    uint32_t len;
    std::memcpy(&len, bytes.data() + pos + 1, 4);
    const std::string name(record_name(uint8_t(bytes[pos])));
    // A record's type: every other type, known or of a later version, is
    // caught by the checksum rather than read as that type or skipped.
    for (int other = 0; other < 256; ++other) {
      if (other == uint8_t(bytes[pos])) continue;
      std::vector<char> changed = bytes;
      changed[pos] = char(other);
      save(changed);
      const std::string e = error();
      EXPECT_NE(e.find("does not match its checksum"), std::string::npos)
          << "type " << other << " at byte " << pos << ": " << e;
    }
    // Its length: a record then ends too early or too late.
    for (size_t i = pos + 1; i < pos + 5; ++i)
      for (int bit = 0; bit < 8; ++bit) {
        std::vector<char> changed = bytes;
        changed[i] = char(changed[i] ^ (1 << bit));
        save(changed);
        const std::string e = error();
        EXPECT_TRUE(e.find("does not match its checksum") != std::string::npos ||
                    e.find("is truncated") != std::string::npos)
            << "length byte " << i << " bit " << bit << ": " << e;
      }
    for (size_t i = pos + kRecordHeaderBytes; i < pos + kRecordHeaderBytes + len; ++i) {
      std::vector<char> changed = bytes;
      changed[i] ^= 0x10;
      save(changed);
      const std::string e = error();
      EXPECT_NE(e.find("does not match its checksum"), std::string::npos)
          << "byte " << i << ": " << e;
      EXPECT_NE(e.find("(" + name + ","), std::string::npos) << e;
      ++checked;
    }
    pos += kRecordHeaderBytes + len;
  }
  EXPECT_GT(checked, 100u);
}

TEST_F(SmallTrace, ACutShortFileIsAnErrorThatSaysSo) {
  const std::vector<char> bytes = write(one_warp_of_floats);
  for (size_t keep = kFileHeaderBytes; keep < bytes.size(); ++keep) {
    save(std::vector<char>(bytes.begin(), bytes.begin() + long(keep)));
    EXPECT_NE(error().find("is truncated"), std::string::npos) << keep << ": " << error();
  }
  save(std::vector<char>(bytes.begin(), bytes.begin() + 10));
  EXPECT_NE(error().find("is not a cudalab trace"), std::string::npos) << error();
}

TEST_F(SmallTrace, AnOlderVersionIsAnErrorThatSaysWhichAndWhatToDo) {
  std::vector<char> bytes = write(one_warp_of_floats);
  const uint32_t three = 3;
  std::memcpy(bytes.data() + 8, &three, 4);
  save(bytes);
  EXPECT_NE(error().find("is a version 3 trace; this cudalab reads versions " +
                         std::to_string(cudalab::trace::kOldestReadableVersion) + " to " +
                         std::to_string(kTraceVersion) + ". Record it again"),
            std::string::npos)
      << error();
  // Version 4 is still read: it lacks only the stray accesses and the
  // faulting thread, which its records never have.
  const uint32_t four = 4;
  std::memcpy(bytes.data() + 8, &four, 4);
  save(bytes);
  EXPECT_EQ(error(), "(no error)") << "a version 4 trace is read";
}

// Found by tests/fuzz: a lane pattern's row width past 32 lanes (a shift
// past 64 bits), and a launch larger than CUDA allows (a block of 2^40
// threads made the metrics allocate terabytes).
TEST_F(SmallTrace, APatternWiderThanAWarpIsCorrupt) {
  write([](std::vector<char>& out) {
    const size_t at = out.size();
    const uint32_t n = one_warp_of_floats(out);
    out[at + kRequestHeadBytes] = char(251);  // log2 W, just after the encoding byte
    return n;
  });
  EXPECT_NE(error().find("row width is not 2 to 32 lanes"), std::string::npos) << error();
}

TEST_F(SmallTrace, ALaunchLargerThanCudaAllowsIsCorrupt) {
  std::vector<char> out;
  const auto header = file_header();
  out.insert(out.end(), header.begin(), header.end());
  append_record(out, Record::kLaunch,
                Payload()
                    .u32(1)
                    .str("k")
                    .str("k.cu")
                    .u32(1)
                    .u32(1)
                    .u32(1)
                    .u32(1)
                    .u32(1u << 20)
                    .u32(1u << 20)
                    .u32(1)
                    .u64(0));
  append_record(out, Record::kEnd, Payload().u64(0).u32(1));
  save(out);
  EXPECT_NE(error().find("larger than CUDA allows"), std::string::npos) << error();
}

// A launch record ends with the code that runs its threads (which tells
// apart the kernels one call of a template launches); a trace written
// before that field reads as 0.
TEST_F(SmallTrace, ALaunchKeepsItsCodeAddressAndAnOlderOneReadsAsZero) {
  for (const bool with_code : {true, false}) {
    std::vector<char> out;
    const auto header = file_header();
    out.insert(out.end(), header.begin(), header.end());
    Payload launch;
    launch.u32(1).str("k<N>").str("k.cu").u32(1).u32(4).u32(1).u32(1).u32(64).u32(1).u32(1).u64(0);
    if (with_code) launch.u64(0x401234);
    append_record(out, Record::kLaunch, launch);
    append_record(out, Record::kEnd, Payload().u64(0).u32(1));
    save(out);
    const Trace t = read_trace(path_.string());
    ASSERT_EQ(t.launches.size(), 1u);
    EXPECT_EQ(t.launches[0].code, with_code ? 0x401234u : 0u);
    EXPECT_EQ(t.launches[0].grid.x, 4u);
  }
}

// Found by tests/fuzz: the metrics took a request's code address of all
// ones for "no code address yet" and counted it through a null pointer.
TEST_F(SmallTrace, ARequestAtTheLastCodeAddressIsCounted) {
  write([](std::vector<char>& out) {
    LaneAccess at[32];
    const LaneAccess* lanes[32] = {};
    for (int l = 0; l < 32; ++l) {
      at[l] = LaneAccess{~uint64_t(0), uint64_t(4 * l), 1u, 4, 0};
      lanes[l] = &at[l];
    }
    encode_request(out, 0, lanes, 0xffffffffu);
    return 1u;
  });
  const Trace t = read_trace(path_.string());
  ASSERT_EQ(t.launches.size(), 1u);
  const std::vector<cudalab::trace::KernelMetrics> m = cudalab::trace::memory_metrics(t);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].loads.requests, 1u);
  EXPECT_EQ(m[0].loads.sectors, 4u);
}

// The loops whose count is known when compiled (record 18): a code
// address is in one from its first to its last, both included; a count
// larger than the record holds is an error, not a read past its end.
TEST_F(SmallTrace, UnrolledLoopsReadBackAndACountPastTheRecordIsAnError) {
  for (const bool whole : {true, false}) {
    std::vector<char> loops;
    Payload p;
    p.u32(whole ? 2 : 3).u64(0x1000).u64(0x1040).u64(0x2000).u64(0x2000);
    append_record(loops, Record::kUnrolledLoops, p);
    save_with(one_warp_of_floats, loops);
    const std::optional<Trace> read = read_back(whole);
    if (!read) continue;
    const Trace& t = *read;
    ASSERT_EQ(t.unrolled_loops.size(), 2u);
    EXPECT_TRUE(t.in_unrolled_loop(0x1000));
    EXPECT_TRUE(t.in_unrolled_loop(0x1040));
    EXPECT_TRUE(t.in_unrolled_loop(0x2000));
    EXPECT_FALSE(t.in_unrolled_loop(0x0fff));
    EXPECT_FALSE(t.in_unrolled_loop(0x1041));
    EXPECT_FALSE(t.in_unrolled_loop(0x2001));
  }
}

TEST_F(SmallTrace, ChainsAndBranchTargetsReadBackAndACountPastTheRecordIsAnError) {
  for (const bool whole : {true, false}) {
    std::vector<char> more;
    // Launch 1's warp steps at two blocks, the first's lanes parted.
    append_record(
        more, Record::kWarpSteps,
        Payload().u32(1).u32(2).u64(0x4000).u64(10).u64(320).u64(4).u64(0x4100).u64(6).u64(40).u64(
            0));
    append_record(more, Record::kBranchTargets,
                  Payload().u32(1).u32(whole ? 1 : 2).u64(0x4000).u64(13));
    append_record(
        more, Record::kChains,
        Payload().u32(2).u64(0x4000).u32(7).u32(0).u32(1).u64(0x4100).u32(3).u32(5).u32(0));
    save_with(one_warp_of_floats, more);
    const std::optional<Trace> read = read_back(whole);
    if (!read) continue;
    const Trace& t = *read;
    ASSERT_EQ(t.launches.size(), 1u);
    ASSERT_EQ(t.launches[0].steps.size(), 2u);
    EXPECT_EQ(t.launches[0].steps[0].targets, 13u);
    EXPECT_EQ(t.launches[0].steps[1].targets, 0u);
    const FloatOps& first = t.float_ops.at(0x4000);
    const FloatOps& second = t.float_ops.at(0x4100);
    EXPECT_EQ(first.chain_single, 7u);
    EXPECT_TRUE(first.indirect_jump);
    EXPECT_EQ(second.chain_single, 3u);
    EXPECT_EQ(second.chain_double, 5u);
    EXPECT_FALSE(second.indirect_jump);
  }
}

TEST_F(SmallTrace, ConstantReadsReadBackAndACountPastTheRecordIsAnError) {
  for (const bool whole : {true, false}) {
    std::vector<char> more;
    append_record(
        more, Record::kConstantReads,
        Payload().u32(1).u32(whole ? 2 : 3).u32(0).u64(17).u64(17).u32(5).u64(8).u64(256));
    save_with(one_warp_of_floats, more);
    const std::optional<Trace> read = read_back(whole);
    if (!read) continue;
    const Trace& t = *read;
    ASSERT_EQ(t.launches.size(), 1u);
    const auto& reads = t.launches[0].constant_reads;
    ASSERT_EQ(reads.size(), 2u);
    EXPECT_EQ(reads[0].block, 0u);
    EXPECT_EQ(reads[0].requests, 17u);
    EXPECT_EQ(reads[1].block, 5u);
    EXPECT_EQ(reads[1].requests, 8u);
    EXPECT_EQ(reads[1].addresses, 256u);
  }
}

TEST_F(SmallTrace, ARecordOfALaterVersionIsSkipped) {
  // Type 200 with a payload, before the end record.
  std::vector<char> later;
  append_record(later, Record(200), Payload().u64(7).str("from the future"));
  save_with(one_warp_of_floats, later);
  const Trace t = read_trace(path_.string());
  EXPECT_EQ(t.launches.size(), 1u);
  EXPECT_EQ(t.launches[0].requests.size(), 1u);
}

}  // namespace

// The key a grader gives a checked run, and SipHash-2-4 as its authors
// published it: key 00..0f, messages 00..0e (15 bytes) and none.
TEST(ReportKey, SipHashGivesThePublishedValuesAndKeysRoundTrip) {
  cudalab::trace::ReportKey key{};
  for (int i = 0; i < 16; ++i) key[i] = uint8_t(i);
  std::string fifteen;
  for (int i = 0; i < 15; ++i) fifteen += char(i);
  EXPECT_EQ(cudalab::trace::report_mac(key, fifteen), "a129ca6149be45e5");
  EXPECT_EQ(cudalab::trace::report_mac(key, ""), "726fdb47dd0e0e31");
  cudalab::trace::ReportKey back{};
  ASSERT_TRUE(cudalab::trace::parse_report_key(cudalab::trace::report_key_text(key), &back));
  EXPECT_EQ(back, key);
  EXPECT_FALSE(cudalab::trace::parse_report_key("not a key", &back));
  EXPECT_FALSE(cudalab::trace::parse_report_key(std::string(31, '0') + "g", &back));
}
