#include "history/history_data.hpp"

#include <fmt/format.h>
#include <malloc.h>

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <numeric>

#include "core/errors.hpp"
#include "core/hash.hpp"
#include "core/mpi_family.hpp"
#include "core/parallel.hpp"
#include "core/stats.hpp"
#include "core/timestamp.hpp"
#include "report/analysis.hpp"

namespace colltune {
namespace {

namespace fs = std::filesystem;

// A directory given whole: the stores and run files directly in it, in name order.
std::vector<std::string> expand(const std::string& path) {
  if (!fs::is_directory(path) || fs::exists(fs::path(path) / "manifest.json")) return {path};
  std::vector<std::string> out;
  for (const auto& entry : fs::directory_iterator(path)) {
    const fs::path& p = entry.path();
    if (entry.is_directory() && fs::exists(p / "manifest.json")) out.push_back(p.string());
    // Run files, nccl-tests' -J files and its text logs.
    const std::string ext = p.extension().string();
    if (entry.is_regular_file() && p.filename() != "history.json" &&
        (ext == ".jsonl" || ext == ".json" || ext == ".log" || ext == ".txt" || ext == ".out"))
      out.push_back(p.string());
  }
  std::sort(out.begin(), out.end());
  if (out.empty()) {
    throw ConfigError(fmt::format(
        "{}: holds no sweep store (a folder with manifest.json) and no run file (.jsonl, .json, "
        ".log, .txt, .out); allowed: stores, run files, logs, or a directory of them",
        path));
  }
  return out;
}

std::string shape_of(const nlohmann::json& context) {
  if (!context.is_object()) return "";
  const auto hosts = context.value("hosts", std::vector<std::string>{});
  std::vector<int> counts;
  const auto& per_host = context.value("ranks_per_host", nlohmann::json::object());
  if (per_host.is_array()) {  // nccl-tests' JSON, as its import keeps it: in host order
    for (const auto& c : per_host) counts.push_back(c.is_number_integer() ? c.get<int>() : 0);
  } else if (per_host.is_object()) {
    for (const auto& h : hosts)
      counts.push_back(
          per_host.contains(h) && per_host[h].is_number_integer() ? per_host[h].get<int>() : 0);
  }
  if (counts.empty()) return "";
  const auto hosts_word = counts.size() == 1 ? "host" : "hosts";
  if (std::all_of(counts.begin(), counts.end(), [&](int c) { return c == counts[0]; }))
    return fmt::format("{} {} x {} ranks", counts.size(), hosts_word, counts[0]);
  return fmt::format("{} ranks on {} {}", fmt::join(counts, "+"), counts.size(), hosts_word);
}

// A start time this far past the clock is a wrong clock, not a run to trust: nodes' clocks
// differ by seconds, never by this.
constexpr long long kFutureToleranceSeconds = 3600;

// One run's records reduced as they are read (a load_dataset sink): each series' samples by
// launch until the whole run is in, and a hash of what the run holds, whatever its path, to find
// a run given twice. The records themselves are not kept: 10^6 of them took 0.6 GB a run.
class RunReducer {
 public:
  void add(const Record& r) {
    records_hash_ =
        fnv1a64(fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}\n", r.point_id, r.round, r.collective,
                            r.dtype, r.op, r.in_place, r.root, r.bytes, r.nranks),
                records_hash_);
    for (double x : r.samples_seconds)
      records_hash_ =
          fnv1a64(std::string_view(reinterpret_cast<const char*>(&x), sizeof x), records_hash_);
    if (r.skipped) return;
    // The shape comes from the point's context, whole only once the run is read.
    const SeriesKey key{r.point_id, r.backend, r.collective, r.dtype, r.op,
                        r.in_place, r.root,    r.nranks,     "",      r.bytes};
    Partial& p = series_[key];
    auto& samples = p.launches[r.round];
    samples.insert(samples.end(), r.samples_seconds.begin(), r.samples_seconds.end());
    p.wrong += r.wrong.value_or(0);
  }

  std::uint64_t identity(const std::string& started_utc) const {
    return fnv1a64(
        std::string_view(reinterpret_cast<const char*>(&records_hash_), sizeof records_hash_),
        fnv1a64(started_utc));
  }

