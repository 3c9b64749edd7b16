#include "report/html_report.hpp"

#include <fmt/format.h>

#include "report/escape.hpp"
#include "report/size_bound.hpp"
#include "report/svg_chart.hpp"

namespace colltune {
namespace {

const char* kStyle = R"(
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 84em; padding: 0 1em;
       color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top;
         overflow-wrap: break-word; }
td.num, th { white-space: nowrap; }
div.wide { max-width: 100%; overflow-x: auto; }
table.winners { width: 100%; }
table.winners td:first-child, table.winners th:first-child { position: sticky; left: 0;
  background: #fff; }
div.charts { display: flex; flex-wrap: wrap; gap: 0.5em; }
div.charts svg { width: calc(50% - 0.25em); min-width: 32em; max-width: 100%; height: auto; }
p.shared { color: #555; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
section.panel { border-top: 2px solid #ddd; margin-top: 2em; }
ul.legend { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 0.4em 1.4em; }
ul.legend svg { vertical-align: middle; margin-right: 0.3em; }
svg.chart text { font-size: 12px; fill: #333; }
.failed { color: #a00; }
)";

}  // namespace

std::string render_html(const ReportView& v) {
  const auto e = [](const std::string& s) { return html_escape(s); };
  std::string html = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
      "'unsafe-inline'\">\n"
      "<title>{}</title>\n<style>{}</style>\n</head>\n<body>\n<h1>{}</h1>\n<p>{}</p>\n",
      e(v.title), kStyle, e(v.title), e(v.summary));
  if (!v.answers.empty()) {
    html += "<h2>What to set</h2>\n";
    for (const auto& a : v.answers) {
      html += fmt::format("<p><b>{}</b></p>\n<ul>\n", e(a.panel));
      for (const auto& line : a.lines) html += fmt::format("<li>{}</li>\n", e(line));
      html += "</ul>\n";
    }
  }
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
    if (!panel.key_note.empty())
      html += fmt::format("<p class=\"shared\">Names: {}</p>\n", e(panel.key_note));
    if (const std::string note = shown_sizes_note(panel); !note.empty())
      html += fmt::format("<p class=\"shared\">{}</p>\n", e(note));
    const std::vector<PanelView> parts = small_multiples(panel);
    for (const PanelView& part : parts) {
      if (parts.size() > 1) html += fmt::format("<h3>{}</h3>\n", e(part.title));
      // The latency view reads small sizes, the bandwidth view large ones against the ceiling.
      html += "<div class=\"charts\">\n" + render_svg_chart(part, ChartView::kTime, index) +
              render_svg_chart(part, ChartView::kBusbw, index) + "</div>\n";
      ++index;
      html += render_legend(part);
    }
    if (!panel.winners.empty()) {
      html +=
          "<div class=\"wide\"><table "
          "class=\"winners\">\n<tr><th>size</th><th>winner</th><th>busbw (GB/s)</th><th>of "
          "ceiling</th>"
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
      html += "</table></div>\n";
    }
    for (const auto& change : panel.changes)
      html += fmt::format("<p>The winner changes {}.</p>\n", e(change));
    for (const auto& s : panel.skipped) html += fmt::format("<p>Skipped: {}</p>\n", e(s));
    html += "</section>\n";
  }
  return html + "</body>\n</html>\n";
}

}  // namespace colltune
