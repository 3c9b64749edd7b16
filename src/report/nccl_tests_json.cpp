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

std::vector<double> microseconds(const std::vector<double>& seconds) {
  std::vector<double> out;
  out.reserve(seconds.size());
  for (double s : seconds) out.push_back(s * 1e6);
  return out;
}

// nccl-tests 2.19.6's per-iteration object (src/util.cu, computeIterStats): statistics over the
// iterations after the first `skip`, with its percentile ranks (p50 = sorted[n/2], p95 and p99
// the nearest rank) and population stdev; times_us keeps every iteration, the max over processes
// as there whatever -a took for colltune's own samples.
nlohmann::ordered_json per_iteration(const Measurement& m, int skip) {
  std::vector<double> times_us = microseconds(m.samples_seconds);
  if (!m.rank_samples_seconds.empty()) {
    times_us = microseconds(m.rank_samples_seconds.front());
    for (const auto& process : m.rank_samples_seconds) {
      for (std::size_t i = 0; i < process.size() && i < times_us.size(); ++i) {
        times_us[i] = std::max(times_us[i], process[i] * 1e6);
      }
    }
  }
  const std::size_t skipped = std::min<std::size_t>(static_cast<std::size_t>(skip),
                                                    times_us.empty() ? 0 : times_us.size() - 1);
  std::vector<double> sorted(times_us.begin() + static_cast<std::ptrdiff_t>(skipped),
                             times_us.end());
  std::sort(sorted.begin(), sorted.end());
  const int n = static_cast<int>(sorted.size());
  const auto rank = [&](int percent) {
    return n == 0 ? std::nan("") : sorted[std::min(n - 1, (n * percent + 99) / 100 - 1)];
  };
  double sum = 0;
  for (double t : sorted) sum += t;
  const double avg = n > 0 ? sum / n : std::nan("");
  double squares = 0;
  for (double t : sorted) squares += (t - avg) * (t - avg);
  const double stdev = n > 0 ? std::sqrt(squares / n) : std::nan("");
  nlohmann::ordered_json out = {{"skipped_iterations", static_cast<int>(skipped)},
                                {"min_us", number(n > 0 ? sorted.front() : std::nan(""))},
                                {"max_us", number(n > 0 ? sorted.back() : std::nan(""))},
                                {"avg_us", number(avg)},
                                {"p50_us", number(n > 0 ? sorted[n / 2] : std::nan(""))},
                                {"p95_us", number(rank(95))},
                                {"p99_us", number(rank(99))},
                                {"stdev_us", number(stdev)},
                                {"cv_pct", number(avg > 0 ? stdev / avg * 100 : 0.0)},
                                {"times_us", times_us}};
  // nccl-tests writes the per-process lists only when there is more than one process.
  if (m.rank_samples_seconds.size() > 1) {
    nlohmann::ordered_json lists = nlohmann::ordered_json::array();
    for (const auto& process : m.rank_samples_seconds) lists.push_back(microseconds(process));
    out["per_process_max_times_us"] = std::move(lists);
  }
  return out;
}

// nccl-tests' key order within a row, whichever half colltune measured first.
nlohmann::ordered_json in_row_order(const nlohmann::ordered_json& row) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const char* key :
       {"size", "count", "type", "redop", "root", "out_of_place", "out_of_place_per_iter",
        "in_place", "in_place_per_iter", "actual_iterations", "experiment_name"}) {
    if (row.contains(key)) out[key] = row[key];
  }
  return out;
}

}  // namespace

NcclTestsJsonReporter::NcclTestsJsonReporter(std::string path, bool per_iter_timing,
                                             int per_iter_skip)
    : path_(std::move(path)), per_iter_timing_(per_iter_timing), per_iter_skip_(per_iter_skip) {
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
  // -I 1 made each of nccl-tests' iterations a sample of its own.
  const int iterations = per_iter_timing_ ? c.repetitions : c.iters / aggregate;
  doc_["config"].update({{"warmup_iters", c.warmup_iters / aggregate},
                         {"iterations", iterations},
                         {"aggregated_iterations", aggregate},
                         {"validation", c.check_rounds},
                         {"graph", setting("graph") == "true" ? 1 : 0},
                         {"blocking_collectives", boolean(c.timing == TimingMode::kPerOp)},
                         {"per_iter_timing", boolean(per_iter_timing_)},
                         {"per_iter_skip", per_iter_skip_},
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
    results.push_back(
        {{"size", m.bytes},
         {"count", c.count},
         {"type", name(c.dtype)},
         {"redop", name(c.op)},
         {"root", root},
         {"out_of_place", nullptr},
         {"in_place", nullptr},
         {"actual_iterations",
          per_iter_timing_ ? static_cast<int>(m.samples_seconds.size()) : m.ops_per_sample},
         {"experiment_name", name(c.kind)}});
  }
  results.back()[half] = {
      {cpu_time_ ? "cpu_time" : "time", number(m.summary.median * 1e6)},
      {"alg_bw", number(m.at_median.algbw_gbps)},
      {"bus_bw", number(m.at_median.busbw_gbps)},
      {"nwrong", m.wrong ? nlohmann::ordered_json(static_cast<double>(*m.wrong)) : nullptr}};
  if (per_iter_timing_) {
    results.back()[std::string(half) + "_per_iter"] = per_iteration(m, per_iter_skip_);
    results.back() = in_row_order(results.back());
  }
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
