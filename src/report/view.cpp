#include "report/view.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <climits>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string_view>
#include <utility>

#include "core/failure_reason.hpp"
#include "core/mpi_family.hpp"
#include "core/sizes.hpp"
#include "report/analysis.hpp"
#include "report/answer.hpp"
#include "report/escape.hpp"
#include "report/panel_labels.hpp"
#include "report/sampling_text.hpp"
#include "report/size_bound.hpp"
#include "report/straggler.hpp"

namespace colltune {
namespace {}  // namespace

std::string mpi_libraries(const Dataset& d) {
  std::set<std::string> values;
  for (const auto& [id, ctx] : d.contexts) {
    if (!ctx.is_object() || !ctx.contains("library_versions")) continue;
    const auto& versions = ctx["library_versions"];
    if (!versions.is_object() || !versions.contains("mpi") || !versions["mpi"].is_string())
      continue;
    const std::string text = versions["mpi"].get<std::string>();
    const auto identity = identify_mpi_library(text);
    values.insert(identity ? identity->text() : text.substr(0, text.find('\n')));
  }
  return values.empty() ? "n/a" : fmt::format("{}", fmt::join(values, "; "));
}

namespace {

// Distinct values of a context field over all points, joined.
std::string distinct(const Dataset& d, const std::vector<std::string>& path) {
  std::set<std::string> values;
  for (const auto& [id, ctx] : d.contexts) {
    const nlohmann::json* v = &ctx;
    for (const auto& key : path) {
      if (!v->is_object() || !v->contains(key)) {
        v = nullptr;
        break;
      }
      v = &(*v)[key];
    }
    if (v == nullptr) continue;
    if (v->is_string()) {
      values.insert(v->get<std::string>());
    } else if (v->is_array()) {
      std::vector<std::string> items;
      for (const auto& item : *v)
        items.push_back(item.is_string() ? item.get<std::string>() : item.dump());
      values.insert(fmt::format("{}", fmt::join(items, ", ")));
    } else {
      values.insert(v->dump());
    }
  }
  if (values.empty()) return "n/a";
  // Times differ per launch: the span says more than the list.
  if (path.size() == 1 && path[0] == "start_time_utc" && values.size() > 1) {
    return fmt::format("{} to {}", *values.begin(), *values.rbegin());
  }
  return fmt::format("{}", fmt::join(values, "; "));
}

using Labeler = std::function<std::string(const std::string&)>;

constexpr const char* kBaselineOut = ", the baseline eliminated: the fastest left beat it";

std::string significance_text(const SizeVerdict& v, const Panel& panel, const Labeler& label_of) {
  if (v.race != RaceOutcome::kNotRaced) {
    std::vector<std::string> dropped;
    int first_out = INT_MAX, last_out = 0;
    for (const auto& id : v.eliminated) {
      const int at = panel.cells.at(id).at(v.bytes).race_turn;
      dropped.push_back(fmt::format("{} (turn {})", label_of(id), at));
      first_out = std::min(first_out, at);
      last_out = std::max(last_out, at);
    }
    // A few are named; many only counted (the tied column names who is left), so a row stays
    // a few lines tall.
    std::string out;
    if (dropped.size() > 3) {
      out =
          first_out == last_out
              ? fmt::format("; {} eliminated at turn {}", dropped.size(), first_out)
              : fmt::format("; {} eliminated at turns {}-{}", dropped.size(), first_out, last_out);
    } else if (!dropped.empty()) {
      out = fmt::format("; eliminated: {}", fmt::join(dropped, ", "));
    }
    const int turn = panel.cells.at(v.fastest).at(v.bytes).race_turn;
    switch (v.race) {
      case RaceOutcome::kWon:
        return fmt::format("yes, race won at turn {}{}", turn, out);
      case RaceOutcome::kTied:
        return fmt::format("race tied at turn {}{}{}{}", turn,
                           v.baseline_fastest ? ", the baseline among them: keep it" : "",
                           v.baseline_eliminated ? kBaselineOut : "", out);
      default:
        return fmt::format("race undecided: budget of {} turns spent{}{}", turn,
                           v.baseline_eliminated ? kBaselineOut : "", out);
    }
  }
  if (!v.runner_up) return "only one configuration";
  if (v.significant && v.baseline_eliminated) {
    return "yes: the baseline was eliminated in every launch that raced it; the fastest left "
           "beat it";
  }
  if (!v.test.decidable) return fmt::format("undecided: {} ({})", v.test.why_not, v.test.method);
  const std::string detail = fmt::format("adjusted p={:.3g}, {}{}", v.p_value, v.test.method,
                                         v.intervals_overlap ? "" : ", intervals apart");
  if (!v.significant) return "no significant difference (" + detail + ")";
  return (v.baseline_fastest ? "yes, the baseline: keep the library's choice (" : "yes (") +
         detail + ")";
}

// The panel's view with its tables and charts cut to what a reader can scan (size_bound.hpp);
// `answer` gets the answer, which reads every size.
PanelView make_panel_view(const Panel& panel, const Dataset& d, AnswerView& answer) {
  PanelView view;
  view.title = panel.key.title();
  const auto short_label = short_labels(panel, d, view.shared, view.key_note);
  if (short_label.empty()) view.shared.clear(), view.key_note.clear();
  const Labeler label_of = [&](const std::string& id) {
    const auto it = short_label.find(id);
    return it != short_label.end() ? it->second : colltune::label_of(d, id);
  };
  for (const auto& id : panel.point_ids) {
    if (panel.skipped.count(id)) {
      view.skipped.push_back(label_of(id) + ": " + panel.skipped.at(id));
    }
    if (!panel.cells.count(id)) continue;
    const PointInfo* p = find_point(d, id);
    SeriesView s{label_of(id), p != nullptr && p->baseline, {}};
    for (const auto& [bytes, cell] : panel.cells.at(id)) {
      // busbw is bytes x factor / time: its interval comes from the time's, upside down.
      const double per_second = cell.center_seconds * cell.busbw_gbps;
      const auto busbw_at = [&](double t) { return t > 0 ? per_second / t : 0.0; };
      s.points.push_back({bytes, cell.center_seconds, cell.summary.ci_low, cell.summary.ci_high,
                          cell.busbw_gbps, busbw_at(cell.summary.ci_high),
                          busbw_at(cell.summary.ci_low)});
    }
    view.ceiling_gbps = std::max(view.ceiling_gbps, ceiling_for(d, id));
    view.baselines += s.baseline ? 1 : 0;
    view.series.push_back(std::move(s));
  }
  // Replicates share their reason: one line per reason, the configurations counted.
  std::vector<std::pair<std::string, std::vector<std::string>>> by_reason;
  for (const auto& [id, why] : panel.replicates) {
    auto it = std::find_if(by_reason.begin(), by_reason.end(),
                           [&](const auto& entry) { return entry.first == why; });
    if (it == by_reason.end()) it = by_reason.insert(it, {why, {}});
    it->second.push_back(label_of(id));
  }
  for (const auto& [why, labels] : by_reason) {
    view.skipped.push_back(labels.size() == 1 ? labels.front() + ": " + why
                                              : fmt::format("{} ({}: {})", why,
                                                            counted(labels.size(), "configuration"),
                                                            first_of(labels, 4)));
  }
  const std::vector<SizeVerdict> verdicts = winners(panel, d);
  std::set<std::uint64_t> sizes;
  for (const SeriesView& s : view.series) {
    for (const SeriesPoint& p : s.points) sizes.insert(p.bytes);
  }
  for (const SizeVerdict& v : verdicts) sizes.insert(v.bytes);
  std::set<std::uint64_t> shown = sizes_to_show(sizes);
  std::size_t change_rows = 0;
  AnswerBuilder answer_rows(view);
  std::string previous;
  for (const SizeVerdict& v : verdicts) {
    WinnerRow row;
    row.bytes = v.bytes;
    row.size = format_bytes(v.bytes);
    // Only a significant winner is named: anything else is a guess.
    const bool named = v.significant || !v.runner_up;
    row.winner = named ? label_of(v.fastest) : "no significant difference";
    const double busbw = panel.cells.at(v.fastest).at(v.bytes).busbw_gbps;
    row.busbw = fmt::format("{:.3f}", busbw);
    const double ceiling = ceiling_for(d, v.fastest);
    row.of_ceiling = ceiling > 0 ? fmt::format("{:.1f}%", busbw / ceiling * 100) : "n/a";
    row.vs_runner_up =
        v.runner_up
            ? fmt::format("{}{:+.1f}% over {}", named ? "" : label_of(v.fastest) + " fastest, ",
                          v.margin_over_runner_up * 100, label_of(*v.runner_up))
            : "n/a";
    if (v.baseline_fastest) {
      row.vs_baseline = "is the baseline";
    } else if (v.margin_over_baseline) {
      row.vs_baseline = fmt::format("{:+.1f}%", *v.margin_over_baseline * 100);
      row.gain_over_baseline = *v.margin_over_baseline;
    } else {
      row.vs_baseline = "n/a";
    }
    row.significance = significance_text(v, panel, label_of);
    std::vector<std::string> tied;
    constexpr std::size_t kMaxNamed = 4;
    for (std::size_t i = 0; i < v.tied.size() && i < kMaxNamed; ++i)
      tied.push_back(label_of(v.tied[i]));
    if (v.tied.size() > kMaxNamed)
      tied.push_back(fmt::format("{} more", v.tied.size() - kMaxNamed));
    row.tied = fmt::format("{}", fmt::join(tied, ", "));
    if (!named) {
      std::vector<std::string> contenders{v.fastest};
      contenders.insert(contenders.end(), v.tied.begin(), v.tied.end());
      for (const auto& id : contenders) {
        row.contenders.push_back(label_of(id));
        if (const PointInfo* p = find_point(d, id); p != nullptr && p->baseline)
          row.baselines_in_contention.push_back(label_of(id));
      }
    }
    // Crossovers only between winners the data supports.
    if (v.significant) {
      if (!previous.empty() && previous != row.winner) {
        row.winner_changes = true;
        view.changes.push_back(fmt::format("at {}: {} -> {}", row.size, previous, row.winner));
      }
      previous = row.winner;
    }
    answer_rows.add(row);
    if (row.winner_changes && change_rows++ < kMaxShownChanges) shown.insert(v.bytes);
    if (shown.count(v.bytes)) view.winners.push_back(std::move(row));
  }
  if (!verdicts.empty()) answer = answer_rows.finish();
  bound_panel(view, shown, sizes.size());
  return view;
}

// One row per (status, reason): the configurations (three named, the rest counted) and rounds.
std::vector<FailureRow> failure_rows(
    const std::map<std::pair<std::string, std::string>, std::vector<std::pair<std::string, int>>>&
        failed) {
  std::vector<FailureRow> rows;
  for (const auto& [why, launches] : failed) {
    std::vector<std::string> labels;
    std::set<int> rounds;
    for (const auto& [label, round] : launches) {
      if (std::find(labels.begin(), labels.end(), label) == labels.end()) labels.push_back(label);
      rounds.insert(round);
    }
    std::string point = labels.size() <= 3 ? fmt::format("{}", fmt::join(labels, ", "))
                                           : fmt::format("{}, {}, {} and {} more", labels[0],
                                                         labels[1], labels[2], labels.size() - 3);
    if (launches.size() > 1) point = fmt::format("{} launches: {}", launches.size(), point);
    rows.push_back({point, fmt::format("{}", fmt::join(rounds, ", ")), why.first, why.second});
  }
  return rows;
}

}  // namespace

double ceiling_for(const Dataset& d, const std::string& point_id) {
  const auto context = d.contexts.find(point_id);
  const bool nccl = context != d.contexts.end() && context->second.value("backend", "") == "nccl";
  return nccl ? d.device_ceiling_gbps : d.host_ceiling_gbps;
}

namespace {

// The view of `d`. With `spent` (d.records, owned by the caller), the panels take the records'
// samples and the records go once they are summarised.
ReportView assemble_view(const Dataset& d, std::vector<Record>* spent) {
  ReportView view;
  view.title = fmt::format("colltune report: {}", d.name);
  std::map<std::string, int> counts;
  for (const auto& l : d.launches) ++counts[l.status];
  view.summary =
      fmt::format("{} ({}), {}, {}", d.source, d.kind, counted(d.points.size(), "configuration"),
                  counted(d.records.size(), "record"));
  if (!d.launches.empty()) {
    view.summary += fmt::format(
        "; {}: {} done, {} failed, {} timeout, {} not run",
        d.launches.size() == 1 ? std::string("1 launch")
                               : fmt::format("{} launches", d.launches.size()),
        counts["done"], counts["failed"], counts["timeout"], counts["pending"] + counts["running"]);
    if (counts["decided"] > 0) {
      view.summary += fmt::format(", {} not needed (stopped by the race)", counts["decided"]);
    }
  }
  view.context = {
      {"colltune", distinct(d, {"colltune_version"}) + " " + distinct(d, {"git_revision"})},
      {"backends", distinct(d, {"backend"})},
      {"hosts", distinct(d, {"hosts"})},
      {"ranks", distinct(d, {"nranks"})},
      {"ranks per host", distinct(d, {"ranks_per_host"})},
      {"MPI library", mpi_libraries(d)},
      {"timing", distinct(d, {"timing"}) + ", " + sampling_texts(d.contexts)},
      {"cache", distinct(d, {"cache"})},
      {"started", distinct(d, {"start_time_utc"})},
  };
  std::size_t shared = 0, largest = 0;
  std::set<std::string> switched;  // how the shared launches switched their settings
  for (const auto& l : d.launches) {
    if (l.together.empty()) continue;
    ++shared;
    largest = std::max(largest, l.together.size() + 1);
    const auto point = std::find_if(d.points.begin(), d.points.end(),
                                    [&](const PointInfo& p) { return p.id == l.point_id; });
    const bool nccl = point != d.points.end() && point->settings.count("backend") != 0 &&
                      point->settings.at("backend") == "nccl";
    switched.insert(nccl ? "NCCL_ALGO / NCCL_PROTO set at each NCCL communicator init"
                         : "Open MPI settings switched through MPI_T");
  }
  if (shared > 0) {
    view.context.emplace_back(
        "interleaved",
        fmt::format("{} of {} point-rounds shared a launch, up to {} points each: {}, one "
                    "communicator each, samples in turns",
                    shared, d.launches.size(), largest, fmt::join(switched, "; ")));
  }
  // GPU runs: the NCCL and CUDA versions and the GPUs, where any point has them.
  for (const auto& [label, key] :
       std::vector<std::pair<std::string, std::string>>{{"NCCL", "nccl"},
                                                        {"CUDA runtime", "cuda_runtime"},
                                                        {"CUDA driver", "cuda_driver"},
                                                        {"GPUs (rank 0)", "gpu"}}) {
    const std::string value = distinct(d, {"library_versions", key});
    if (value != "n/a") view.context.emplace_back(label, value);
  }
  // Launches that failed alike are one row: 46 launches refused for one cause read as one line.
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<std::string, int>>> failed;
  for (const auto& l : d.launches) {
    if (l.status == "done" || l.status == "decided") continue;  // the race's reason: a warning
    std::string detail = l.exit_code ? fmt::format("exit {}", *l.exit_code) : "";
    if (l.signal) detail += fmt::format("signal {}", *l.signal);
    if (const auto reason = failure_reason(l.tail))
      detail += (detail.empty() ? "" : ": ") + *reason;
    failed[{l.status, detail}].emplace_back(label_of(d, l.point_id), l.round);
  }
  // Wrong results fail a measurement however fast it was: listed with the failed launches.
  for (const Record& r : d.records) {
    if (r.wrong.value_or(0) == 0) continue;
    failed[{"wrong results", fmt::format("{} {} {} {}: {} wrong elements", r.collective, r.dtype,
                                         r.op, format_bytes(r.bytes), *r.wrong)}]
        .emplace_back(label_of(d, r.point_id), r.round);
  }
  view.failures = failure_rows(failed);
  auto warnings = d.warnings;
  for (auto& w : straggler_warnings(d)) warnings.push_back(std::move(w));
  for (const auto& [point, warning] : warnings) {
    auto group = std::find_if(view.warnings.begin(), view.warnings.end(),
                              [&](const WarningGroup& g) { return g.text == warning; });
    if (group == view.warnings.end()) group = view.warnings.insert(group, {warning, {}});
    group->labels.push_back(label_of(d, point));
  }
  if (d.host_ceiling_gbps > 0) {
    view.context.emplace_back("ceiling",
                              fmt::format("host memcpy {:.2f} GB/s (slowest NUMA node of the "
                                          "driver host; busbw is shown against it)",
                                          d.host_ceiling_gbps));
  }
  if (d.device_ceiling_gbps > 0) {
    view.context.emplace_back("GPU ceiling",
                              fmt::format("device copy {:.2f} GB/s (slowest GPU of the driver "
                                          "host; NCCL busbw is shown against it)",
                                          d.device_ceiling_gbps));
  }
  const std::vector<Panel> panels = build_panels(d, spent);
  if (spent != nullptr) *spent = std::vector<Record>{};
  for (const Panel& panel : panels) {
    AnswerView answer;
    view.panels.push_back(make_panel_view(panel, d, answer));
    if (!view.panels.back().winners.empty()) {
      bound_answer(answer);
      view.answers.push_back(std::move(answer));
    }
  }
  view.notes = d.notes;
  return view;
}

}  // namespace

ReportView make_report_view(const Dataset& d) { return assemble_view(d, nullptr); }

ReportView make_report_view(Dataset&& d) {
  // At 10^6 records, 0.6 GB the verdicts can use.
  return assemble_view(d, &d.records);
}

}  // namespace colltune