  // One value per series measured in it (a geometric mean over its launches, with its
  // interval), its placement shape from `d`'s contexts. Empties the reducer.
  std::vector<std::pair<SeriesKey, RunValue>> values(const Dataset& d) {
    std::map<std::string, std::string> shapes;  // point id -> its shape: one context, many records
    for (const auto& [point, context] : d.contexts) shapes[point] = shape_of(context);
    std::vector<std::pair<SeriesKey, RunValue>> out;
    out.reserve(series_.size());
    for (auto at = series_.begin(); at != series_.end(); at = series_.erase(at)) {
      std::vector<double> logs;
      for (const auto& [round, samples] : at->second.launches) {
        const double median = summarize(samples).median;
        if (median > 0) logs.push_back(std::log(median));
      }
      if (logs.empty()) continue;
      RunValue v;
      v.launches = logs.size();
      v.wrong = at->second.wrong;
      v.log_seconds =
          std::accumulate(logs.begin(), logs.end(), 0.0) / static_cast<double>(logs.size());
      if (logs.size() >= 2) {
        double squares = 0;
        for (double x : logs) squares += (x - v.log_seconds) * (x - v.log_seconds);
        const double n = static_cast<double>(logs.size());
        const double half =
            boost::math::quantile(boost::math::complement(boost::math::students_t(n - 1), 0.025)) *
            std::sqrt(squares / (n - 1) / n);
        v.low_log = v.log_seconds - half;
        v.high_log = v.log_seconds + half;
      }
      SeriesKey key = at->first;
      const auto shape = shapes.find(key.point_id);
      if (shape != shapes.end()) key.shape = shape->second;
      out.emplace_back(std::move(key), v);
    }
    return out;
  }

 private:
  struct Partial {
    std::map<int, std::vector<double>> launches;  // round -> samples
    std::uint64_t wrong = 0;
  };
  std::map<SeriesKey, Partial> series_;
  std::uint64_t records_hash_ = fnv1a64("");
};

std::string text_of(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

}  // namespace

std::string SeriesKey::panel() const {
  // A run file's point is always "run"; a sweep point's id says which configuration.
  return fmt::format("{} {} {}{}, {}, {} ranks ({}), {}{}", collective, dtype, op,
                     root > 0 ? fmt::format(" root {}", root) : "",
                     in_place ? "in-place" : "out-of-place", nranks, shape, backend,
                     point_id == "run" || point_id == "nccl-tests" ? "" : ", point " + point_id);
}

std::vector<HistoryRun> load_history(const std::vector<std::string>& paths, const LoadOptions& o) {
  std::vector<std::string> inputs;
  for (const auto& given : paths) {
    for (auto& path : expand(given)) inputs.push_back(std::move(path));
  }
  // Reading is most of a long history's time (365 runs of 2,000 records: 730,000 JSON records),
  // and each input reads alone.
  std::vector<HistoryRun> runs(inputs.size());
  std::vector<long long> millis(inputs.size());
  std::vector<std::uint64_t> identity(inputs.size());
  const long long latest_allowed =
      *parse_utc_millis(utc_timestamp()) + kFutureToleranceSeconds * 1000;
  parallel_for(inputs.size(), [&](std::size_t i) {
    RunReducer reducer;
    HistoryRun run;
    run.source = inputs[i];
    run.data = load_dataset(inputs[i], o, [&](Record&& r) { reducer.add(r); });
    run.started_utc = run.data.started_utc;
    const auto when = parse_utc_millis(run.started_utc);
    if (!when) {
      throw ConfigError(fmt::format(
          "{}: start time '{}' is not allowed; allowed: an ISO 8601 UTC time like "
          "2026-11-14T02:00:00Z (a sweep's manifest created_utc, a run's context.start_time_utc)",
          inputs[i], run.started_utc));
    }
    // A run stamped in the future would stay the newest for ever and hide every real one.
    if (*when > latest_allowed) {
      throw ConfigError(fmt::format(
          "{}: start time '{}' is in the future (now {}); allowed: a time no later than now (a "
          "wrong clock on the node that ran it?)",
          inputs[i], run.started_utc, utc_timestamp()));
    }
    identity[i] = reducer.identity(run.started_utc);
    run.values = reducer.values(run.data);
    runs[i] = std::move(run);
    millis[i] = *when;
  });
  // Runs are ordered by start time, to the millisecond; two that started together are still two
  // runs (two nodes' nightly jobs), kept in the order given. One run given twice (the same
  // records, whatever the path) counts once.
  std::vector<std::size_t> order(runs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return millis[a] < millis[b]; });
  std::vector<HistoryRun> sorted;
  std::map<std::uint64_t, std::string> seen;  // identity -> the source kept
  for (std::size_t i : order) {
    const auto [first, fresh] = seen.emplace(identity[i], runs[i].source);
    if (!fresh) {
      std::fprintf(stderr,
                   "colltune: warning: history: %s holds the same records as %s (given twice?): "
                   "counted once\n",
                   runs[i].source.c_str(), first->second.c_str());
      continue;
    }
    sorted.push_back(std::move(runs[i]));
  }
  return sorted;
}

