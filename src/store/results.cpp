#include "store/results.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/bandwidth.hpp"
#include "core/environment.hpp"
#include "core/errors.hpp"
#include "store/manifest.hpp"
#include "store/record.hpp"

namespace colltune {
namespace {

namespace fs = std::filesystem;

double algbw_bytes_of(const Record& r) {
  const auto kind = parse_coll_kind(r.collective);
  const auto dtype = parse_dtype(r.dtype);
  if (!kind || !dtype) return static_cast<double>(r.bytes);
  Collective c;
  c.kind = *kind;
  c.dtype = *dtype;
  c.count = r.count;
  c.window = r.window;
  return algbw_bytes(c, r.nranks);
}

Record record_from_json(const nlohmann::json& j, const std::string& where) {
  Record r;
  try {
    const int version = j.at("schema_version").get<int>();
    if (version != kSchemaVersion) {
      throw ConfigError(fmt::format("{}: schema_version: {} is not readable; allowed: {}", where,
                                    version, kSchemaVersion));
    }
    r.collective = j.at("collective").get<std::string>();
    r.dtype = j.at("dtype").get<std::string>();
    r.op = j.at("op").get<std::string>();
    r.in_place = j.at("in_place").get<bool>();
    r.bytes = j.at("bytes").get<std::uint64_t>();
    r.count = j.at("count").get<std::uint64_t>();
    r.nranks = j.at("nranks").get<int>();
    r.window = j.at("window").is_null() ? 0 : j.at("window").get<int>();
    r.backend = j.at("context").at("backend").get<std::string>();
    r.timing = j.at("timing").get<std::string>();
    r.cache = j.at("cache").get<std::string>();
    if (!j.at("skipped").is_null()) r.skipped = j.at("skipped").get<std::string>();
    if (!j.at("wrong").is_null()) r.wrong = j.at("wrong").get<std::uint64_t>();
    r.samples_seconds = j.at("samples_seconds").get<std::vector<double>>();
    r.bus_factor = j.at("bus_factor").get<double>();
    r.in_process_knobs = j.value("in_process_knobs", std::map<std::string, std::string>{});
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(fmt::format("{}: not a colltune record ({})", where, e.what()));
  }
  r.algbw_bytes = algbw_bytes_of(r);
  return r;
}

void read_jsonl(const std::string& path, const std::string& point_id, int round, Dataset& d) {
  std::ifstream in(path);
  if (!in) throw ConfigError(fmt::format("{}: cannot be read", path));
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    const std::string where = fmt::format("{}:{}", path, number);
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded())
      throw ConfigError(fmt::format("{}: not JSON (a torn or truncated record?)", where));
    Record r = record_from_json(j, where);
    r.point_id = point_id;
    r.round = round;
    if (d.contexts.count(point_id) == 0) d.contexts[point_id] = j.at("context");
    d.records.push_back(std::move(r));
  }
  if (number == 0) throw ConfigError(fmt::format("{}: empty; allowed: one record per line", path));
}

