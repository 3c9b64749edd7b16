#include "history/history_report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "core/sizes.hpp"
#include "core/timestamp.hpp"
#include "report/compare.hpp"
#include "report/escape.hpp"
#include "store/json_text.hpp"

namespace colltune {

std::string finding_line(const Finding& f, const std::vector<HistoryRun>& runs) {
  const std::string sizes =
      f.sizes == 1 ? format_bytes(f.min_bytes)
                   : fmt::format("{}-{}", format_bytes(f.min_bytes), format_bytes(f.max_bytes));
  const double pct = std::abs(f.ratio - 1) * 100;
  const std::string way = f.ratio > 1 ? "slower" : "faster";
  const std::string context = f.context.empty() ? "nothing recorded differed from the run before"
                                                : fmt::format("{}", fmt::join(f.context, "; "));
  const std::string where = f.label.empty() ? f.panel : f.panel + ", " + f.label;
  if (f.kind == "outlier") {
    return fmt::format("{} {} {:.0f}% {} in the run of {} alone, an outlier, not a change: {} ({})",
                       f.collective, sizes, pct, way, runs[f.run].started_utc, context, where);
  }
  const auto bound = [&](double r) { return (f.ratio > 1 ? r - 1 : 1 - r) * 100; };
  const double lo = std::min(bound(f.ratio_low), bound(f.ratio_high));
  const double hi = std::max(bound(f.ratio_low), bound(f.ratio_high));
  if (f.kind == "spell") {
    return fmt::format(
        "{} {} {:.0f}% {} [{:.0f}, {:.0f}] from the run of {}, back at the earlier level from the "
        "run of {}: a spell, not a change: {} ({}; p {:.2g})",
        f.collective, sizes, pct, way, lo, hi, runs[f.run].started_utc, runs[f.end_run].started_utc,
        context, where, f.p_value);
  }
  return fmt::format("{} {} {:.0f}% {} [{:.0f}, {:.0f}] from the run of {}: {} ({}; p {:.2g})",
                     f.collective, sizes, pct, way, lo, hi, runs[f.run].started_utc, context, where,
                     f.p_value);
}

namespace {

constexpr const char* kNothingJudged =
    "nothing was judged: no series has runs the gate could hold the newest against (all skipped, "
    "no points, or the runs measured different things); a gate that judged nothing cannot pass, "
    "even with --allow-incomplete";

std::string gate_summary(const HistoryResult& h) {
  std::map<std::string, int> count;
  for (const auto& s : h.series) ++count[s.gate];
  std::string out;
  for (const auto& [gate, n] : count)
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", n, gate);
  return out;
}

// A pooled between-run spread over all series: their within-segment squares over their
// degrees of freedom.
std::pair<double, std::size_t> pooled_spread(const HistoryResult& h) {
  double squares = 0;
  std::size_t df = 0;
  for (const auto& s : h.series) {
    squares += s.segments.between_run_sd_log * s.segments.between_run_sd_log *
               static_cast<double>(s.segments.between_run_df);
    df += s.segments.between_run_df;
  }
  return {df == 0 ? 0 : std::sqrt(squares / static_cast<double>(df)), df};
}

}  // namespace

std::string history_console(const HistoryResult& h, const std::vector<HistoryRun>& runs,
                            bool gate) {
  std::string out;
  std::map<std::string, std::size_t> count;
  for (const auto& f : h.findings) ++count[f.kind];
  const auto counted = [&](const char* kind) {
    return fmt::format("{} {}{}", count[kind], kind, count[kind] == 1 ? "" : "s");
  };
  out += fmt::format("history: {} runs from {} to {}, {} series: {}, {}, {}\n", runs.size(),
                     runs.front().started_utc, runs.back().started_utc, h.series.size(),
                     counted("change"), counted("spell"), counted("outlier"));
  for (const auto& f : h.findings) out += "  " + finding_line(f, runs) + "\n";
  const auto [sd, df] = pooled_spread(h);
  if (df > 0) {
    out += fmt::format(
        "history: runs vary by {:.2f}% between each other (pooled sd of log run "
        "values {:.4f}, {} degrees of freedom)\n",
        std::expm1(sd) * 100, sd, df);
  }
  if (gate) {
    out += fmt::format("gate: exit {}: newest run {}; series: {}\n", h.exit_code,
                       runs.back().started_utc, gate_summary(h));
    if (h.nothing_judged) out += fmt::format("gate: {}\n", kNothingJudged);
    // One line per panel and state: its sizes, and the first one's reason.
    std::map<std::pair<std::string, std::string>, std::vector<const SeriesResult*>> groups;
    for (const auto& s : h.series)
      if (s.gate != "ok") groups[{s.gate, s.series.key.panel()}].push_back(&s);
    for (const auto& [what, members] : groups) {
      std::vector<std::string> sizes;
      for (const auto* s : members) sizes.push_back(format_bytes(s->series.key.bytes));
      out += fmt::format("  {}: {}: {}: {}\n", what.first, what.second, fmt::join(sizes, " "),
                         members.front()->gate_note);
    }
  }
  return out;
}

std::string history_markdown(const HistoryResult& h, const std::vector<HistoryRun>& runs,
                             const HistoryOptions& o) {
  std::string out = "# colltune history\n\n";
  out += fmt::format("{} runs, {} to {}; {} series.\n\n", runs.size(), runs.front().started_utc,
                     runs.back().started_utc, h.series.size());
  out += "## Findings\n\n";
  if (h.findings.empty()) out += "No change and no outlier.\n";
  for (const auto& f : h.findings) out += "- " + finding_line(f, runs) + "\n";
  out += fmt::format(
      "\nEach series' best split is held to Benjamini-Hochberg over the {} series (level {:.3g} "
      "per split after the adjustment); a change needs at least {:.0f}% and {} runs on each side. "
      "Method: docs/history.md.\n",
      h.series.size(), h.series_level, o.change.min_change * 100, o.change.min_segment);
  out +=
      "\n## Series\n\n| point | collective | size | ranks | runs | newest (us) | between runs "
      "| changes | spells | gate |\n|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& s : h.series) {
    out += fmt::format("| {} | {} {} {} | {} | {} ({}) | {} | {:.3f} | {:.2f}% | {} | {} | {} |\n",
                       s.series.label, s.series.key.collective, s.series.key.dtype, s.series.key.op,
                       format_bytes(s.series.key.bytes), s.series.key.nranks, s.series.key.shape,
                       s.series.values.size(), std::exp(s.series.values.back().log_seconds) * 1e6,
                       std::expm1(s.segments.between_run_sd_log) * 100, s.segments.changes.size(),
                       s.segments.spells.size(), s.gate);
  }
  out += "\n## Runs\n\n| # | started | source |\n|---|---|---|\n";
  for (std::size_t i = 0; i < runs.size(); ++i)
    out += fmt::format("| {} | {} | {} |\n", i + 1, runs[i].started_utc, runs[i].source);
  return out;
}

