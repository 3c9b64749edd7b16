#include "report/markdown_report.hpp"

#include <fmt/format.h>

#include "report/escape.hpp"
#include "report/size_bound.hpp"

namespace colltune {

std::string render_markdown(const ReportView& v) {
  const auto e = [](const std::string& s) { return markdown_escape(s); };
  std::string md = fmt::format("# {}\n\n{}\n\n", e(v.title), e(v.summary));
  if (!v.answers.empty()) {
    md += "## What to set\n\n";
    for (const auto& a : v.answers) {
      md += fmt::format("**{}**\n\n", e(a.panel));
      for (const auto& line : a.lines) md += fmt::format("- {}\n", e(line));
      md += "\n";
    }
  }
  md += "## Context\n\n";
  for (const auto& [key, value] : v.context) md += fmt::format("- **{}**: {}\n", key, e(value));
  for (const auto& note : v.notes) md += fmt::format("- note: {}\n", e(note));
  if (!v.failures.empty()) {
    md +=
        "\n## Launches that did not finish\n\n| configuration | round | status | reason "
        "|\n|---|---|---|---|\n";
    for (const auto& f : v.failures) {
      md += fmt::format("| {} | {} | {} | {} |\n", e(f.point), f.round, e(f.status), e(f.detail));
    }
  }
  if (!v.warnings.empty()) {
    md += "\n## Placement and health warnings\n\n";
    for (const auto& w : v.warnings) {
      md += fmt::format("- {} ({}: {})\n", e(w.text), counted(w.labels.size(), "configuration"),
                        e(first_of(w.labels, 3)));
    }
  }
  for (const auto& panel : v.panels) {
    md += fmt::format("\n## {}\n\n", e(panel.title));
    if (!panel.shared.empty())
      md += fmt::format("Every configuration here: {}\n\n", e(panel.shared));
    if (!panel.key_note.empty()) md += fmt::format("Names: {}\n\n", e(panel.key_note));
    if (const std::string note = shown_sizes_note(panel); !note.empty()) md += note + "\n\n";
    if (!panel.winners.empty()) {
      md +=
          "| size | winner | busbw (GB/s) | of ceiling | over runner-up | over baseline | "
          "significant | tied with |\n|---:|---|---:|---:|---|---:|---|---|\n";
      for (const auto& w : panel.winners) {
        md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", w.size, e(w.winner),
                          w.busbw, w.of_ceiling, e(w.vs_runner_up), e(w.vs_baseline),
                          e(w.significance), e(w.tied));
      }
    }
    if (!panel.changes.empty()) {
      md += "\nThe winner changes ";
      for (std::size_t i = 0; i < panel.changes.size(); ++i) {
        md += (i ? "; " : "") + e(panel.changes[i]);
      }
      md += ".\n";
    }
    for (const auto& s : panel.skipped) md += fmt::format("\nSkipped: {}\n", e(s));
  }
  return md;
}

}  // namespace colltune
