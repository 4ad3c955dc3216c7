// libFuzzer target: the trace reader on any bytes. Before parsing, each
// record's checksum is set to match its payload (as far as the records'
// lengths go), so that the fuzzer gets past the checksums to the parser
// behind them; then every request's lanes are decoded and the metrics
// counted, as `cudalab stats` and the viewer do.
#include <cstdint>
#include <cstring>
#include <vector>

#include "cudalab/trace/format.h"
#include "cudalab/trace/metrics.h"
#include "cudalab/trace/trace.h"

using namespace cudalab::trace;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<char> bytes(data, data + size);
  // A valid header most of the time: the parser behind it is the target.
  if (bytes.size() >= kFileHeaderBytes && (bytes[0] & 1) == 0) {
    std::memcpy(bytes.data(), kMagic, 8);
    const uint32_t version = kTraceVersion;
    std::memcpy(bytes.data() + 8, &version, 4);
  }
  for (size_t pos = kFileHeaderBytes; pos + kRecordHeaderBytes <= bytes.size();) {
    uint32_t len;
    std::memcpy(&len, bytes.data() + pos + 1, 4);
    if (len > bytes.size() - pos - kRecordHeaderBytes) break;
    const uint32_t crc =
        record_crc(bytes.data() + pos, bytes.data() + pos + kRecordHeaderBytes, len);
    std::memcpy(bytes.data() + pos + 5, &crc, 4);
    pos += kRecordHeaderBytes + len;
  }
  try {
    const Trace t = parse_trace(bytes, "fuzz.trace");
    LaneAddress lanes[32];
    for (const Launch& l : t.launches)
      for (const Request& r : l.requests) l.lanes_of(r, lanes);
    for (const Launch& l : t.launches) {
      const KernelMetrics m = launch_metrics(t, l);
      (void)m;
    }
  } catch (const TraceError&) {
  }
  return 0;
}