std::string history_json(const HistoryResult& h, const std::vector<HistoryRun>& runs,
                         const HistoryOptions& o) {
  nlohmann::json series = nlohmann::json::array();
  for (const auto& s : h.series) {
    const SeriesKey& k = s.series.key;
    nlohmann::json values = nlohmann::json::array();
    for (const auto& v : s.series.values) {
      nlohmann::json j = {
          {"run", v.run}, {"seconds", std::exp(v.log_seconds)}, {"launches", v.launches}};
      if (v.low_log) j["low_seconds"] = std::exp(*v.low_log);
      if (v.high_log) j["high_seconds"] = std::exp(*v.high_log);
      values.push_back(j);
    }
    nlohmann::json changes = nlohmann::json::array();
    for (const auto& c : s.segments.changes) {
      changes.push_back({{"run", s.series.values[c.first_run].run},
                         {"ratio", std::exp(c.step_log)},
                         {"ratio_low", std::exp(c.step_low_log)},
                         {"ratio_high", std::exp(c.step_high_log)},
                         {"p_value", c.p_value},
                         {"notable", c.notable}});
    }
    nlohmann::json spells = nlohmann::json::array();
    for (const auto& sp : s.segments.spells) {
      spells.push_back({{"run", s.series.values[sp.first_run].run},
                        {"end_run", s.series.values[sp.end_run].run},
                        {"ratio", std::exp(sp.step_log)},
                        {"ratio_low", std::exp(sp.step_low_log)},
                        {"ratio_high", std::exp(sp.step_high_log)},
                        {"p_value", sp.p_value},
                        {"notable", sp.notable}});
    }
    nlohmann::json outliers = nlohmann::json::array();
    for (const auto& x : s.segments.outliers)
      outliers.push_back(
          {{"run", s.series.values[x.run].run}, {"ratio", std::exp(x.off_log)}, {"robust_z", x.z}});
    series.push_back({{"point_id", k.point_id},
                      {"label", s.series.label},
                      {"backend", k.backend},
                      {"collective", k.collective},
                      {"dtype", k.dtype},
                      {"op", k.op},
                      {"in_place", k.in_place},
                      {"root", k.root},
                      {"nranks", k.nranks},
                      {"shape", k.shape},
                      {"bytes", k.bytes},
                      {"between_run_sd_log", s.segments.between_run_sd_log},
                      {"between_run_df", s.segments.between_run_df},
                      {"gate", s.gate},
                      {"gate_note", s.gate_note},
                      {"values", values},
                      {"changes", changes},
                      {"spells", spells},
                      {"outliers", outliers}});
  }
  nlohmann::json findings = nlohmann::json::array();
  for (const auto& f : h.findings) {
    findings.push_back({{"kind", f.kind},
                        {"panel", f.panel},
                        {"collective", f.collective},
                        {"min_bytes", f.min_bytes},
                        {"max_bytes", f.max_bytes},
                        {"run", f.run},
                        {"end_run", f.kind == "spell" ? nlohmann::json(f.end_run) : nullptr},
                        {"ratio", f.ratio},
                        {"ratio_low", f.ratio_low},
                        {"ratio_high", f.ratio_high},
                        {"p_value", f.p_value},
                        {"context", f.context},
                        {"text", finding_line(f, runs)}});
  }
  nlohmann::json run_list = nlohmann::json::array();
  for (const auto& r : runs)
    run_list.push_back({{"started_utc", r.started_utc}, {"source", r.source}});
  const auto [sd, df] = pooled_spread(h);
  return dump_json_text(nlohmann::json{{"schema", "colltune-history-1"},
                                       {"created_utc", utc_timestamp(false)},
                                       {"level", o.change.level},
                                       {"series_level", h.series_level},
                                       {"min_change", o.change.min_change},
                                       {"between_run_sd_log", sd},
                                       {"between_run_df", df},
                                       {"exit_code", h.exit_code},
                                       {"runs", run_list},
                                       {"findings", findings},
                                       {"series", series}},
                        2) +
         "\n";
}