Dataset load_store(const std::string& dir) {
  Dataset d;
  d.source = dir;
  d.kind = "sweep";
  const std::string manifest_path = dir + "/manifest.json";
  const auto j = nlohmann::json::parse(read_file(manifest_path), nullptr, false);
  if (j.is_discarded()) throw ConfigError(fmt::format("{}: not JSON (truncated?)", manifest_path));
  const Manifest m = manifest_from_json(j, manifest_path);
  d.name = m.name;
  d.notes = m.notes;
  d.points = m.points;
  for (const auto& l : m.launches) {
    d.launches.push_back(
        {l.point_id, l.round, l.status, l.exit_code, l.signal, l.tail, l.together.size()});
    for (const auto& w : l.warnings) {
      if (std::find(d.warnings.begin(), d.warnings.end(), std::make_pair(l.point_id, w)) ==
          d.warnings.end()) {
        d.warnings.emplace_back(l.point_id, w);
      }
    }
    if (l.status == "done") {
      read_jsonl(dir + "/" + launch_records_path(l.point_id, l.round), l.point_id, l.round, d);
    }
  }
  if (fs::exists(dir + "/ceilings.json")) {
    const auto c = nlohmann::json::parse(read_file(dir + "/ceilings.json"), nullptr, false);
    if (c.is_discarded())
      throw ConfigError(fmt::format("{}/ceilings.json: not JSON (truncated?)", dir));
    for (const auto& ceiling : c.value("ceilings", nlohmann::json::array())) {
      const double gbps = ceiling.value("gbps", 0.0);
      double& slowest = ceiling.value("kind", "") == "device_memcpy" ? d.device_ceiling_gbps
                                                                     : d.host_ceiling_gbps;
      if (gbps > 0 && (slowest == 0 || gbps < slowest)) slowest = gbps;
    }
  }
  return d;
}

std::string collective_of_nccl_tests(const std::string& program) {
  const std::string base = fs::path(program).filename();
  static const std::map<std::string, std::string> kNames{
      {"all_reduce_perf", "allreduce"}, {"all_gather_perf", "allgather"},
      {"alltoall_perf", "alltoall"},    {"broadcast_perf", "broadcast"},
      {"reduce_perf", "reduce"},        {"reduce_scatter_perf", "reduce_scatter"},
      {"sendrecv_perf", "sendrecv"}};
  const auto it = kNames.find(base);
  return it == kNames.end() ? base : it->second;
}

// nccl-tests writes booleans and padded roots as strings and NaN as "nan".
double nccl_tests_number(const nlohmann::json& v) {
  if (v.is_number()) return v.get<double>();
  return std::numeric_limits<double>::quiet_NaN();
}

Dataset load_nccl_tests(const std::string& path, const nlohmann::json& j) {
  Dataset d;
  d.source = path;
  d.kind = "nccl-tests";
  try {
    const std::string program = j.at("args").at(0).get<std::string>();
    d.name = collective_of_nccl_tests(program);
    const int nranks = j.contains("config") && j["config"].contains("devices")
                           ? static_cast<int>(j["config"]["devices"].size())
                           : 0;
    std::vector<const char*> env_entries;
    std::vector<std::string> env_strings;
    for (const auto& e : j.value("env", nlohmann::json::array()))
      env_strings.push_back(e.get<std::string>());
    for (const auto& e : env_strings) env_entries.push_back(e.c_str());
    env_entries.push_back(nullptr);
    d.points.push_back({"nccl-tests", "nccl-tests " + d.name, {{"backend", "nccl"}}, true});
    // Only the allow-listed, redacted environment survives the import (nccl-tests dumps all).
    d.contexts["nccl-tests"] = {{"backend", "nccl"},
                                {"nranks", nranks},
                                {"nccl_version", j.value("nccl_version", 0)},
                                {"command_line", j.at("args")},
                                {"environment", allowed_environment(env_entries.data())},
                                {"timing", "batch"}};
    for (const auto& row : j.at("results")) {
      for (const char* half : {"out_of_place", "in_place"}) {
        if (!row.contains(half) || row[half].is_null()) continue;
        Record r;
        r.point_id = "nccl-tests";
        r.collective = d.name;
        r.dtype = row.at("type").get<std::string>();
        r.op = row.at("redop").get<std::string>();
        r.in_place = std::string(half) == "in_place";
        r.bytes = row.at("size").get<std::uint64_t>();
        r.count = row.at("count").get<std::uint64_t>();
        r.nranks = nranks;
        r.backend = "nccl";
        r.timing = "batch";
        r.cache = "warm";
        const double time_us = nccl_tests_number(row[half].at("time"));
        if (time_us == time_us) r.samples_seconds = {time_us * 1e-6};
        const auto& wrong = row[half].at("nwrong");
        if (wrong.is_number()) r.wrong = static_cast<std::uint64_t>(wrong.get<double>());
        const double algbw = nccl_tests_number(row[half].at("alg_bw"));
        const double busbw = nccl_tests_number(row[half].at("bus_bw"));
        r.algbw_bytes = algbw * 1e9 * time_us * 1e-6;
        r.bus_factor = algbw > 0 ? busbw / algbw : 1;
        d.records.push_back(std::move(r));
      }
    }
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(fmt::format("{}: not nccl-tests JSON output ({})", path, e.what()));
  }
  return d;
}

