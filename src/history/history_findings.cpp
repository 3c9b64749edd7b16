#include "history/history_findings.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "core/decision.hpp"
#include "core/parallel.hpp"

namespace colltune {
namespace {

// Where each change of a series starts and ends its segments, in value indices.
struct Bounds {
  std::size_t lo = 0, at = 0, hi = 0;
};

Bounds bounds_of(const SeriesResult& s, std::size_t change) {
  const auto& c = s.segments.changes;
  return {change == 0 ? 0 : c[change - 1].first_run, c[change].first_run,
          change + 1 < c.size() ? c[change + 1].first_run : s.series.values.size()};
}

bool is_outlier(const SeriesResult& s, std::size_t value) {
  return std::any_of(s.segments.outliers.begin(), s.segments.outliers.end(),
                     [&](const Outlier& o) { return o.run == value; });
}

// Which side of a finding a series' value is on: 0 before (or around, for a spell), 1 after (or
// inside), -1 neither.
using SideOf = std::function<int(const SeriesResult&, std::size_t event, std::size_t value)>;

// A change's sides run to the changes next to it; a spell's runs on either side are left out, as
// outliers are: the levels the change joins are those the series came back to.
int change_side(const SeriesResult& s, std::size_t change, std::size_t value) {
  const Bounds b = bounds_of(s, change);
  for (const auto& sp : s.segments.spells)
    if (value >= sp.first_run && value < sp.end_run) return -1;
  return value < b.lo || value >= b.hi ? -1 : (value < b.at ? 0 : 1);
}

// A spell's runs against the segments on either side of it (its ends are not changes, so the
// nearest changes, or the series' ends, bound them).
int spell_side(const SeriesResult& s, std::size_t spell, std::size_t value) {
  const Spell& sp = s.segments.spells[spell];
  std::size_t lo = 0, hi = s.series.values.size();
  for (const auto& c : s.segments.changes) {
    if (c.first_run <= sp.first_run) lo = c.first_run;
    if (c.first_run >= sp.end_run && hi == s.series.values.size()) hi = c.first_run;
  }
  if (value < lo || value >= hi) return -1;
  return value >= sp.first_run && value < sp.end_run ? 1 : 0;
}

// The step of a group of sizes that changed at one run the same way: per run, the mean over
// the group of its log values (runs every member measured and none holds as an outlier), then a
// pooled Student's t interval between the two sides. `fallback`: the first member's own step.
void group_step(const std::vector<std::pair<const SeriesResult*, std::size_t>>& members,
                const SideOf& side_of, std::array<double, 3> fallback, Finding& f) {
  std::map<std::size_t, std::pair<double, std::size_t>> before, after;  // run -> (sum, count)
  for (const auto& [s, event] : members) {
    for (std::size_t i = 0; i < s->series.values.size(); ++i) {
      const int side = side_of(*s, event, i);
      if (side < 0 || is_outlier(*s, i)) continue;
      auto& sums = side == 0 ? before : after;
      sums[s->series.values[i].run].first += s->series.values[i].log_seconds;
      sums[s->series.values[i].run].second += 1;
    }
  }
  const auto complete = [&](const auto& side) {
    std::vector<double> out;
    for (const auto& [run, sum] : side)
      if (sum.second == members.size()) out.push_back(sum.first / static_cast<double>(sum.second));
    return out;
  };
  const auto a = complete(before), b = complete(after);
  const auto mean = [](const std::vector<double>& v) {
    double sum = 0;
    for (double x : v) sum += x;
    return sum / static_cast<double>(v.size());
  };
  if (a.size() < 2 || b.size() < 2) {
    f.ratio = std::exp(fallback[0]);
    f.ratio_low = std::exp(fallback[1]);
    f.ratio_high = std::exp(fallback[2]);
    return;
  }
  const double ma = mean(a), mb = mean(b);
  double squares = 0;
  for (double x : a) squares += (x - ma) * (x - ma);
  for (double x : b) squares += (x - mb) * (x - mb);
  const double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
  const double df = na + nb - 2.0;
  const double sd = std::max(std::sqrt(squares / df), kMinLaunchSd);
  const double half =
      boost::math::quantile(boost::math::complement(boost::math::students_t(df), 0.025)) * sd *
      std::sqrt(1.0 / na + 1.0 / nb);
  f.ratio = std::exp(mb - ma);
  f.ratio_low = std::exp(mb - ma - half);
  f.ratio_high = std::exp(mb - ma + half);
}

std::string gate_of(SeriesResult& s, const std::vector<HistoryRun>& runs,
                    const ChangePointOptions& o, const std::set<std::string>& ignore_keys) {
  const std::size_t newest_run = runs.size() - 1;
  const auto& v = s.series.values;
  if (v.back().run != newest_run) {
    s.gate_note = "the newest run did not measure it";
    return "not in newest";
  }
  if (v.back().wrong > 0) {
    s.gate_note =
        fmt::format("the newest run found {} wrong elements, whatever its times", v.back().wrong);
    return "wrong results";
  }
  if (v.size() < min_runs_for_change(o)) {
    s.gate_note = fmt::format("{} runs; a change needs {} (at least {} on each side)", v.size(),
                              min_runs_for_change(o), o.min_segment);
    return "short";
  }
  // A slower change the newest run is part of decides first: a newest run off the runs around
  // it on top of a regression (one slow night at the new level) does not hide the regression.
  const Outlier* slow_newest = nullptr;
  for (const auto& out : s.segments.outliers)
    if (out.run + 1 == v.size() && out.off_log > 0) slow_newest = &out;
  const auto& c = s.segments.changes;
  for (std::size_t i = c.size(); i-- > 0;) {
    if (!c[i].notable) continue;
    double step = 0;  // from before this change to now, through any smaller steps since
    for (std::size_t j = i; j < c.size(); ++j) step += c[j].step_log;
    if (step >= std::log1p(o.min_change)) {
      s.gate_note = fmt::format(
          "{:.0f}% slower since the run of {} ({} of its {} runs since; "
          "p {:.2g})",
          std::expm1(step) * 100, runs[v[c[i].first_run].run].started_utc,
          v.size() - c[i].first_run, v.size(), c[i].p_value);
      if (slow_newest)
        s.gate_note +=
            fmt::format("; the newest run is {:.0f}% slower again than the runs around it",
                        std::expm1(slow_newest->off_log) * 100);
      return "slower";
    }
    break;
  }
  if (slow_newest) {
    // Off alone, with a cause on record (its context changed): the next run would only confirm.
    const std::string& point = s.series.key.point_id;
    const auto changed = context_changes(run_context(runs[v[v.size() - 2].run], point),
                                         run_context(runs[v.back().run], point), ignore_keys);
    const double percent = std::expm1(slow_newest->off_log) * 100;
    s.gate_note =
        changed.empty()
            ? fmt::format(
                  "the newest run alone is {:.0f}% slower than the runs around it ({:.1f} "
                  "robust sds): a change or one bad run; the next run tells",
                  percent, slow_newest->z)
            : fmt::format(
                  "the newest run is {:.0f}% slower than the runs around it ({:.1f} "
                  "robust sds) and its context changed: {}",
                  percent, slow_newest->z, fmt::join(changed, "; "));
    return changed.empty() ? "outlier" : "slower";
  }
  return "ok";
}

// Context keys that differ between most consecutive runs (job ids, daemon URIs, ports: the
// launcher's per-launch identity), per point. A setting changes once and stays; these change
// every time, and naming them would bury the one that matters.
using Volatile = std::map<std::string, std::set<std::string>>;

Volatile volatile_keys(const std::vector<HistoryRun>& runs, const std::vector<Series>& all) {
  std::set<std::string> points;
  for (const auto& s : all) points.insert(s.key.point_id);
  Volatile out;
  for (const auto& point : points) {
    std::map<std::string, std::size_t> changed;
    std::size_t pairs = 0;
    std::optional<std::map<std::string, std::string>> before;
    for (const auto& run : runs) {
      if (run.data.contexts.count(point) == 0) continue;
      auto now = run_context(run, point);
      if (before) {
        ++pairs;
        for (const auto& key : changed_keys(*before, now)) ++changed[key];
      }
      before = std::move(now);
    }
    for (const auto& [key, n] : changed)
      if (n > 1 && 2 * n > pairs) out[point].insert(key);
  }
  return out;
}

// Adjacent sizes of one panel whose series changed (or were outlying, or began a spell that
// ended at the same run) at the same run the same way: one finding.
// A series' event: the run it starts at, whether slower, its index, a spell's end run (else 0).
using Event = std::tuple<std::size_t, bool, std::size_t, std::size_t>;

template <typename Events>
void group_events(const std::vector<SeriesResult*>& panel, const std::vector<HistoryRun>& runs,
                  const Volatile& ignore, const std::string& kind, Events events,
                  std::vector<Finding>& out) {
  // run, direction, a spell's end run -> (size position, series, event index)
  std::map<std::tuple<std::size_t, bool, std::size_t>,
           std::vector<std::tuple<std::size_t, SeriesResult*, std::size_t>>>
      at;
  for (std::size_t pos = 0; pos < panel.size(); ++pos) {
    for (const auto& [run, slower, index, end] : events(*panel[pos]))
      at[{run, slower, end}].push_back({pos, panel[pos], index});
  }
  for (auto& [where, hits] : at) {
    std::size_t start = 0;
    for (std::size_t i = 1; i <= hits.size(); ++i) {
      if (i < hits.size() && std::get<0>(hits[i]) == std::get<0>(hits[i - 1]) + 1) continue;
      Finding f;
      f.kind = kind;
      const SeriesResult& first = *std::get<1>(hits[start]);
      f.panel = first.series.key.panel();
      f.label = first.series.label;
      f.collective = first.series.key.collective;
      f.min_bytes = first.series.key.bytes;
      f.max_bytes = std::get<1>(hits[i - 1])->series.key.bytes;
      f.sizes = i - start;
      f.run = std::get<0>(where);
      std::vector<std::pair<const SeriesResult*, std::size_t>> members;
      for (std::size_t k = start; k < i; ++k)
        members.push_back({std::get<1>(hits[k]), std::get<2>(hits[k])});
      if (kind == "change") {
        const auto& c = members.front().first->segments.changes[members.front().second];
        group_step(members, change_side, {c.step_log, c.step_low_log, c.step_high_log}, f);
        f.p_value = 1;
        for (const auto& [s, k] : members)
          f.p_value = std::min(f.p_value, s->segments.changes[k].p_value);
      } else if (kind == "spell") {
        const auto& sp = members.front().first->segments.spells[members.front().second];
        group_step(members, spell_side, {sp.step_log, sp.step_low_log, sp.step_high_log}, f);
        f.p_value = 1;
        f.end_run = std::get<2>(where);
        for (const auto& [s, k] : members) {
          f.p_value = std::min(f.p_value, s->segments.spells[k].p_value);
        }
      } else {
        double sum = 0;
        for (const auto& [s, o] : members) sum += s->segments.outliers[o].off_log;
        f.ratio = f.ratio_low = f.ratio_high = std::exp(sum / static_cast<double>(members.size()));
      }
      // The run before it in this series, for what differed.
      const auto& values = first.series.values;
      const auto it = std::find_if(values.begin(), values.end(),
                                   [&](const RunValue& v) { return v.run == f.run; });
      if (it != values.begin() && it != values.end()) {
        const std::string& point = first.series.key.point_id;
        const auto skip = ignore.find(point);
        f.context = context_changes(run_context(runs[std::prev(it)->run], point),
                                    run_context(runs[f.run], point),
                                    skip == ignore.end() ? std::set<std::string>{} : skip->second);
      }
      out.push_back(std::move(f));
      start = i;
    }
  }
}

}  // namespace

HistoryResult analyse_history(std::vector<HistoryRun>& runs, const HistoryOptions& o) {
  HistoryResult h;
  std::vector<Series> all = build_series(runs);
  const Volatile ignore = volatile_keys(runs, all);
  // Every series' best split first, held together with Benjamini-Hochberg: with no change
  // anywhere, the chance of any false change in the whole history stays at the level.
  std::vector<double> first_p;
  const auto logs_of = [](const Series& s) {
    std::vector<double> x;
    for (const auto& v : s.values) x.push_back(v.log_seconds);
    return x;
  };
  // Series segment alone: over the cores (a year of nightly runs searches O(runs^2) intervals
  // in each of thousands of series).
  first_p.resize(all.size());
  parallel_for(all.size(), [&](std::size_t i) {
    first_p[i] = segment_series(logs_of(all[i]), o.change).first_split_p;
  });
  std::vector<double> sorted = first_p;
  std::sort(sorted.begin(), sorted.end());
  const double m = static_cast<double>(sorted.size());
  h.series_level = o.change.level / std::max(m, 1.0);
  for (std::size_t k = sorted.size(); k-- > 0;) {
    const double rank = static_cast<double>(k + 1);
    if (sorted[k] <= rank * o.change.level / m) {
      h.series_level = rank * o.change.level / m;
      break;
    }
  }
  ChangePointOptions held = o.change;
  held.level = h.series_level;
  held.deeper_level = o.change.level / std::max(m, 1.0);
  bool slower = false, gap = false;
  std::size_t judged = 0;  // series the gate could say ok or slower of
  std::vector<Segmentation> segments(all.size());
  h.series.reserve(all.size());
  parallel_for(all.size(),
               [&](std::size_t i) { segments[i] = segment_series(logs_of(all[i]), held); });
  for (std::size_t i = 0; i < all.size(); ++i) {
    SeriesResult r;
    r.segments = std::move(segments[i]);
    r.series = std::move(all[i]);
    const auto skip = ignore.find(r.series.key.point_id);
    r.gate = gate_of(r, runs, held, skip == ignore.end() ? std::set<std::string>{} : skip->second);
    const bool failed = r.gate == "slower" || r.gate == "wrong results";  // exit 1 alike
    slower = slower || failed;
    gap = gap || (r.gate != "ok" && !failed);
    judged += r.gate == "ok" || failed;
    h.series.push_back(std::move(r));
  }
  // --allow-incomplete forgives some series, never a gate that judged none.
  h.nothing_judged = judged == 0;
  h.exit_code = slower ? 1 : ((gap && !o.allow_incomplete) || h.nothing_judged ? 3 : 0);
  // The spread between runs, for compare's noise floor, is the machine's drift: a change with
  // nothing recorded differing (a level shift of the machine's own) is part of it; only changes
  // that came with a recorded cause cut the series for it.
  for (auto& r : h.series) {
    const auto& values = r.series.values;
    const std::string& point = r.series.key.point_id;
    const auto skip = ignore.find(point);
    std::vector<std::size_t> explained;
    for (const auto& c : r.segments.changes) {
      const auto differed =
          context_changes(run_context(runs[values[c.first_run - 1].run], point),
                          run_context(runs[values[c.first_run].run], point),
                          skip == ignore.end() ? std::set<std::string>{} : skip->second);
      if (!differed.empty()) explained.push_back(c.first_run);
    }
    std::vector<double> x;
    for (const auto& v : values) x.push_back(v.log_seconds);
    std::tie(r.segments.between_run_sd_log, r.segments.between_run_df) = drift_spread(x, explained);
  }
  std::map<std::string, std::vector<SeriesResult*>> panels;  // sizes ascending (series order)
  for (auto& r : h.series) panels[r.series.key.panel()].push_back(&r);
  std::vector<Finding> changes, spells, outliers;
  for (const auto& [name, panel] : panels) {
    group_events(
        panel, runs, ignore, "change",
        [](const SeriesResult& s) {
          std::vector<Event> e;
          for (std::size_t i = 0; i < s.segments.changes.size(); ++i) {
            const auto& c = s.segments.changes[i];
            if (c.notable) e.push_back({s.series.values[c.first_run].run, c.step_log > 0, i, 0});
          }
          return e;
        },
        changes);
    group_events(
        panel, runs, ignore, "spell",
        [](const SeriesResult& s) {
          std::vector<Event> e;
          for (std::size_t i = 0; i < s.segments.spells.size(); ++i) {
            const auto& sp = s.segments.spells[i];
            if (sp.notable) {
              e.push_back({s.series.values[sp.first_run].run, sp.step_log > 0, i,
                           s.series.values[sp.end_run].run});
            }
          }
          return e;
        },
        spells);
    group_events(
        panel, runs, ignore, "outlier",
        [](const SeriesResult& s) {
          std::vector<Event> e;
          for (std::size_t i = 0; i < s.segments.outliers.size(); ++i) {
            const auto& out = s.segments.outliers[i];
            e.push_back({s.series.values[out.run].run, out.off_log > 0, i, 0});
          }
          return e;
        },
        outliers);
  }
  const auto newest_first = [](const Finding& a, const Finding& b) {
    return std::tie(b.run, a.panel, a.min_bytes) < std::tie(a.run, b.panel, b.min_bytes);
  };
  std::sort(changes.begin(), changes.end(), newest_first);
  std::sort(spells.begin(), spells.end(), newest_first);
  std::sort(outliers.begin(), outliers.end(), newest_first);
  h.findings = std::move(changes);
  h.findings.insert(h.findings.end(), spells.begin(), spells.end());
  h.findings.insert(h.findings.end(), outliers.begin(), outliers.end());
  return h;
}

}  // namespace colltune