std::vector<Series> build_series(std::vector<HistoryRun>& runs) {
  // Every (run, value) in key order, runs oldest first within a key; the keys then move into
  // their series, so no key is held twice (10^6 series: 0.2 GB a copy).
  std::vector<std::pair<std::size_t, std::size_t>> order;  // (run, index into its values)
  std::size_t total = 0;
  for (const HistoryRun& run : runs) total += run.values.size();
  order.reserve(total);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    for (std::size_t j = 0; j < runs[i].values.size(); ++j) order.emplace_back(i, j);
  }
  const auto key_of = [&](const std::pair<std::size_t, std::size_t>& at) -> const SeriesKey& {
    return runs[at.first].values[at.second].first;
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](const auto& a, const auto& b) { return key_of(a) < key_of(b); });
  std::size_t distinct = 0;
  for (std::size_t k = 0; k < order.size(); ++k)
    distinct += k == 0 || key_of(order[k - 1]) != key_of(order[k]);
  std::vector<Series> out;
  out.reserve(distinct);
  for (const auto& at : order) {
    auto& [key, value] = runs[at.first].values[at.second];
    if (out.empty() || out.back().key != key) {
      out.emplace_back();
      out.back().key = std::move(key);
    }
    Series& s = out.back();
    // A run file's label is its file name, which changes every run: only a sweep's names a
    // configuration. The newest run's label stands.
    const Dataset& d = runs[at.first].data;
    const PointInfo* p = find_point(d, s.key.point_id);
    s.label = d.kind == "sweep" && p ? p->label : "";
    s.values.push_back(value);
    s.values.back().run = at.first;
  }
  for (HistoryRun& run : runs) run.values = {};
  // The values were made on the reading threads, in their own malloc arenas, which this thread
  // does not reuse: hand their pages back rather than hold them to the end (0.4 GB at 10^6).
  malloc_trim(0);
  return out;
}

std::map<std::string, std::string> run_context(const HistoryRun& run, const std::string& point_id) {
  std::map<std::string, std::string> out;
  const auto it = run.data.contexts.find(point_id);
  if (it == run.data.contexts.end() || !it->second.is_object()) return out;
  const nlohmann::json& c = it->second;
  out["colltune"] = c.value("colltune_version", "");
  if (c.contains("git_revision")) out["colltune"] += " " + text_of(c["git_revision"]);
  for (const auto& [group, prefix] :
       {std::pair{"library_versions", ""}, std::pair{"environment", "env "},
        std::pair{"backend_settings", "setting "}}) {
    if (!c.contains(group) || !c[group].is_object()) continue;
    for (const auto& [k, v] : c[group].items()) out[prefix + k] = text_of(v);
  }
  // The MPI as its family and version: MPICH's library text is 2 KB of configure lines.
  if (const auto* versions = c.contains("library_versions") ? &c["library_versions"] : nullptr;
      versions != nullptr && versions->is_object() && versions->contains("mpi") &&
      (*versions)["mpi"].is_string()) {
    if (const auto identity = identify_mpi_library((*versions)["mpi"].get<std::string>()))
      out["mpi"] = identity->text();
  }
  out["hosts"] = fmt::format("{}", fmt::join(c.value("hosts", std::vector<std::string>{}), ","));
  std::vector<std::string> binding, gpus;
  for (const auto& p : c.value("placement", nlohmann::json::array())) {
    binding.push_back(fmt::format("{}:{}", p.value("rank", 0), p.value("cpus", "")));
    if (p.contains("gpu_model") && p["gpu_model"].is_string() &&
        !p["gpu_model"].get<std::string>().empty())
      gpus.push_back(p["gpu_model"].get<std::string>());
  }
  out["binding"] = fmt::format("{}", fmt::join(binding, " "));
  std::sort(gpus.begin(), gpus.end());
  gpus.erase(std::unique(gpus.begin(), gpus.end()), gpus.end());
  if (!gpus.empty()) out["gpus"] = fmt::format("{}", fmt::join(gpus, ","));
  return out;
}

std::vector<std::string> changed_keys(const std::map<std::string, std::string>& before,
                                      const std::map<std::string, std::string>& after) {
  std::set<std::string> keys;
  for (const auto& [k, v] : before) keys.insert(k);
  for (const auto& [k, v] : after) keys.insert(k);
  std::vector<std::string> out;
  const auto value = [](const auto& m, const std::string& k) {
    const auto it = m.find(k);
    return it == m.end() ? std::string() : it->second;
  };
  for (const auto& k : keys)
    if (value(before, k) != value(after, k)) out.push_back(k);
  return out;
}

std::vector<std::string> context_changes(const std::map<std::string, std::string>& before,
                                         const std::map<std::string, std::string>& after,
                                         const std::set<std::string>& ignore) {
  std::vector<std::string> out;
  for (const auto& k : changed_keys(before, after)) {
    if (ignore.count(k)) continue;
    const auto a = before.count(k) ? before.at(k) : "", b = after.count(k) ? after.at(k) : "";
    out.push_back(
        fmt::format("{} {} -> {}", k, a.empty() ? "(unset)" : a, b.empty() ? "(unset)" : b));
  }
  return out;
}

}  // namespace colltune
