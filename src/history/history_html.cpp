#include "history/history_html.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "core/sizes.hpp"
#include "history/history_report.hpp"
#include "report/escape.hpp"
#include "report/svg_chart.hpp"

namespace colltune {
namespace {

const char* kStyle = R"(
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 84em; padding: 0 1em;
       color: #222; }
svg.history { width: 100%; max-width: 72em; height: auto; }
svg.history text { font-size: 12px; fill: #333; }
svg.history text.mark-label { font-size: 11px; fill: #8a1c1c; }
ol.marks li, ul.findings li { margin: 0.2em 0; overflow-wrap: anywhere; }
section.panel { border-top: 2px solid #ddd; margin-top: 2em; }
ul.legend { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 0.4em 1.4em; }
)";

constexpr double kWidth = 960, kHeight = 420;
constexpr double kLeft = 78, kRight = 90, kTop = 16, kBottom = 64;
// The longest text written along a mark: the rest is in the list under the chart.
constexpr std::size_t kMarkLabelChars = 48;

std::string e(const std::string& s) { return html_escape(s); }

std::string date_of(const HistoryRun& run, bool with_day) {
  const std::string& t = run.started_utc;  // 2026-11-14T02:00:00Z
  return t.size() >= 16 ? (with_day ? t.substr(0, 10) : t.substr(11, 5)) : t;
}

std::string us_label(double seconds) {
  const double us = seconds * 1e6;
  return us >= 100 ? fmt::format("{:.0f}", us)
         : us >= 1 ? fmt::format("{:.3g}", us)
                   : fmt::format("{:.2g}", us);
}

struct Mark {
  std::size_t run = 0;             // first run after the change, or of the spell
  std::size_t end_run = 0;         // a spell's first run back (0: a change)
  std::vector<std::string> texts;  // the findings' lines
  std::vector<std::string> context;
};

std::string chart(const std::string& panel, const std::vector<const SeriesResult*>& lines,
                  const std::vector<Mark>& marks, const std::vector<HistoryRun>& runs, int index) {
  double lo = 1e300, hi = -1e300;
  for (const auto* s : lines) {
    for (const auto& v : s->series.values) {
      lo = std::min({lo, v.log_seconds, v.low_log.value_or(v.log_seconds)});
      hi = std::max({hi, v.log_seconds, v.high_log.value_or(v.log_seconds)});
    }
  }
  if (hi - lo < 0.02) {  // a flat panel still gets a readable band
    lo -= 0.01;
    hi += 0.01;
  }
  const double pad = (hi - lo) * 0.06;
  lo -= pad;
  hi += pad;
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  const double n = static_cast<double>(std::max<std::size_t>(runs.size(), 2) - 1);
  const auto x_of = [&](double run) { return kLeft + plot_w * run / n; };
  const auto y_of = [&](double log_s) { return kTop + plot_h * (hi - log_s) / (hi - lo); };
  std::string svg = fmt::format(
      "<svg class=\"history\" id=\"history-{}\" viewBox=\"0 0 {} {}\" role=\"img\" "
      "aria-label=\"{}\">\n<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" "
      "stroke=\"#999\"/>\n",
      index, kWidth, kHeight, e(panel), kLeft, kTop, plot_w, plot_h);
  // Time ticks: 1, 2 and 5 of each decade in range, else the two ends.
  std::vector<double> ticks;
  for (int decade = static_cast<int>(std::floor((lo) / std::log(10.0))) - 1;
       decade <= static_cast<int>(std::ceil(hi / std::log(10.0))); ++decade) {
    for (double m : {1.0, 2.0, 5.0}) {
      const double t = std::log(m) + decade * std::log(10.0);
      if (t > lo && t < hi) ticks.push_back(t);
    }
  }
  if (ticks.size() < 2) ticks = {lo + pad, hi - pad};
  for (double t : ticks) {
    svg += fmt::format(
        "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"#eee\"/>"
        "<text class=\"tick\" x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5}</text>\n",
        kLeft, kLeft + plot_w, y_of(t), kLeft - 6, y_of(t) + 4, us_label(std::exp(t)));
  }
  svg += fmt::format(
      "<text x=\"14\" y=\"{:.1f}\" transform=\"rotate(-90 14 {:.1f})\" "
      "text-anchor=\"middle\">time (us)</text>\n",
      kTop + plot_h / 2, kTop + plot_h / 2);
  // Run ticks: at most 12 labels, the day once it changes, then the time of day (to the second
  // where two labels would read alike).
  const std::size_t every = std::max<std::size_t>(1, (runs.size() + 11) / 12);
  std::string last_day, last_label;
  for (std::size_t r = 0; r < runs.size(); r += every) {
    const std::string day = date_of(runs[r], true);
    std::string label = day != last_day ? day : date_of(runs[r], false);
    if (label == last_label) label = runs[r].started_utc.substr(11, 8);
    last_day = day;
    last_label = label;
    svg += fmt::format(
        "<text class=\"tick\" x=\"{0:.1f}\" y=\"{1}\" text-anchor=\"end\" "
        "transform=\"rotate(-35 {0:.1f} {1})\">{2}</text>\n",
        x_of(static_cast<double>(r)), kTop + plot_h + 16, e(label));
  }
  // Marks first, so the lines draw over them.
  for (std::size_t m = 0; m < marks.size(); ++m) {
    const double x =
        (x_of(static_cast<double>(marks[m].run)) + x_of(static_cast<double>(marks[m].run) - 1)) / 2;
    std::string label = fmt::format("[{}] {}", m + 1,
                                    marks[m].context.empty()
                                        ? std::string("nothing recorded differed")
                                        : fmt::format("{}", fmt::join(marks[m].context, "; ")));
    if (marks[m].end_run > 0) {  // a spell: its runs shaded, the label at its start
      const double end = (x_of(static_cast<double>(marks[m].end_run)) +
                          x_of(static_cast<double>(marks[m].end_run) - 1)) /
                         2;
      label = fmt::format("[{}] spell: {}", m + 1, label.substr(label.find(' ') + 1));
      svg += fmt::format(
          "<rect class=\"spell-band\" data-run=\"{}\" data-end-run=\"{}\" x=\"{:.1f}\" "
          "y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"#f3c9c2\" fill-opacity=\"0.45\"/>\n",
          marks[m].run, marks[m].end_run, x, kTop, end - x, plot_h);
    }
    const std::string full = label;
    if (label.size() > kMarkLabelChars) label = label.substr(0, kMarkLabelChars - 3) + "...";
    svg += fmt::format(
        "<line class=\"change-mark\" data-run=\"{0}\" x1=\"{1:.1f}\" x2=\"{1:.1f}\" y1=\"{2}\" "
        "y2=\"{3}\" stroke=\"#c0392b\" stroke-dasharray=\"6 4\"/>"
        "<text class=\"mark-label\" data-run=\"{0}\" x=\"{4:.1f}\" y=\"{5}\" "
        "transform=\"rotate(-90 {4:.1f} {5})\" text-anchor=\"end\"><title>{6}</title>{7}</text>\n",
        marks[m].run, x, kTop, kTop + plot_h, x - 4, kTop + 6, e(full), e(label));
  }
  // Each line's end carries its size, right of the frame, pushed apart so none covers another.
  std::vector<std::pair<double, std::size_t>> ends;
  for (std::size_t i = 0; i < lines.size(); ++i)
    ends.push_back({y_of(lines[i]->series.values.back().log_seconds) + 4, i});
  std::sort(ends.begin(), ends.end());
  for (std::size_t k = 1; k < ends.size(); ++k)
    ends[k].first = std::max(ends[k].first, ends[k - 1].first + 13);
  std::vector<double> end_y(lines.size());
  for (const auto& [y, i] : ends) end_y[i] = y;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const SeriesResult& s = *lines[i];
    const LineStyle look = line_style(i);
    std::string points;
    for (const auto& v : s.series.values)
      points +=
          fmt::format("{:.1f},{:.1f} ", x_of(static_cast<double>(v.run)), y_of(v.log_seconds));
    svg += fmt::format(
        "<polyline class=\"series\" data-label=\"{}\" points=\"{}\" fill=\"none\" stroke=\"{}\" "
        "stroke-dasharray=\"{}\" stroke-width=\"1.6\"/>\n<g>",
        format_bytes(s.series.key.bytes), points, look.color, look.dash);
    for (std::size_t k = 0; k < s.series.values.size(); ++k) {
      const RunValue& v = s.series.values[k];
      const double x = x_of(static_cast<double>(v.run)), y = y_of(v.log_seconds);
      if (v.low_log && v.high_log) {
        svg += fmt::format(
            "<line class=\"interval\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\" "
            "stroke=\"{3}\"/>",
            x, y_of(*v.low_log), y_of(*v.high_log), look.color);
      }
      const bool outlier = std::any_of(s.segments.outliers.begin(), s.segments.outliers.end(),
                                       [&](const Outlier& o) { return o.run == k; });
      svg += fmt::format(
          "<circle class=\"{}\" data-run=\"{}\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{}\" fill=\"{}\" "
          "stroke=\"{}\" stroke-width=\"{}\"><title>{} {}: {} us</title></circle>",
          outlier ? "point outlier" : "point", v.run, x, y, outlier ? 5.5 : 3,
          outlier ? "#fff" : look.color, outlier ? "#c0392b" : look.color, outlier ? 2 : 1,
          format_bytes(s.series.key.bytes), e(runs[v.run].started_utc),
          us_label(std::exp(v.log_seconds)));
    }
    svg += "</g>\n";
    svg +=
        fmt::format("<text class=\"end-label\" x=\"{:.1f}\" y=\"{:.1f}\" fill=\"{}\">{}</text>\n",
                    kLeft + plot_w + 6, end_y[i], look.color, format_bytes(s.series.key.bytes));
  }
  return svg + "</svg>\n";
}

}  // namespace

std::string history_html(const HistoryResult& h, const std::vector<HistoryRun>& runs,
                         const HistoryOptions& o) {
  std::string html = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
      "'unsafe-inline'\">\n<title>colltune history</title>\n<style>{}</style>\n</head>\n<body>\n"
      "<h1>colltune history</h1>\n<p>{} runs, {} to {}; {} series. A change needs at least "
      "{:.0f}% and {} runs on each side; the whole history is held to a false-alarm level of "
      "{:g}.</p>\n<h2>Findings</h2>\n",
      kStyle, runs.size(), e(runs.front().started_utc), e(runs.back().started_utc), h.series.size(),
      o.change.min_change * 100, o.change.min_segment, o.change.level);
  html += h.findings.empty() ? "<p>No change and no outlier.</p>\n" : "<ul class=\"findings\">\n";
  for (const auto& f : h.findings) html += "<li>" + e(finding_line(f, runs)) + "</li>\n";
  if (!h.findings.empty()) html += "</ul>\n";
  std::map<std::string, std::vector<const SeriesResult*>> panels;
  for (const auto& s : h.series) panels[s.series.key.panel()].push_back(&s);
  int index = 0;
  for (const auto& [panel, lines] : panels) {
    std::map<std::pair<std::size_t, std::size_t>, Mark> by_run;
    for (const auto& f : h.findings) {
      if (f.kind == "outlier" || f.panel != panel) continue;
      const std::size_t end = f.kind == "spell" ? f.end_run : 0;
      Mark& m = by_run[{f.run, end}];
      m.run = f.run;
      m.end_run = end;
      m.texts.push_back(finding_line(f, runs));
      m.context = f.context;
    }
    std::vector<Mark> marks;
    for (auto& [run, m] : by_run) marks.push_back(std::move(m));
    html += fmt::format("<section class=\"panel\">\n<h2>{}</h2>\n", e(panel));
    html += chart(panel, lines, marks, runs, index++);
    if (!marks.empty()) {  // numbered as the marks are: one item a mark, all its findings
      html += "<ol class=\"marks\">\n";
      for (const auto& m : marks) {
        html += "<li>";
        for (std::size_t t = 0; t < m.texts.size(); ++t)
          html += (t == 0 ? "" : "<br>") + e(m.texts[t]);
        html += "</li>\n";
      }
      html += "</ol>\n";
    }
    html += "</section>\n";
  }
  return html + "</body>\n</html>\n";
}

}  // namespace colltune