// A `colltune run --interleave` file measured several settings: each becomes a configuration of
// its own, as a sweep's points are; the one with every knob at "default" is the baseline.
void split_interleaved_run(Dataset& d) {
  const PointInfo run = d.points.front();
  std::vector<PointInfo> points;
  for (Record& r : d.records) {
    if (r.in_process_knobs.empty()) continue;
    std::vector<std::string> words;
    for (const auto& [knob, value] : r.in_process_knobs) words.push_back(knob + "=" + value);
    r.point_id = fmt::format("{}", fmt::join(words, " "));
    if (std::none_of(points.begin(), points.end(),
                     [&](const PointInfo& p) { return p.id == r.point_id; })) {
      PointInfo p{r.point_id, r.point_id, run.settings, false};
      // As a sweep point's: the values in force, "default" being the launch environment's
      // (absent where it had none), so `tune` reads Open MPI's or NCCL's own choice there.
      const auto& launch_env = d.contexts[run.id].value("environment", nlohmann::json::object());
      for (const auto& [knob, value] : r.in_process_knobs) {
        if (value != "default") {
          p.settings[knob] = value;
        } else if (launch_env.contains(knob) && launch_env[knob].is_string()) {
          p.settings[knob] = launch_env[knob].get<std::string>();
        }
      }
      p.baseline = std::all_of(r.in_process_knobs.begin(), r.in_process_knobs.end(),
                               [](const auto& knob) { return knob.second == "default"; });
      points.push_back(std::move(p));
      d.contexts[r.point_id] = d.contexts[run.id];
    }
  }
  if (points.empty()) return;
  if (std::none_of(points.begin(), points.end(), [](const PointInfo& p) { return p.baseline; })) {
    points.front().baseline = true;
  }
  for (auto& warning : d.warnings) warning.first = points.front().id;
  d.points = std::move(points);
  d.contexts.erase(run.id);
}

}  // namespace

Dataset load_dataset(const std::string& path) {
  if (fs::is_directory(path)) {
    if (!fs::exists(path + "/manifest.json")) {
      throw ConfigError(
          fmt::format("{}: no manifest.json; allowed: a sweep store (results/<id>), "
                      "a colltune run JSONL file or nccl-tests JSON",
                      path));
    }
    return load_store(path);
  }
  if (!fs::exists(path)) throw ConfigError(fmt::format("{}: no such file or directory", path));
  const std::string text = read_file(path);
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  // nccl-tests writes one JSON document; colltune run one record per line.
  if (first != std::string::npos && text[first] == '{') {
    const auto whole = nlohmann::json::parse(text, nullptr, false);
    if (!whole.is_discarded() && whole.contains("results") && whole.contains("args")) {
      return load_nccl_tests(path, whole);
    }
  }
  Dataset d;
  d.source = path;
  d.kind = "run";
  d.name = fs::path(path).stem();
  d.points.push_back({"run", d.name, {}, true});
  read_jsonl(path, "run", 1, d);
  if (!d.records.empty()) {
    d.points[0].settings["backend"] = d.records.front().backend;
  }
  for (const auto& w : d.contexts["run"].value("warnings", std::vector<std::string>{})) {
    d.warnings.emplace_back("run", w);
  }
  split_interleaved_run(d);
  return d;
}

}  // namespace colltune
