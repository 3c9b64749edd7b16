#include "apps/import_command.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <map>

#include "apps/help_format.hpp"
#include "core/bandwidth.hpp"
#include "core/errors.hpp"
#include "core/stats.hpp"
#include "store/atomic_file.hpp"
#include "store/json_text.hpp"
#include "store/manifest.hpp"
#include "store/record.hpp"
#include "store/results.hpp"
#include "store/store_lock.hpp"
#include "sweep/sweep_store.hpp"

namespace colltune {
namespace {

namespace fs = std::filesystem;

// A logged record back into colltune's record schema, under the log's context.
nlohmann::json record_json(const Record& r, const nlohmann::json& context,
                           const std::string& started_utc) {
  Measurement m;
  m.coll.kind = r.kind;
  m.coll.dtype = *parse_dtype(r.dtype);
  m.coll.op = r.op == "none" ? ReduceOp::kNone : *parse_reduce_op(r.op);
  m.coll.count = r.count;
  m.coll.in_place = r.in_place;
  m.coll.root = r.root;
  if (r.window > 0) m.coll.window = r.window;
  m.nranks = r.nranks;
  m.bytes = r.bytes;
  m.samples_seconds = r.samples_seconds;
  m.summary = summarize(r.samples_seconds);
  m.at_median = bandwidth(m.coll, r.nranks, m.summary.median);
  m.wrong = r.wrong;
  m.ops_per_sample = 1;
  nlohmann::json j = to_json(m);
  j["schema_version"] = kSchemaVersion;
  j["timing"] = r.timing;
  j["cache"] = r.cache;
  j["backend"] = r.backend;
  j["context"] = context;
  j["context"]["start_time_utc"] = started_utc;
  return j;
}

}  // namespace

int import_command(const std::vector<std::string>& args) {
  CLI::App app(
      "colltune import: text logs (nccl-tests' stdout, OSU's output) as one store that report, "
      "compare, tune and history read; each log is one launch",
      "colltune import");
  use_colltune_help(app, "Exit codes: 0 written; 2 bad input (one line naming the file and line).");
  std::vector<std::string> logs;
  std::string out;
  bool skip_bad = false;
  app.add_option("logs", logs, "nccl-tests or OSU text logs")->required();
  app.add_option("--out", out, "the store to write (a new directory)")
      ->required()
      ->option_text("STORE");
  app.add_flag("--skip-bad-records", skip_bad,
               "leave out rows that fail their range checks, with a warning each");
  if (parse_or_help(app, args, "import")) return 0;
  if (fs::exists(out)) {
    throw ConfigError(fmt::format(
        "--out: '{}' exists; allowed: a new directory (import never writes into a store)", out));
  }
  // Everything is read before anything is written: a bad log leaves no half store.
  std::vector<Dataset> read;
  for (const auto& log : logs) {
    Dataset d = load_dataset(log, LoadOptions{skip_bad});
    if (!d.kind.ends_with("-log")) {
      throw ConfigError(fmt::format(
          "{}: a {} input, not a text log; allowed: nccl-tests' or OSU's text output (report, "
          "compare and history read colltune's own files as they are)",
          log, d.kind));
    }
    for (const auto& line : d.left_out)
      std::fprintf(stderr, "colltune: warning: left out: %s\n", line.c_str());
    read.push_back(std::move(d));
  }
  Manifest m;
  m.name = fs::path(out).filename().string();
  m.sweep_id = m.name;
  m.colltune_version = COLLTUNE_VERSION;
  m.created_utc = read.front().started_utc;
  std::map<std::string, int> rounds;
  std::vector<std::pair<std::string, std::string>> files;  // path in store, text
  for (const Dataset& d : read) {
    const PointInfo& point = d.points.front();
    if (std::none_of(m.points.begin(), m.points.end(),
                     [&](const PointEntry& p) { return p.id == point.id; }))
      m.points.push_back({point.id, point.label, point.settings, true});
    LaunchEntry l;
    l.point_id = point.id;
    l.round = ++rounds[point.id];
    l.status = "done";
    l.exit_code = 0;
    l.started_utc = d.started_utc;
    l.argv = {"colltune", "import", d.source};
    std::string text;
    for (const Record& r : d.records)
      text += dump_json_text(record_json(r, d.contexts.at(point.id), d.started_utc)) + "\n";
    l.records_count = d.records.size();
    files.emplace_back(launch_records_path(l.point_id, l.round), text);
    m.launches.push_back(std::move(l));
    for (const auto& note : d.notes) m.notes.push_back(note);
    if (d.started_utc < m.created_utc) m.created_utc = d.started_utc;
  }
  // Made here, never found: of two imports racing for one --out, the second is refused, and the
  // store lock keeps any other writer out while it fills.
  if (const fs::path parent = fs::path(out).parent_path(); !parent.empty())
    fs::create_directories(parent);
  if (!fs::create_directory(out)) {
    throw ConfigError(fmt::format(
        "--out: '{}' exists (another import made it meanwhile?); allowed: a new directory", out));
  }
  const StoreLock lock(out);
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string path = (fs::path(out) / files[i].first).string();
    fs::create_directories(fs::path(path).parent_path());
    write_file_atomic(path, files[i].second);
    m.launches[i].records_hash = digest_records(path).hash;
  }
  write_file_atomic((fs::path(out) / "manifest.json").string(),
                    dump_json_text(to_json(m), 2) + "\n");
  fmt::print("import: {} logs into {} ({} records)\n", read.size(), out, [&] {
    std::size_t n = 0;
    for (const auto& d : read) n += d.records.size();
    return n;
  }());
  return 0;
}

}  // namespace colltune
