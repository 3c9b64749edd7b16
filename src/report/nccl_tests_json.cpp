#include "report/nccl_tests_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <stdexcept>

#include "core/errors.hpp"
#include "store/atomic_file.hpp"
#include "store/json_text.hpp"
#include "store/manifest.hpp"

namespace colltune {
namespace {

// nccl-tests' own quirks, kept because its readers expect them: booleans as strings, NaN as the
// string "nan", the root padded to six characters.
nlohmann::ordered_json boolean(bool value) { return value ? "true" : "false"; }

nlohmann::ordered_json number(double value) {
  return std::isnan(value) ? nlohmann::ordered_json("nan") : nlohmann::ordered_json(value);
}

// nccl-tests' local-time format, "2026-12-01 22:13:48".
std::string local_now() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &local);
  return text;
}

// NCCL_VERSION_CODE (major * 10000 + minor * 100 + patch) from "2.28.3"; 0 without NCCL.
int nccl_version_code(const RunContext& c) {
  const auto it = c.library_versions.find("nccl");
  int major = 0, minor = 0, patch = 0;
  if (it == c.library_versions.end() ||
      std::sscanf(it->second.c_str(), "%d.%d.%d", &major, &minor, &patch) != 3) {
    return 0;
  }
  return major * 10000 + minor * 100 + patch;
}

nlohmann::ordered_json devices(const RunContext& c) {
  // One entry per process, as nccl-tests writes them (a process drives gpus_per_process ranks).
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  const std::size_t stride = static_cast<std::size_t>(std::max(c.gpus_per_process, 1));
  for (std::size_t i = 0; i < c.placement.size(); i += stride) {
    const RankPlacement& p = c.placement[i];
    out.push_back({{"rank", p.rank},
                   {"group", 0},
                   {"pid", nullptr},
                   {"hostname", p.host},
                   {"device", nullptr},
                   {"device_hex", p.gpu},
                   {"device_info", p.gpu_model}});
  }
  return out;
}

}  // namespace

NcclTestsJsonReporter::NcclTestsJsonReporter(std::string path) : path_(std::move(path)) {
  try {
    target_ = check_output_path("-J/--output_file", path_);
  } catch (const ConfigError& e) {
    open_error_ = e.what();
  }
}

void NcclTestsJsonReporter::begin(const RunContext& c) {
  cpu_time_ = c.span == TimeSpan::kLaunch;
  nlohmann::ordered_json env = nlohmann::ordered_json::array();
  for (const auto& [name, value] : c.environment) env.push_back(name + "=" + value);
  doc_ = {{"version", 3},
          {"start_time", local_now()},
          {"args", c.command_line},
          {"env", env},
          {"nccl_version", nccl_version_code(c)}};
  const auto setting = [&](const char* key) {
    const auto it = c.backend_settings.find(key);
    return it == c.backend_settings.end() ? std::string() : it->second;
  };
  doc_["config"] = {{"nthreads", 1},
                    {"ngpus", c.gpus_per_process},
                    {"minimum_bytes", c.min_bytes},
                    {"maximum_bytes", c.max_bytes}};
  if (c.step_factor > 1) {
    doc_["config"]["step_factor"] = c.step_factor;
  } else {
    doc_["config"]["step_bytes"] = c.step_bytes;
  }
  const int aggregate = std::max(1, std::atoi(setting("agg_iters").c_str()));
  doc_["config"].update({{"warmup_iters", c.warmup_iters / aggregate},
                         {"iterations", c.iters / aggregate},
                         {"aggregated_iterations", aggregate},
                         {"validation", c.check_rounds},
                         {"graph", setting("graph") == "true" ? 1 : 0},
                         {"blocking_collectives", boolean(c.timing == TimingMode::kPerOp)},
                         {"per_iter_timing", boolean(false)},
                         {"per_iter_skip", 0},
                         {"parallel_init", boolean(false)},
                         {"devices", devices(c)}});
  doc_["results"] = nlohmann::ordered_json::array();
  doc_["errors"] = nlohmann::ordered_json::array();
  write_partial();
}

void NcclTestsJsonReporter::add(const Measurement& m) {
  const Collective& c = m.coll;
  if (m.skipped) {
    doc_["errors"].push_back(fmt::format("skipped: {} {} {} of {} B {}: {}", name(c.kind),
                                         name(c.dtype), name(c.op), m.bytes,
                                         c.in_place ? "in-place" : "out-of-place", *m.skipped));
    write_partial();
    return;
  }
  const std::string root = fmt::format("{:6}", c.root);
  auto& results = doc_["results"];
  const char* half = c.in_place ? "in_place" : "out_of_place";
  const bool joins_last =
      !results.empty() && results.back()["size"] == m.bytes && results.back()["count"] == c.count &&
      results.back()["type"] == name(c.dtype) && results.back()["redop"] == name(c.op) &&
      results.back()["root"] == root && results.back()[half].is_null();
  if (!joins_last) {
    results.push_back({{"size", m.bytes},
                       {"count", c.count},
                       {"type", name(c.dtype)},
                       {"redop", name(c.op)},
                       {"root", root},
                       {"out_of_place", nullptr},
                       {"in_place", nullptr},
                       {"actual_iterations", m.ops_per_sample},
                       {"experiment_name", name(c.kind)}});
  }
  results.back()[half] = {
      {cpu_time_ ? "cpu_time" : "time", number(m.summary.median * 1e6)},
      {"alg_bw", number(m.at_median.algbw_gbps)},
      {"bus_bw", number(m.at_median.busbw_gbps)},
      {"nwrong", m.wrong ? nlohmann::ordered_json(static_cast<double>(*m.wrong)) : nullptr}};
  wrong_ += m.wrong.value_or(0);
  busbw_sum_gbps_ += m.at_median.busbw_gbps;
  ++busbw_rows_;
  write_partial();
}

void NcclTestsJsonReporter::write_partial(bool done) {
  nlohmann::ordered_json doc = doc_;
  // nccl-tests' footer order: results, out_of_bounds, average_bus_bandwidth, errors, end_time.
  const nlohmann::ordered_json errors = doc["errors"];
  doc.erase("errors");
  doc["out_of_bounds"] = {{"count", wrong_}, {"okay", boolean(wrong_ == 0)}};
  doc["average_bus_bandwidth"] = {
      {"bandwidth", number(busbw_rows_ > 0 ? busbw_sum_gbps_ / busbw_rows_ : std::nan(""))},
      {"okay", "unchecked"}};
  doc["errors"] = errors;
  doc["end_time"] = local_now();
  // A device or FIFO takes the document once, at the end: it cannot be rewritten.
  if (target_.write_through) {
    if (done) write_file_atomic(target_.path, dump_json_text(doc));
    return;
  }
  write_file_atomic(target_.path + ".partial", dump_json_text(doc));
}

void NcclTestsJsonReporter::end() {
  write_partial(true);
  if (target_.write_through) return;
  const std::string partial = target_.path + ".partial";
  if (std::rename(partial.c_str(), target_.path.c_str()) != 0) {
    throw std::runtime_error(
        fmt::format("renaming {} to {} failed: {}", partial, target_.path, std::strerror(errno)));
  }
}

}  // namespace colltune
