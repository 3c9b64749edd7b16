#include "report/analysis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "knobs/knob_scope.hpp"
#include "knobs/knobs.hpp"
#include "report/escape.hpp"

namespace colltune {
namespace {

// Every launch's samples as one list, for the cell's summary; made when needed, not kept (a copy
// per cell was 0.2 GB of a 10^6-size report).
std::vector<double> pooled(const LaunchSamples& launches) {
  std::vector<double> out;
  for (const auto& samples : launches) out.insert(out.end(), samples.begin(), samples.end());
  return out;
}

// A point's placement and backend: what its baseline shares with it.
std::map<std::string, std::string> group_of(const PointInfo& p) {
  return group_settings(p.settings);
}

// Which launch measured (point, round): points that shared a sweep launch (interleave) get the
// same id; the settings of one `colltune run --interleave` file all share its launch.
std::map<std::pair<std::string, int>, std::string> launch_ids(const Dataset& d) {
  std::map<std::pair<std::string, int>, std::string> ids;
  for (const auto& l : d.launches) {
    std::set<std::string> members(l.together.begin(), l.together.end());
    members.insert(l.point_id);
    ids[{l.point_id, l.round}] = fmt::format("{} round {}", *members.begin(), l.round);
  }
  return ids;
}

std::string launch_id_of(const std::map<std::pair<std::string, int>, std::string>& ids,
                         const Record& r) {
  const auto it = ids.find({r.point_id, r.round});
  return it != ids.end() ? it->second : fmt::format("launch {}", r.round);
}

std::string backend_of(const Dataset& d, const PointInfo& p) {
  if (const auto it = p.settings.find("backend"); it != p.settings.end()) return it->second;
  const auto ctx = d.contexts.find(p.id);
  return ctx != d.contexts.end() ? ctx->second.value("backend", "") : "";
}

// Leaves out of the panel the points whose knobs cannot change its collective.
void drop_replicates(Panel& panel, const Dataset& d) {
  for (const auto& p : d.points) {
    if (p.baseline || !panel.cells.count(p.id)) continue;
    const auto base = baseline_of(d, p.id);
    const PointInfo* b = base ? find_point(d, *base) : nullptr;
    const auto none = std::map<std::string, std::string>{};
    const std::string backend = backend_of(d, p);
    if (settings_affect(p.settings, b ? b->settings : none, panel.key.collective, backend))
      continue;
    panel.replicates[p.id] = fmt::format(
        "left out: its knobs cannot change {} on the {} backend (a replicate of the baseline)",
        panel.key.collective, backend.empty() ? "unknown" : backend);
    panel.cells.erase(p.id);
  }
}

bool same_launches(const Cell& a, const Cell& b) {
  return !a.launch_ids.empty() && a.launch_ids == b.launch_ids;
}

// Where the fastest point raced, the race's decision stands: it won (every rival eliminated at
// 99%, paired turn by turn), or it is tied or undecided with its fellows, and then nothing is
// named; a tie that holds the baseline keeps the baseline. Where the race eliminated the
// baseline, the fastest of those left is named: it beat the baseline (the best at the
// baseline's elimination is among those left, and the rest are not shown apart from it), and
// keeping the library's choice would keep the one setting shown to be slower.
void apply_race(SizeVerdict& v, const Panel& panel) {
  const auto race_of = [&](const std::string& id) { return panel.cells.at(id).at(v.bytes).race; };
  v.race = race_of(v.fastest);
  // Eliminated yet fastest: its rivals were left out of the panel (replicates), no race is left.
  const bool fastest_out = v.race == RaceOutcome::kEliminated;
  if (fastest_out) v.race = RaceOutcome::kNotRaced;
  const bool baseline_out = !fastest_out && v.baseline && *v.baseline != v.fastest &&
                            panel.cells.count(*v.baseline) &&
                            panel.cells.at(*v.baseline).count(v.bytes) &&
                            race_of(*v.baseline) == RaceOutcome::kEliminated;
  if (v.race == RaceOutcome::kNotRaced) {
    // Launches whose races ended apart (a --race-after launch after the first): the baseline,
    // eliminated in every launch that measured it, is still beaten by what was left.
    if (baseline_out) v.significant = v.baseline_eliminated = true;
    return;
  }
  if (v.race == RaceOutcome::kWon) {
    v.significant = true;
    v.tied.clear();
    return;
  }
  v.significant = false;
  v.tied.clear();
  for (const auto& [id, by_size] : panel.cells) {
    if (id != v.fastest && by_size.count(v.bytes) && race_of(id) == v.race) v.tied.push_back(id);
  }
  if (v.race == RaceOutcome::kTied && v.baseline &&
      std::find(v.tied.begin(), v.tied.end(), *v.baseline) != v.tied.end()) {
    v.tied.push_back(v.fastest);
    v.tied.erase(std::find(v.tied.begin(), v.tied.end(), *v.baseline));
    v.fastest = *v.baseline;
    v.baseline_fastest = true;
    v.margin_over_baseline = 0;
    return;
  }
  if (baseline_out) v.significant = v.baseline_eliminated = true;
}

double launch_center(const LaunchSamples& launches) {
  int counted = 0;
  const double mean_log = mean_log_median(launches, counted);
  return counted > 0 ? std::exp(mean_log) : 0;
}

}  // namespace

std::string PanelKey::title() const {
  std::string text = collective + " " + dtype;
  if (op != "none") text += " " + op;
  return fmt::format("{}, {}, {}", text, counted(static_cast<std::size_t>(nranks), "rank"),
                     in_place ? "in-place" : "out-of-place");
}

const PointInfo* find_point(const Dataset& d, const std::string& id) {
  for (const auto& p : d.points) {
    if (p.id == id) return &p;
  }
  return nullptr;
}

std::optional<std::string> baseline_of(const Dataset& d, const std::string& point_id) {
  const PointInfo* point = find_point(d, point_id);
  if (point == nullptr) return std::nullopt;
  const auto group = group_of(*point);
  for (const auto& p : d.points) {
    if (p.baseline && group_of(p) == group) return p.id;
  }
  // A placement baseline stands for every placement with its backend and rank count.
  const auto same = [&](const PointInfo& p, const char* key) {
    const auto a = p.settings.find(key), b = point->settings.find(key);
    return (a == p.settings.end()) == (b == point->settings.end()) &&
           (a == p.settings.end() || a->second == b->second);
  };
  for (const auto& p : d.points) {
    if (p.baseline && same(p, "backend") && same(p, "np")) return p.id;
  }
  return std::nullopt;
}

std::vector<Panel> build_panels(const Dataset& d) { return build_panels(d, nullptr); }

std::vector<Panel> build_panels(const Dataset& d, std::vector<Record>* spent) {
  const auto ids = launch_ids(d);
  std::map<PanelKey, Panel> panels;
  for (std::size_t index = 0; index < d.records.size(); ++index) {
    const Record& r = d.records[index];
    const PanelKey key{r.collective, r.dtype, r.op, r.in_place, r.nranks};
    Panel& panel = panels[key];
    panel.key = key;
    if (r.skipped) {
      panel.skipped[r.point_id] = *r.skipped;
      continue;
    }
    Cell& cell = panel.cells[r.point_id][r.bytes];
    const bool first_record = cell.launch_ids.empty();
    const std::string launch = launch_id_of(ids, r);
    const auto at = std::find(cell.launch_ids.begin(), cell.launch_ids.end(), launch);
    if (at == cell.launch_ids.end()) {
      cell.launch_ids.push_back(launch);
      if (spent != nullptr) {
        cell.launches.push_back(std::move((*spent)[index].samples_seconds));
      } else {
        cell.launches.push_back(r.samples_seconds);
      }
    } else {
      auto& samples = cell.launches[static_cast<std::size_t>(at - cell.launch_ids.begin())];
      samples.insert(samples.end(), r.samples_seconds.begin(), r.samples_seconds.end());
    }
    if (r.wrong) cell.wrong = cell.wrong.value_or(0) + *r.wrong;
    // One outcome for the cell only where every launch's race ended alike.
    if (first_record) {
      cell.race = r.race, cell.race_turn = r.race_turn;
    } else if (cell.race != r.race) {
      cell.race = RaceOutcome::kNotRaced, cell.race_turn = 0;
    }
    cell.algbw_bytes = r.algbw_bytes;  // every round measures the same op
    cell.bus_factor = r.bus_factor;
  }
  std::vector<Panel> out;
  for (auto& [key, panel] : panels) {
    drop_replicates(panel, d);
    for (const auto& p : d.points) {
      if (panel.cells.count(p.id) || panel.skipped.count(p.id)) panel.point_ids.push_back(p.id);
    }
    std::vector<std::uint64_t> sizes;
    for (auto& [point, by_size] : panel.cells) {
      for (auto& [bytes, cell] : by_size) {
        cell.summary = summarize(pooled(cell.launches));
        cell.center_seconds = launch_center(cell.launches);
        const double t = cell.center_seconds;
        cell.algbw_gbps = t > 0 ? cell.algbw_bytes / t / 1e9 : 0;
        cell.busbw_gbps = cell.algbw_gbps * cell.bus_factor;
        sizes.push_back(bytes);
      }
    }
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    panel.sizes = sizes;
    out.push_back(std::move(panel));
  }
  return out;
}

LaunchTest launch_level_test(const Cell& base, const Cell& cand) {
  // Interleaved in the same launches: paired, so what a launch does to both cancels.
  if (same_launches(base, cand) && base.launches.size() >= 2)
    return test_paired_launches(base.launches, cand.launches);
  return test_launches(base.launches, cand.launches);
}

PairTest test_faster(const Cell& a, const Cell& b) {
  PairTest t;
  if (same_launches(a, b) && a.launches.size() == 1) {
    // One launch: its samples are all there is; the report says the launch noise is unseen.
    const auto& samples_a = a.launches.front();
    const auto& samples_b = b.launches.front();
    const auto na = samples_a.size(), nb = samples_b.size();
    t.method = "interleaved in 1 launch, Mann-Whitney (launch-to-launch noise unseen)";
    if (std::min(na, nb) < kMinSamplesForVerdict) {
      t.why_not =
          fmt::format("too few samples ({} and {}; {} needed)", na, nb, kMinSamplesForVerdict);
      return t;
    }
    const double two_sided = mann_whitney_p(samples_a, samples_b);
    t.p_faster = a.summary.median < b.summary.median ? two_sided / 2 : 1 - two_sided / 2;
    t.decidable = true;
    return t;
  }
  // The launch is the unit: samples pooled over launches would let one launch that measures the
  // two alike (or apart) decide for all.
  const LaunchTest l = launch_level_test(b, a);
  t.method =
      l.method == "paired launches"
          ? fmt::format("interleaved in {} launches, paired t on launch medians", a.launches.size())
          : fmt::format("{}+{} launches, Welch", l.cand_launches, l.base_launches);
  if (l.method.empty()) {
    t.why_not = l.why_not;
    return t;
  }
  t.p_faster = l.p_faster;
  t.decidable = true;
  return t;
}

std::vector<SizeVerdict> winners(const Panel& panel, const Dataset& d) {
  std::vector<SizeVerdict> out;
  out.reserve(panel.sizes.size());  // grown by doubling, 10^6 verdicts were held 1.5 times
  for (std::uint64_t bytes : panel.sizes) {
    std::vector<std::pair<double, std::string>> ranked;
    SizeVerdict v;
    v.bytes = bytes;
    for (const auto& id : panel.point_ids) {
      const auto it = panel.cells.find(id);
      if (it == panel.cells.end() || it->second.count(bytes) == 0) continue;
      ranked.emplace_back(it->second.at(bytes).center_seconds, id);
      if (it->second.at(bytes).race == RaceOutcome::kEliminated) v.eliminated.push_back(id);
    }
    if (ranked.empty()) continue;
    // A point the race eliminated ranks after every other, whatever its few samples' median.
    const auto eliminated = [&](const std::string& id) {
      return std::find(v.eliminated.begin(), v.eliminated.end(), id) != v.eliminated.end();
    };
    // A point that gave wrong results ranks after every other, even the eliminated: its speed
    // is no answer, and tune must never recommend it.
    const auto wrong = [&](const std::string& id) {
      return panel.cells.at(id).at(bytes).wrong.value_or(0) > 0;
    };
    std::stable_sort(ranked.begin(), ranked.end(), [&](const auto& a, const auto& b) {
      return std::tuple(wrong(a.second), eliminated(a.second), a.first) <
             std::tuple(wrong(b.second), eliminated(b.second), b.first);
    });
    v.fastest = ranked[0].second;
    const Cell& best = panel.cells.at(v.fastest).at(bytes);
    const auto cell_of = [&](const std::string& id) -> const Cell* {
      const auto it = panel.cells.find(id);
      if (it == panel.cells.end() || it->second.count(bytes) == 0) return nullptr;
      return &it->second.at(bytes);
    };
    if (ranked.size() > 1) {
      v.runner_up = ranked[1].second;
      v.margin_over_runner_up =
          best.center_seconds > 0 ? ranked[1].first / best.center_seconds - 1 : 0;
      v.intervals_overlap = cell_of(*v.runner_up)->summary.ci_low <= best.summary.ci_high;
    }
    for (std::size_t i = 1; i < ranked.size(); ++i) {
      // Out of the race in every launch that measured it (a --race-after launch measures again
      // only what the first left open): slower, whatever a test across unequal launches says.
      if (eliminated(ranked[i].second) || wrong(ranked[i].second)) continue;
      const PairTest t = test_faster(best, *cell_of(ranked[i].second));
      if (!t.decidable || t.p_faster >= kSignificanceLevel) v.tied.push_back(ranked[i].second);
    }
    v.baseline = baseline_of(d, v.fastest);
    const Cell* base = v.baseline ? cell_of(*v.baseline) : nullptr;
    if (base != nullptr && best.center_seconds > 0)
      v.margin_over_baseline = base->center_seconds / best.center_seconds - 1;
    v.baseline_fastest = v.baseline && *v.baseline == v.fastest;
    // The question a tuned file answers: does the fastest beat what the library does alone?
    const Cell* rival = base != nullptr && !v.baseline_fastest ? base
                        : v.runner_up                          ? cell_of(*v.runner_up)
                                                               : nullptr;
    if (rival != nullptr) v.test = test_faster(best, *rival);
    out.push_back(std::move(v));
  }
  // Many sizes are decided at once: adjust so that a panel of replicates names no winner.
  std::vector<double> raw;
  for (const auto& v : out) raw.push_back(v.test.decidable ? v.test.p_faster : 1.0);
  const auto adjusted = benjamini_hochberg(raw);
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i].p_value = adjusted[i];
    out[i].significant = out[i].test.decidable && adjusted[i] < kSignificanceLevel;
    apply_race(out[i], panel);
    if (panel.cells.at(out[i].fastest).at(out[i].bytes).wrong.value_or(0) > 0) {
      out[i].significant = false;  // every point here gave wrong results: no winner
      out[i].tied.clear();
    }
  }
  return out;
}

}  // namespace colltune
