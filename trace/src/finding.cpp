// A finding's JSON object, read (see finding.h).
#include "cudalab/trace/finding.h"

#include <nlohmann/json.hpp>

namespace cudalab::trace {
namespace {

std::string text_of(const nlohmann::json& o, const char* key) {
  const auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<FindingFields::Triple> triple_of(const nlohmann::json& o, const char* key) {
  const auto it = o.find(key);
  if (it == o.end() || !it->is_array() || it->size() != 3) return std::nullopt;
  FindingFields::Triple t{};
  for (size_t i = 0; i < 3; ++i) {
    if (!(*it)[i].is_number_unsigned()) return std::nullopt;
    t[i] = (*it)[i].get<uint64_t>();
  }
  return t;
}

}  // namespace

bool finding_fields(const nlohmann::json& o, FindingFields* f) {
  *f = FindingFields();
  if (!o.is_object()) return false;
  f->tool = text_of(o, "tool");
  f->kind = text_of(o, "kind");
  f->kernel = text_of(o, "kernel");
  f->space = text_of(o, "space");
  f->where = text_of(o, "where");
  f->where_other = text_of(o, "where_other");
  f->message = text_of(o, "message");
  f->advice = text_of(o, "advice");
  f->call = text_of(o, "call");
  f->error = text_of(o, "error");
  if (const auto it = o.find("size"); it != o.end() && it->is_number_unsigned())
    f->size = it->get<uint64_t>();
  if (const auto it = o.find("count"); it != o.end() && it->is_number_unsigned())
    f->count = it->get<uint64_t>();
  if (const auto it = o.find("launch"); it != o.end() && it->is_number_unsigned())
    f->launch = it->get<uint64_t>();
  f->thread = triple_of(o, "thread");
  f->block = triple_of(o, "block");
  f->other_thread = triple_of(o, "other_thread");
  f->other_block = triple_of(o, "other_block");
  return true;
}

std::string finding_label(const FindingFields& f) {
  return (f.tool.empty() ? "check" : f.tool) + " " + (f.kind.empty() ? "finding" : f.kind);
}

std::string triple_text(const FindingFields::Triple& t) {
  return "(" + std::to_string(t[0]) + "," + std::to_string(t[1]) + "," + std::to_string(t[2]) + ")";
}

}  // namespace cudalab::trace
