#include "store/results.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <unordered_map>

#include "core/errors.hpp"
#include "core/hash.hpp"
#include "core/regular_file.hpp"
#include "store/json_text.hpp"
#include "store/manifest.hpp"
#include "store/nccl_tests_import.hpp"
#include "store/nccl_tests_text.hpp"
#include "store/osu_text.hpp"
#include "store/record.hpp"

namespace colltune {
namespace {

namespace fs = std::filesystem;

// What makes a record one of its kind within a launch.
std::string record_identity(const Record& r) {
  return fmt::format("{} {} {} {} {} {} {}", r.collective, r.dtype, r.op, r.in_place, r.root,
                     r.bytes, setting_name(r.in_process_knobs));
}

// Where a read record goes: the sink, or d.records.
void deliver(Record&& r, Dataset& d, const RecordSink& sink) {
  ++d.record_count;
  if (sink) {
    sink(std::move(r));
  } else {
    d.records.push_back(std::move(r));
  }
}

// Reads one launch's records and hands each to `emit`. A line that is not a sound record ends
// the load, or with o.skip_bad_records is left out and named in d.left_out.
void read_jsonl(const std::string& path, const std::string& point_id, int round,
                const LoadOptions& o, Dataset& d, const std::function<void(Record&&)>& emit,
                bool keep_records) {
  // A FIFO would block the read for ever: only a regular file is a launch's records.
  if (const std::string problem = not_regular_file(path); !problem.empty())
    throw ConfigError(fmt::format("{}: {}", path, problem));
  std::ifstream in(path);
  if (!in) throw ConfigError(fmt::format("{}: cannot be read", path));
  // Two independent 64-bit hashes of each record's identity and its line, 24 bytes a record where
  // the identity strings took 150 of a run's 10^6: records need not be kept to find a repeat, and
  // two different identities share both hashes with odds of about 2^-128.
  std::unordered_multimap<std::size_t, std::pair<std::uint64_t, int>> seen;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    // A run file's lines are alike (one context each): its size over the first line's is how
    // many records to make room for, so 10^6 of them are not copied on every doubling.
    if (keep_records && d.records.empty() && d.records.capacity() == 0) {
      std::error_code ec;
      const auto file_bytes = fs::file_size(path, ec);
      if (!ec)
        d.records.reserve(
            std::min<std::uintmax_t>(file_bytes / (line.size() + 1) + 1, std::uintmax_t{1} << 24));
    }
    const std::string where = fmt::format("{}:{}", path, number);
    try {
      const auto j = parse_json_input(line, where);
      if (j.is_discarded())
        throw ConfigError(fmt::format("{}: not JSON (a torn or truncated record?)", where));
      Record r = record_from_json(j, where);
      const std::string identity = record_identity(r);
      const std::size_t hash = std::hash<std::string>{}(identity);
      const std::uint64_t second = fnv1a64(identity);
      for (auto [at, end] = seen.equal_range(hash); at != end; ++at) {
        if (at->second.first != second) continue;
        throw ConfigError(fmt::format(
            "{}: duplicated record: {} {} {} {} bytes{} was already at line {}; allowed: one "
            "record per (collective, dtype, op, in-place, root, size) in a launch",
            where, r.collective, r.dtype, r.op, r.bytes, r.in_place ? " in-place" : "",
            at->second.second));
      }
      seen.emplace(hash, std::make_pair(second, number));
      r.point_id = point_id;
      r.round = round;
      if (d.contexts.count(point_id) == 0) d.contexts[point_id] = redacted_context(j.at("context"));
      emit(std::move(r));
    } catch (const ConfigError& e) {
      if (!o.skip_bad_records) throw;
      d.left_out.push_back(e.what());
    }
  }
  if (number == 0) throw ConfigError(fmt::format("{}: empty; allowed: one record per line", path));
}

Dataset load_store(const std::string& dir, const LoadOptions& o, const RecordSink& sink) {
  Dataset d;
  d.source = dir;
  d.kind = "sweep";
  const std::string manifest_path = dir + "/manifest.json";
  const auto j = parse_json_input(read_file(manifest_path), manifest_path);
  if (j.is_discarded()) throw ConfigError(fmt::format("{}: not JSON (truncated?)", manifest_path));
  const Manifest m = manifest_from_json(j, manifest_path);
  d.name = m.name;
  d.started_utc = m.created_utc;
  d.notes = m.notes;
  d.points = m.points;
  for (const auto& l : m.launches) {
    d.launches.push_back(
        {l.point_id, l.round, l.status, l.exit_code, l.signal, l.tail, l.together});
    for (const auto& w : l.warnings) {
      if (std::find(d.warnings.begin(), d.warnings.end(), std::make_pair(l.point_id, w)) ==
          d.warnings.end()) {
        d.warnings.emplace_back(l.point_id, w);
      }
    }
    if (l.status == "done") {
      if (!l.started_utc.empty()) d.launch_starts_utc.push_back(l.started_utc);
      read_jsonl(
          dir + "/" + launch_records_path(l.point_id, l.round), l.point_id, l.round, o, d,
          [&](Record&& r) { deliver(std::move(r), d, sink); }, !sink);
    }
  }
  if (fs::exists(dir + "/ceilings.json")) {
    const auto c = parse_json_input(read_file(dir + "/ceilings.json"), dir + "/ceilings.json");
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

// A `colltune run --interleave` file measured several settings: each becomes a configuration of
// its own, as a sweep's points are; the one with every knob at "default" is the baseline.
// assign() takes each record as it is read, finish() ends the file.
class InterleavedPoints {
 public:
  explicit InterleavedPoints(Dataset& d) : d_(d) {}

  void assign(Record& r) {
    if (r.in_process_knobs.empty()) return;
    const PointInfo& run = d_.points.front();  // the file's one point until finish()
    r.point_id = setting_name(r.in_process_knobs);
    if (std::any_of(points_.begin(), points_.end(),
                    [&](const PointInfo& p) { return p.id == r.point_id; })) {
      return;
    }
    PointInfo p{r.point_id, r.point_id, run.settings, false};
    // As a sweep point's: the values in force, "default" being the launch environment's
    // (absent where it had none), so `tune` reads Open MPI's or NCCL's own choice there.
    const auto& launch_env = d_.contexts[run.id].value("environment", nlohmann::json::object());
    for (const auto& [knob, value] : r.in_process_knobs) {
      if (value != "default") {
        p.settings[knob] = value;
      } else if (launch_env.contains(knob) && launch_env[knob].is_string()) {
        p.settings[knob] = launch_env[knob].get<std::string>();
      }
    }
    p.baseline = std::all_of(r.in_process_knobs.begin(), r.in_process_knobs.end(),
                             [](const auto& knob) { return knob.second == "default"; });
    points_.push_back(std::move(p));
    d_.contexts[r.point_id] = d_.contexts[run.id];
  }

  void finish() {
    if (points_.empty()) return;
    if (std::none_of(points_.begin(), points_.end(),
                     [](const PointInfo& p) { return p.baseline; })) {
      points_.front().baseline = true;
    }
    for (auto& warning : d_.warnings) warning.first = points_.front().id;
    d_.contexts.erase(d_.points.front().id);
    d_.points = std::move(points_);
  }

 private:
  Dataset& d_;
  std::vector<PointInfo> points_;
};

// An imported log's records, handed to the sink where there is one.
Dataset delivered(Dataset d, const RecordSink& sink) {
  d.record_count = d.records.size();
  if (!sink) return d;
  for (Record& r : d.records) sink(std::move(r));
  d.records = {};
  return d;
}

bool has_point(const Dataset& d, const std::string& id) {
  return std::any_of(d.points.begin(), d.points.end(),
                     [&](const PointInfo& p) { return p.id == id; });
}

// The same file or store under two names, or two files with the same bytes.
bool same_input(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::equivalent(a, b, ec)) return true;
  if (!fs::is_regular_file(a, ec) || !fs::is_regular_file(b, ec)) return false;
  if (fs::file_size(a, ec) != fs::file_size(b, ec)) return false;
  return read_file(a) == read_file(b);
}

// Whether the file's first line is a whole JSON object with colltune's schema_version: a run
// file. Reads that one line (at most 1 MiB of it); a FIFO or other non-file is left to read_file
// to refuse.
bool starts_with_record(const std::string& path) {
  if (!not_regular_file(path).empty()) return false;
  std::ifstream in(path);
  std::string line;
  constexpr std::size_t kMaxFirstLine = std::size_t{1} << 20;
  for (char c; line.size() < kMaxFirstLine && in.get(c) && c != '\n';) line += c;
  if (line.size() >= kMaxFirstLine) return false;
  const auto j = parse_json_lenient(line);
  return j.is_object() && j.contains("schema_version");
}

}  // namespace

Dataset load_dataset(const std::string& path, const LoadOptions& o, const RecordSink& sink) {
  if (fs::is_directory(path)) {
    if (!fs::exists(path + "/manifest.json")) {
      throw ConfigError(
          fmt::format("{}: no manifest.json; allowed: a sweep store (results/<id>), "
                      "a colltune run JSONL file, nccl-tests JSON, or an nccl-tests or OSU log",
                      path));
    }
    return load_store(path, o, sink);
  }
  if (!fs::exists(path)) throw ConfigError(fmt::format("{}: no such file or directory", path));
  // A colltune run file is read a line at a time: its first line, a whole record, says so. Only
  // the other formats (one JSON document, text logs) are read whole; a run of 10^6 records
  // (800 MB) held twice took 1.5 GB before the first record was parsed.
  if (!starts_with_record(path)) {
    const std::string text = read_file(path);
    const std::size_t first = text.find_first_not_of(" \t\r\n");
    // nccl-tests writes one JSON document; colltune run one record per line.
    if (first != std::string::npos && text[first] == '{') {
      const auto whole = parse_json_input(text, path);
      if (!whole.is_discarded() && whole.contains("results") && whole.contains("args")) {
        return delivered(load_nccl_tests(path, whole, o), sink);
      }
    }
    if (looks_like_nccl_tests_text(text))
      return delivered(load_nccl_tests_text(path, text, o), sink);
    if (looks_like_osu_text(text)) return delivered(load_osu_text(path, text, o), sink);
  }
  Dataset d;
  d.source = path;
  d.kind = "run";
  d.name = fs::path(path).stem();
  d.points.push_back({"run", d.name, {}, true});
  InterleavedPoints interleaved(d);
  read_jsonl(
      path, "run", 1, o, d,
      [&](Record&& r) {
        if (d.record_count == 0) d.points.front().settings["backend"] = r.backend;
        interleaved.assign(r);
        deliver(std::move(r), d, sink);
      },
      !sink);
  if (d.record_count == 0) {
    // Nothing to report or gate on: bad input, said once, not a library's error further on.
    throw ConfigError(fmt::format(
        "{}: no record {}; allowed: a colltune run's JSONL (--json), nccl-tests JSON, or an "
        "nccl-tests or OSU log",
        path,
        d.left_out.empty() ? std::string("(empty, or blank lines only)")
                           : fmt::format("left: all {} failed their checks (the first: {})",
                                         d.left_out.size(), d.left_out.front())));
  }
  const nlohmann::json& context = d.contexts["run"];
  if (context.is_object()) {
    const auto start = context.find("start_time_utc");
    if (start != context.end() && start->is_string()) d.started_utc = start->get<std::string>();
    const auto warnings = context.find("warnings");
    if (warnings != context.end() && warnings->is_array()) {
      for (const auto& w : *warnings)
        if (w.is_string()) d.warnings.emplace_back("run", w.get<std::string>());
    }
  }
  if (!d.started_utc.empty()) d.launch_starts_utc.push_back(d.started_utc);
  interleaved.finish();
  return d;
}

Dataset load_datasets(const std::vector<std::string>& paths, const LoadOptions& o,
                      const RecordSink& sink) {
  Dataset out;
  int last_round = 0;  // the highest round of any record read so far
  std::vector<std::string> read;
  std::vector<std::string> repeats;
  for (const std::string& path : paths) {
    // One launch given twice (the same path, a link to it, or a copy) must count once, or a
    // single launch would pass the two-launch rule.
    const std::string* same = nullptr;
    for (const std::string& earlier : read) {
      if (same_input(earlier, path)) same = &earlier;
    }
    if (same != nullptr) {
      repeats.push_back(
          fmt::format("{}: the same input as {} (given twice); read once", path, *same));
      continue;
    }
    read.push_back(path);
    // This input's rounds follow every earlier input's records and launches.
    int offset = last_round;
    for (const auto& l : out.launches) offset = std::max(offset, l.round);
    const auto renumber = [&](Record& r) {
      r.round += offset;
      last_round = std::max(last_round, r.round);
    };
    Dataset d = sink ? load_dataset(path, o,
                                    [&](Record&& r) {
                                      renumber(r);
                                      sink(std::move(r));
                                    })
                     : load_dataset(path, o);
    for (Record& r : d.records) renumber(r);
    if (out.source.empty()) {
      out = std::move(d);
      continue;
    }
    out.source += " + " + d.source;
    out.record_count += d.record_count;
    for (auto& r : d.records) out.records.push_back(std::move(r));
    for (auto& l : d.launches) {
      l.round += offset;
      out.launches.push_back(std::move(l));
    }
    for (auto& p : d.points) {
      if (!has_point(out, p.id)) out.points.push_back(std::move(p));
    }
    out.contexts.merge(d.contexts);
    for (auto& t : d.launch_starts_utc) out.launch_starts_utc.push_back(std::move(t));
    for (auto& w : d.warnings) out.warnings.push_back(std::move(w));
    for (auto& n : d.left_out) out.left_out.push_back(std::move(n));
    for (auto& n : d.notes) out.notes.push_back(std::move(n));
    for (auto [mine, theirs] : {std::pair{&out.host_ceiling_gbps, d.host_ceiling_gbps},
                                std::pair{&out.device_ceiling_gbps, d.device_ceiling_gbps}}) {
      if (theirs > 0 && (*mine == 0 || theirs < *mine)) *mine = theirs;
    }
  }
  for (auto& r : repeats) out.left_out.push_back(std::move(r));
  return out;
}

}  // namespace colltune
