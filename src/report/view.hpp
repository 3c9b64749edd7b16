#pragma once
// The report's content, computed once and rendered as Markdown and HTML alike.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "store/results.hpp"

namespace colltune {

// One size of one configuration: the median and its interval (the summary's confidence interval
// of the median), as time and as busbw.
struct SeriesPoint {
  std::uint64_t bytes = 0;
  double time_seconds = 0, time_low = 0, time_high = 0;
  double busbw_gbps = 0, busbw_low = 0, busbw_high = 0;
};

struct SeriesView {
  std::string label;
  bool baseline = false;
  std::vector<SeriesPoint> points;  // by size
};

struct WinnerRow {
  std::uint64_t bytes = 0;
  std::string size;               // "64K"
  std::string winner;             // label
  std::string busbw;              // "12.34"
  std::string of_ceiling;         // busbw as a share of the host copy ceiling, "n/a" without one
  std::string vs_runner_up;       // "+4.1% over <label>"
  std::string vs_baseline;        // "+12.0%", "baseline", "n/a"
  double gain_over_baseline = 0;  // baseline time / winner time - 1, when vs_baseline is a number
  std::string significance;       // "yes (p=0.001)", "no (p=0.40)", "too few samples"
  std::string tied;               // labels not distinguishable from the winner
  // Unnamed winner only: the configurations still in contention (the fastest, then those tied
  // with it), and which of them are baselines: "keep the baseline" holds only if one is.
  std::vector<std::string> contenders;
  std::vector<std::string> baselines_in_contention;
  bool winner_changes = false;  // a significant winner other than the previous significant one
};

struct PanelView {
  std::string title;
  std::string shared;    // settings every configuration of the panel has; labels leave them out
  std::string key_note;  // what the labels' short names stand for: "allreduce_alg = OMPI_MCA_..."
  std::size_t baselines = 0;  // baseline configurations among the lines (one per placement)
  double ceiling_gbps = 0;    // the copy ceiling busbw is held against; 0 when not measured
  std::vector<SeriesView> series;
  std::vector<WinnerRow> winners;
  std::vector<std::string> changes;  // "at 64K: A -> B"
  std::vector<std::string> skipped;  // "label: reason"
  // Sizes measured, and shown in the table and charts (bound_panel_sizes; fewer on huge runs).
  std::size_t sizes_total = 0, sizes_shown = 0;
};

struct FailureRow {
  std::string point, round, status, detail;
};

// One warning and the configurations it was raised for: a placement's warning comes once, not
// once per configuration that shares the placement.
struct WarningGroup {
  std::string text;
  std::vector<std::string> labels;
};

// The answer first: per panel, sizes with the same verdict merged into ranges ("1K-64K:
// alg=4, +12.0% over the baseline, significant").
struct AnswerView {
  std::string panel;
  std::vector<std::string> lines;
};

struct ReportView {
  std::string title;
  std::string summary;  // one line: source, kind, counts
  std::vector<std::pair<std::string, std::string>> context;
  std::vector<FailureRow> failures;
  std::vector<WarningGroup> warnings;  // one per distinct warning, in first-seen order
  std::vector<AnswerView> answers;     // what to set, before the details
  std::vector<PanelView> panels;
  std::vector<std::string> notes;
};

ReportView make_report_view(const Dataset& d);

// The MPIs the dataset's points ran under, each as its family and version (records before
// 2026-12 carry only the library's text, parsed alike; an unknown text by its first line),
// joined with "; "; "n/a" for none.
std::string mpi_libraries(const Dataset& d);
// The same, letting go of d.records as soon as they are summarised (report of a big run).
ReportView make_report_view(Dataset&& d);

// The ceiling a point's busbw is held against: the GPUs' device copy for NCCL points, the host's
// memcpy otherwise; 0 when that was not measured.
double ceiling_for(const Dataset& d, const std::string& point_id);

}  // namespace colltune