std::string history_junit(const HistoryResult& h, const HistoryOptions& o) {
  int failures = 0, errors = 0, skipped = 0;
  std::string cases;
  for (const auto& s : h.series) {
    cases += fmt::format("    <testcase classname=\"colltune.history.{}\" name=\"{} {}\">\n",
                         html_escape(s.series.key.collective), html_escape(s.series.key.panel()),
                         format_bytes(s.series.key.bytes));
    if (s.gate == "slower" || s.gate == "wrong results") {
      ++failures;
      cases += fmt::format("      <failure message=\"{}\"/>\n", html_escape(s.gate_note));
    } else if (s.gate != "ok") {
      (o.allow_incomplete ? skipped : errors)++;
      cases +=
          fmt::format("      <{} message=\"{}: {}\"/>\n", o.allow_incomplete ? "skipped" : "error",
                      html_escape(s.gate), html_escape(s.gate_note));
    }
    cases += "    </testcase>\n";
  }
  std::size_t tests = h.series.size();
  if (h.nothing_judged) {
    // tests=0 reads green to many CI tools: one failing case says why.
    ++tests;
    ++failures;
    cases += fmt::format(
        "    <testcase classname=\"colltune.history\" name=\"anything judged\">\n      <failure "
        "message=\"{}\"/>\n    </testcase>\n",
        html_escape(kNothingJudged));
  }
  return junit_document("history", tests, failures, errors, skipped, cases);
}

}  // namespace colltune
