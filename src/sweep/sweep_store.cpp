#include "sweep/sweep_store.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/hash.hpp"
#include "core/placement_check.hpp"
#include "core/timestamp.hpp"
#include "store/atomic_file.hpp"
#include "store/json_text.hpp"
#include "store/record.hpp"
#include "sweep/groups.hpp"
#include "sweep/supervisor.hpp"

namespace colltune {

namespace fs = std::filesystem;

Manifest fresh_manifest(const SweepPlan& plan) {
  Manifest m;
  m.sweep_id = fs::path(plan.store_dir).filename();
  m.name = plan.spec.name;
  m.created_utc = utc_timestamp();
  m.colltune_version = plan.colltune_version;
  m.notes = plan.spec.notes;
  for (const Point& p : plan.points) m.points.push_back({p.id, p.label, p.shown, p.baseline});
  // Rounds, not blocks (A B C, C B A): drift over time then hits every point alike, and each
  // other round runs backwards, so that no point always runs first or always straight after
  // another (a launch's start can feel its predecessor's teardown on a small host).
  for (int round = 1; round <= plan.spec.repetitions; ++round) {
    const bool backwards = round % 2 == 0;
    for (std::size_t i = 0; i < plan.points.size(); ++i) {
      LaunchEntry e;
      e.point_id = plan.points[backwards ? plan.points.size() - 1 - i : i].id;
      e.round = round;
      m.launches.push_back(std::move(e));
    }
  }
  return m;
}

RecordsDigest digest_records(const std::string& path) {
  RecordsDigest d;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    d.damage = "its records file is missing";
    return d;
  }
  const std::string text = read_file(path);
  d.hash = fmt::format("{:016x}", fnv1a64(text));
  std::size_t start = 0;
  for (int number = 1; start < text.size(); ++number) {
    const std::size_t end = text.find('\n', start);
    if (end == std::string::npos) {
      d.damage = fmt::format("line {} is cut off (no newline)", number);
      return d;
    }
    const auto j = parse_json_lenient(std::string_view(text).substr(start, end - start));
    try {
      if (j.is_discarded()) throw ConfigError("not JSON");
      record_from_json(j, fmt::format("line {}", number));
    } catch (const ConfigError& e) {
      d.damage = fmt::format("line {}: {}", number, e.what());
      return d;
    }
    ++d.count;
    start = end + 1;
  }
  if (d.count == 0) d.damage = "its records file is empty";
  return d;
}

Manifest resumed_manifest(const SweepPlan& plan, const std::string& manifest_path,
                          std::vector<std::string>& damaged) {
  Manifest m =
      manifest_from_json(parse_json_input(read_file(manifest_path), manifest_path), manifest_path);
  std::vector<std::string> ids;
  for (const Point& p : plan.points) ids.push_back(p.id);
  std::vector<std::string> stored;
  for (const PointEntry& p : m.points) stored.push_back(p.id);
  if (ids != stored) {
    throw ConfigError(
        fmt::format("--resume: {} holds other points than its spec.yaml expands to; "
                    "allowed: a store written by this colltune version",
                    plan.store_dir));
  }
  for (LaunchEntry& e : m.launches) {
    if (e.status == "running" && e.pid > 0 && !e.argv.empty()) {
      // A driver killed mid-launch leaves its launcher running; stop it before running again,
      // but only if that pid is still the process it started (same start time), not a reuse.
      const auto pid = static_cast<pid_t>(e.pid);
      const std::string cmd = process_command_line(pid);
      if (e.pid_start_ticks != 0 && process_start_ticks(pid) == e.pid_start_ticks &&
          cmd.find(fs::path(e.argv[0]).filename().string()) != std::string::npos) {
        kill_process_tree(static_cast<pid_t>(e.pid));
      }
    }
    if (e.status == "done") {
      // The files are what counts, not the manifest's word: a torn or deleted file runs again.
      const RecordsDigest now =
          digest_records(plan.store_dir + "/" + launch_records_path(e.point_id, e.round));
      std::string why = now.damage;
      if (why.empty() && !e.records_hash.empty() &&
          (now.count != e.records_count || now.hash != e.records_hash)) {
        why = fmt::format("its records changed ({} records, hash {}; the launch left {}, {})",
                          now.count, now.hash, e.records_count, e.records_hash);
      }
      if (!why.empty()) {
        damaged.push_back(fmt::format("point {} round {}: {}", e.point_id, e.round, why));
        e.status = "failed";
      }
    }
    if (e.status != "done" && e.status != "decided") {
      e.status = "pending";
      e.pid = 0;
    }
  }
  return m;
}

void remove_stale(const std::string& store, const LaunchEntry& e) {
  const std::string records = store + "/" + launch_records_path(e.point_id, e.round);
  std::error_code ec;
  fs::remove(records, ec);
  fs::remove(records + ".partial", ec);
}

// What the ranks reported about their placement and health, held against what the point asked.
std::vector<std::string> launch_warnings(const Point& point, const std::string& records) {
  std::ifstream in(records);
  std::string line;
  if (!std::getline(in, line)) return {};
  const auto record = parse_json_lenient(line);
  if (record.is_discarded() || !record.contains("context")) return {};
  const auto& context = record["context"];
  std::vector<std::string> out = context.value("warnings", std::vector<std::string>{});
  PlacementRequest request;
  if (point.settings.count("bind_to")) request.bind_to = point.settings.at("bind_to");
  if (point.settings.count("ranks_per_node"))
    request.ranks_per_node = std::stoi(point.settings.at("ranks_per_node"));
  if (request.bind_to.empty() && request.ranks_per_node == 0) return out;
  for (auto& w : placement_warnings(placement_from_json(context["placement"]), request)) {
    if (std::find(out.begin(), out.end(), w) == out.end()) out.push_back(std::move(w));
  }
  return out;
}

// A group's launch wrote every member's records to the first member's file, each tagged with
// its in_process_knobs: give each member its own file (complete or absent) and a copy of the
// log. Returns, per member, whether it got records.
std::vector<bool> split_group_records(const SweepSpec& spec,
                                      const std::vector<const Point*>& members,
                                      const std::string& records, const std::string& log,
                                      const std::string& store, int round) {
  std::vector<std::string> texts(members.size());
  std::ifstream in(records);
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    const auto record = parse_json_lenient(line);
    int member = 0;
    try {
      if (record.is_discarded()) throw ConfigError("not JSON");
      member = member_of_record(
          spec, members,
          record_from_json(record, fmt::format("{}:{}", records, number)).in_process_knobs);
    } catch (const ConfigError&) {
      // An unsound record stays in the first member's file, where the report's reader names it
      // (file, line, field) instead of the split hiding it.
    }
    if (member >= 0) texts[static_cast<std::size_t>(member)] += line + "\n";
  }
  in.close();
  const std::string log_text = fs::exists(log) ? read_file(log) : "";
  std::vector<bool> got(members.size());
  for (std::size_t m = 0; m < members.size(); ++m) {
    const std::string path = store + "/" + launch_records_path(members[m]->id, round);
    got[m] = !texts[m].empty();
    if (got[m]) write_file_atomic(path, texts[m]);
    if (m > 0) write_file_atomic(store + "/" + launch_log_path(members[m]->id, round), log_text);
  }
  if (!got[0]) fs::remove(records);  // the first member's file held everyone's records
  return got;
}

}  // namespace colltune
