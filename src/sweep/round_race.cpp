#include "sweep/round_race.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "core/race.hpp"
#include "core/stats.hpp"
#include "knobs/knobs.hpp"
#include "store/json_text.hpp"
#include "store/record.hpp"

namespace colltune {
namespace {

// Collective, dtype, op, in-place, ranks, bytes: what one launch median is of.
using CellKey = std::tuple<std::string, std::string, std::string, bool, int, std::uint64_t>;
// Point -> cell -> round -> log of that launch's median time.
using LogMedians = std::map<std::string, std::map<CellKey, std::map<int, double>>>;

Settings group_of(const Point& p) { return group_settings(p.settings); }

LogMedians read_medians(const Manifest& manifest, const std::string& store, int round) {
  LogMedians out;
  for (const LaunchEntry& l : manifest.launches) {
    if (l.status != "done" || l.round > round) continue;
    const std::string path = store + "/" + launch_records_path(l.point_id, l.round);
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty()) continue;
      const auto j = parse_json_lenient(line);
      if (j.is_discarded()) continue;  // the report names a torn line; a race just skips it
      Record r;
      try {
        r = record_from_json(j, path);
      } catch (const std::exception&) {
        continue;
      }
      if (r.skipped || r.samples_seconds.empty()) continue;
      const CellKey key{r.collective, r.dtype, r.op, r.in_place, r.nranks, r.bytes};
      out[l.point_id][key][l.round] = std::log(summarize(r.samples_seconds).median);
    }
  }
  return out;
}

double mean_of(const std::map<int, double>& by_round) {
  double sum = 0;
  for (const auto& [round, value] : by_round) sum += value;
  return sum / static_cast<double>(by_round.size());
}

}  // namespace

std::vector<RaceStop> race_after_round(const std::vector<Point>& points, const Manifest& manifest,
                                       const std::string& store, int round, double tie) {
  std::vector<RaceStop> stops;
  if (round < kSweepRaceMinRounds) return stops;
  const LogMedians medians = read_medians(manifest, store, round);
  const double limit = std::log1p(tie);
  for (const Point& p : points) {
    if (p.baseline || !medians.count(p.id)) continue;
    const Settings group = group_of(p);
    bool beaten_everywhere = true;
    std::string beaten_by;
    for (const auto& [cell, mine] : medians.at(p.id)) {
      // The group's best at this cell: the lowest mean log median.
      const Point* best = nullptr;
      double best_mean = 0;
      for (const Point& q : points) {
        if (group_of(q) != group || !medians.count(q.id) || !medians.at(q.id).count(cell)) continue;
        const double m = mean_of(medians.at(q.id).at(cell));
        if (best == nullptr || m < best_mean) best = &q, best_mean = m;
      }
      if (best == nullptr || best->id == p.id) {
        beaten_everywhere = false;
        break;
      }
      std::vector<double> log_ratios;  // rounds both measured: the blocks
      const auto& theirs = medians.at(best->id).at(cell);
      for (const auto& [r, value] : mine) {
        if (theirs.count(r)) log_ratios.push_back(value - theirs.at(r));
      }
      const auto interval = log_ratios.size() >= static_cast<std::size_t>(kSweepRaceMinRounds)
                                ? mean_interval(log_ratios, 0.99)
                                : std::nullopt;
      if (!interval || interval->first <= limit) {
        beaten_everywhere = false;
        break;
      }
      beaten_by = best->label;
    }
    if (beaten_everywhere && !beaten_by.empty()) {
      stops.push_back(
          {p.id, fmt::format("stopped by the race after round {}: more than {:g}% slower than "
                             "its group's best at every size it measured (99% Student t "
                             "intervals of per-round time ratios; best at the last: {}); its "
                             "later rounds are not launched",
                             round, tie * 100, beaten_by)});
    }
  }
  return stops;
}

std::size_t mark_race_stops(Manifest& manifest, const std::vector<Point>& points,
                            const std::string& store, int round, double tie, std::FILE* out) {
  std::size_t marked = 0;
  for (const RaceStop& stop : race_after_round(points, manifest, store, round, tie)) {
    std::size_t newly = 0;  // a point stopped after an earlier round has none left
    for (LaunchEntry& l : manifest.launches) {
      if (l.point_id != stop.point_id || l.round <= round || l.status == "done" ||
          l.status == "decided") {
        continue;
      }
      l.status = "decided";
      l.warnings.push_back(stop.why);
      ++newly;
    }
    if (newly == 0) continue;
    marked += newly;
    const auto point = std::find_if(points.begin(), points.end(),
                                    [&](const Point& p) { return p.id == stop.point_id; });
    fmt::print(out, "sweep: {}: {}\n", point->label, stop.why);
  }
  return marked;
}

}  // namespace colltune
