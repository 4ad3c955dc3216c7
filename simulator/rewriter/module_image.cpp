// The module image's text form (module_image.h): a first line that names
// it, then one line per field, blobs in base64 so that the text holds no
// NUL and no byte a string or a text file would mangle.
#include "rewriter/module_image.h"

#include <cstdint>
#include <cstring>
#include <sstream>

namespace cudalab::module_image {
namespace {

constexpr const char* kMagic =
    "// cudalab module image: kernels built for the cudalab CPU simulator";
constexpr const char* kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string to_base64(const std::string& in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4 + in.size() / 57 + 1);
  size_t column = 0;
  for (size_t i = 0; i < in.size(); i += 3) {
    uint32_t v = uint32_t(uint8_t(in[i])) << 16;
    if (i + 1 < in.size()) v |= uint32_t(uint8_t(in[i + 1])) << 8;
    if (i + 2 < in.size()) v |= uint32_t(uint8_t(in[i + 2]));
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < in.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += i + 2 < in.size() ? kAlphabet[v & 63] : '=';
    if (++column == 19) {  // lines of 76 characters
      out += '\n';
      column = 0;
    }
  }
  return out;
}

bool from_base64(const char* text, size_t length, std::string* out) {
  static int8_t value[256];
  static const bool ready = [] {
    std::memset(value, -1, sizeof(value));
    for (int i = 0; i < 64; ++i) value[uint8_t(kAlphabet[i])] = int8_t(i);
    return true;
  }();
  (void)ready;
  uint32_t bits = 0;
  int count = 0;
  for (size_t i = 0; i < length; ++i) {
    const char c = text[i];
    if (c == '\n' || c == '\r') continue;
    if (c == '=') break;
    const int v = value[uint8_t(c)];
    if (v < 0) return false;
    bits = (bits << 6) | uint32_t(v);
    if ((count += 6) >= 8) {
      count -= 8;
      *out += char((bits >> count) & 0xff);
    }
  }
  return true;
}

void field(std::string& out, const char* key, const std::string& blob) {
  out +=
      std::string(".") + key + " " + std::to_string(blob.size()) + "\n" + to_base64(blob) + "\n.\n";
}

}  // namespace

std::string encode(const Image& image) {
  std::string out = std::string(kMagic) + " (not PTX: it runs only there)\n";
  field(out, "name", image.name);
  field(out, "source", image.source);
  for (const auto& o : image.options) field(out, "option", o);
  for (const auto& [include_name, text] : image.headers) {
    field(out, "include", include_name);
    field(out, "header", text);
  }
  if (!image.plain.empty()) field(out, "plain", image.plain);
  if (!image.instrumented.empty()) field(out, "instrumented", image.instrumented);
  out += ".end\n";
  out += '\0';
  return out;
}

bool looks_like_image(const char* data) {
  return data && std::strncmp(data, kMagic, std::strlen(kMagic)) == 0;
}

bool decode(const char* data, Image* image, std::string* why) {
  if (!looks_like_image(data)) {
    *why = "it is not a module the cudalab simulator built (cudalab-cc -fatbin, or NVRTC)";
    return false;
  }
  const char* p = std::strchr(data, '\n');
  *image = Image{};
  while (p && *++p) {
    if (std::strncmp(p, ".end", 4) == 0) return true;
    const char* eol = std::strchr(p, '\n');
    const char* space = std::strchr(p, ' ');
    if (*p != '.' || !eol || !space || space > eol) break;
    const std::string key(p + 1, space);
    const char* blob = eol + 1;
    const char* end = std::strstr(blob, "\n.\n");
    if (!end) break;
    std::string value;
    if (!from_base64(blob, size_t(end - blob), &value) ||
        value.size() != std::strtoull(space + 1, nullptr, 10))
      break;
    if (key == "name")
      image->name = value;
    else if (key == "source")
      image->source = value;
    else if (key == "option")
      image->options.push_back(value);
    else if (key == "include")
      image->headers.emplace_back(value, "");
    else if (key == "header" && !image->headers.empty())
      image->headers.back().second = value;
    else if (key == "plain")
      image->plain = value;
    else if (key == "instrumented")
      image->instrumented = value;
    p = end + 2;
  }
  *why = "the module image is damaged (cut short or changed)";
  return false;
}

}  // namespace cudalab::module_image
