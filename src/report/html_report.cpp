#include "report/html_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "core/sizes.hpp"
#include "report/escape.hpp"

namespace colltune {
namespace {

constexpr std::array<const char*, 10> kPalette{"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                               "#ff7f0e", "#8c564b", "#e377c2", "#17becf",
                                               "#7f7f7f", "#bcbd22"};
constexpr int kWidth = 760, kHeight = 380, kLeft = 72, kRight = 24, kTop = 16, kBottom = 56;

// 1, 2 or 5 times a power of ten, at or above `value`.
double nice_ceiling(double value) {
  if (value <= 0) return 1;
  const double magnitude = std::pow(10.0, std::floor(std::log10(value)));
  for (double step : {1.0, 2.0, 5.0, 10.0}) {
    if (step * magnitude >= value) return step * magnitude;
  }
  return 10 * magnitude;
}

const char* kStyle = R"(
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 70em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
section.panel { border-top: 2px solid #ddd; margin-top: 2em; }
ul.legend { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 0.4em 1.4em; }
ul.legend svg { vertical-align: middle; margin-right: 0.3em; }
svg.chart text { font-size: 12px; fill: #333; }
.failed { color: #a00; }
)";

}  // namespace

std::string render_svg_chart(const PanelView& panel, int chart_index) {
  double max_bw = 0;
  std::uint64_t min_size = UINT64_MAX, max_size = 0;
  for (const auto& s : panel.series) {
    for (const auto& [bytes, bw] : s.busbw_gbps) {
      max_bw = std::max(max_bw, bw);
      min_size = std::min(min_size, bytes);
      max_size = std::max(max_size, bytes);
    }
  }
  if (max_size == 0) return "";
  const double y_max = nice_ceiling(max_bw * 1.05);
  double x_lo = std::log2(static_cast<double>(std::max<std::uint64_t>(min_size, 1)));
  double x_hi = std::log2(static_cast<double>(max_size));
  if (x_hi - x_lo < 1) {
    x_lo -= 1;
    x_hi += 1;
  }
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  const auto x_of = [&](std::uint64_t bytes) {
    return kLeft + (std::log2(static_cast<double>(std::max<std::uint64_t>(bytes, 1))) - x_lo) /
                       (x_hi - x_lo) * plot_w;
  };
  const auto y_of = [&](double bw) { return kTop + plot_h - bw / y_max * plot_h; };

  std::string svg = fmt::format(
      "<svg class=\"chart\" id=\"chart-{}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" "
      "height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"busbw against message size: "
      "{}\">\n",
      chart_index, kWidth, kHeight, kWidth, kHeight, html_escape(panel.title));
  for (int i = 0; i <= 5; ++i) {
    const double bw = y_max * i / 5, y = y_of(bw);
    svg += fmt::format(
        "<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#e4e4e4\"/>"
        "<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{:g}</text>\n",
        kLeft, y, kWidth - kRight, y, kLeft - 6, y + 4, bw);
  }
  // One tick per power of two that keeps labels apart (at most about 12).
  const int span = static_cast<int>(std::ceil(x_hi - x_lo));
  const int every = std::max(1, (span + 11) / 12);
  for (int e = static_cast<int>(std::ceil(x_lo)); e <= static_cast<int>(std::floor(x_hi)); ++e) {
    if (e % every != 0 || e < 0 || e > 62) continue;
    const double x = x_of(1ULL << e);
    svg += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" stroke=\"#e4e4e4\"/>"
        "<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
        x, kTop, x, kTop + plot_h, x, kTop + plot_h + 16, format_bytes(1ULL << e));
  }
  svg += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#888\"/>\n", kLeft,
      kTop, plot_w, plot_h);
  svg += fmt::format(
      "<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">message size (bytes, log scale)</text>\n",
      kLeft + plot_w / 2, kHeight - 12);
  svg += fmt::format(
      "<text transform=\"translate(16 {:.1f}) rotate(-90)\" text-anchor=\"middle\">busbw "
      "(GB/s)</text>\n",
      kTop + plot_h / 2);
  for (std::size_t i = 0; i < panel.series.size(); ++i) {
    const auto& s = panel.series[i];
    const char* color = kPalette[i % kPalette.size()];
    std::string points;
    for (const auto& [bytes, bw] : s.busbw_gbps)
      points += fmt::format("{:.1f},{:.1f} ", x_of(bytes), y_of(bw));
    svg += fmt::format(
        "<polyline class=\"series\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\"{} "
        "points=\"{}\"/>\n",
        color, s.baseline ? 3 : 1.6, s.baseline ? " stroke-dasharray=\"7 4\"" : "", points);
    for (const auto& [bytes, bw] : s.busbw_gbps) {
      svg += fmt::format(
          "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.5\" fill=\"{}\"><title>{}: {} B, {:.3f} "
          "GB/s</title></circle>\n",
          x_of(bytes), y_of(bw), color, html_escape(s.label), bytes, bw);
    }
  }
  return svg + "</svg>\n";
}

std::string render_html(const ReportView& v) {
  const auto e = [](const std::string& s) { return html_escape(s); };
  std::string html = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
      "'unsafe-inline'\">\n"
      "<title>{}</title>\n<style>{}</style>\n</head>\n<body>\n<h1>{}</h1>\n<p>{}</p>\n",
      e(v.title), kStyle, e(v.title), e(v.summary));
  html += "<h2>Context</h2>\n<table>\n";
  for (const auto& [key, value] : v.context)
    html += fmt::format("<tr><th>{}</th><td>{}</td></tr>\n", e(key), e(value));
  for (const auto& note : v.notes)
    html += fmt::format("<tr><th>note</th><td>{}</td></tr>\n", e(note));
  html += "</table>\n";
  if (!v.failures.empty()) {
    html +=
        "<h2 class=\"failed\">Launches that did not finish</h2>\n<table>\n"
        "<tr><th>configuration</th><th>round</th><th>status</th><th>reason</th></tr>\n";
    for (const auto& f : v.failures) {
      html +=
          fmt::format("<tr><td>{}</td><td>{}</td><td class=\"failed\">{}</td><td>{}</td></tr>\n",
                      e(f.point), e(f.round), e(f.status), e(f.detail));
    }
    html += "</table>\n";
  }
  if (!v.warnings.empty()) {
    html += "<h2>Placement and health warnings</h2>\n<ul>\n";
    for (const auto& w : v.warnings) {
      html += fmt::format("<li>{} ({}: {})</li>\n", e(w.text),
                          counted(w.labels.size(), "configuration"), e(first_of(w.labels, 3)));
    }
    html += "</ul>\n";
  }
  int index = 0;
  for (const auto& panel : v.panels) {
    html += fmt::format("<section class=\"panel\">\n<h2>{}</h2>\n", e(panel.title));
    if (!panel.shared.empty())
      html +=
          fmt::format("<p class=\"shared\">Every configuration here: {}</p>\n", e(panel.shared));
    html += render_svg_chart(panel, index++);
    html += "<ul class=\"legend\">\n";
    for (std::size_t i = 0; i < panel.series.size(); ++i) {
      const auto& s = panel.series[i];
      html += fmt::format(
          "<li><svg width=\"28\" height=\"10\"><line x1=\"0\" y1=\"5\" x2=\"28\" y2=\"5\" "
          "stroke=\"{}\" stroke-width=\"{}\"{}/></svg>{}{}</li>\n",
          kPalette[i % kPalette.size()], s.baseline ? 3 : 2,
          s.baseline ? " stroke-dasharray=\"7 4\"" : "", e(s.label),
          s.baseline ? " (baseline)" : "");
    }
    html += "</ul>\n";
    if (!panel.winners.empty()) {
      html +=
          "<table>\n<tr><th>size</th><th>winner</th><th>busbw (GB/s)</th><th>of ceiling</th>"
          "<th>over runner-up</th><th>over baseline</th><th>significant</th><th>tied "
          "with</th></tr>\n";
      for (const auto& w : panel.winners) {
        html += fmt::format(
            "<tr><td class=\"num\">{}</td><td>{}</td><td class=\"num\">{}</td><td "
            "class=\"num\">{}</td>"
            "<td>{}</td><td class=\"num\">{}</td><td>{}</td><td>{}</td></tr>\n",
            e(w.size), e(w.winner), e(w.busbw), e(w.of_ceiling), e(w.vs_runner_up),
            e(w.vs_baseline), e(w.significance), e(w.tied));
      }
      html += "</table>\n";
    }
    for (const auto& change : panel.changes)
      html += fmt::format("<p>The winner changes {}.</p>\n", e(change));
    for (const auto& s : panel.skipped) html += fmt::format("<p>Skipped: {}</p>\n", e(s));
    html += "</section>\n";
  }
  return html + "</body>\n</html>\n";
}

}  // namespace colltune
