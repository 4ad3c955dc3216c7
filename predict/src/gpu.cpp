// The GPUs' limits, read from calibration/KEY.json (the calibration
// program's output, kept in the repository).
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cudalab/predict/predict.h"

namespace cudalab::predict {
namespace fs = std::filesystem;

double Gpu::figure(const std::string& name) const {
  const auto it = figures.find(name);
  return it == figures.end() ? 0 : it->second;
}

std::vector<std::string> known_gpus() {
  std::vector<std::string> keys;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(CUDALAB_PREDICT_DATA, ec))
    if (e.path().extension() == ".json") keys.push_back(e.path().stem().string());
  std::sort(keys.begin(), keys.end());
  return keys;
}

std::string chosen_gpu() {
  std::string key = "h200";
  if (const char* d = std::getenv("CUDALAB_DEVICE"); d && *d) {
    key = d;
    for (char& c : key) c = char(std::tolower(static_cast<unsigned char>(c)));
  }
  return key;
}

std::optional<Gpu> load_gpu(const std::string& key, std::string* why) {
  const std::vector<std::string> keys = known_gpus();
  auto listed = [&] {
    std::string s;
    for (const auto& k : keys) s += (s.empty() ? "" : ", ") + k;
    return s.empty() ? std::string("none") : s;
  };
  if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
    *why =
        "no calibration data for a GPU named '" + key + "' (there are data for: " + listed() + ")";
    return std::nullopt;
  }
  const fs::path file = fs::path(CUDALAB_PREDICT_DATA) / (key + ".json");
  try {
    std::ifstream in(file);
    const nlohmann::json j = nlohmann::json::parse(in);
    Gpu g;
    g.key = key;
    g.name = j.at("device").get<std::string>();
    g.multiprocessors = j.at("multiprocessors").get<int>();
    g.clock_ghz = j.at("clock_mhz").get<double>() / 1000;
    g.l2_bytes = j.at("l2_bytes").get<double>();
    for (const auto& [name, f] : j.at("figures").items()) g.figures[name] = f.at("value");
    // Figures Nsight Compute took (an empty kernel's own duration).
    if (j.contains("ncu_figures"))
      for (const auto& [name, f] : j.at("ncu_figures").items()) g.figures[name] = f.at("value");
    if (j.contains("derived")) g.derived = j.at("derived").at("how").get<std::string>();
    if (j.value("quick", false)) {
      *why = file.string() + " was measured at --quick sizes: its figures are not a GPU's limits";
      return std::nullopt;
    }
    return g;
  } catch (const std::exception& e) {
    *why = "cannot read " + file.string() + ": " + e.what();
    return std::nullopt;
  }
}

std::vector<Measured> measured_lesson_kernels(const std::string& key, const std::string& lesson,
                                              std::string* file) {
  const fs::path path = fs::path(CUDALAB_PREDICT_DATA) / (key + "-lesson-kernels.txt");
  *file = path.string();
  std::vector<Measured> out;
  std::ifstream in(path);
  std::string how = Measured().how;
  // lesson kernel median us (N launches[, inputs K of M]) grid BLOCKS block THREADS
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# how: ", 0) == 0) how = line.substr(7);
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string name, kernel, unit, word;
    Measured m;
    double us = 0;
    if (!(words >> name >> kernel >> us >> unit) || name != lesson || unit != "us") continue;
    m.kernel = kernel;
    m.seconds = us * 1e-6;
    m.how = how;
    while (words >> word) {
      if (word == "grid") words >> m.blocks;
      if (word == "block") words >> m.threads_per_block;
      if (word == "inputs") words >> m.inputs >> word >> m.input_sets;  // K of M
    }
    if (m.blocks && m.threads_per_block) out.push_back(m);
  }
  return out;
}

}  // namespace cudalab::predict
