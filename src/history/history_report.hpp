#pragma once
// The history rendered: each finding's line, the console answer, history.md (findings first),
// history.json (every series with its runs, changes and between-run spread, which compare
// --noise-floor reads).

#include <string>
#include <vector>

#include "history/history_findings.hpp"

namespace colltune {

// One finding as a line, for every renderer: "allreduce 1-64 MiB 18% slower [15, 21] from the
// run of 2026-11-14: nccl 2.27.7 -> 2.28.9 (panel; p 0.001)".
std::string finding_line(const Finding& f, const std::vector<HistoryRun>& runs);

std::string history_console(const HistoryResult& h, const std::vector<HistoryRun>& runs, bool gate);
std::string history_markdown(const HistoryResult& h, const std::vector<HistoryRun>& runs,
                             const HistoryOptions& o);
// --gate --junit: one test case per series; slower fails, gaps are errors (skipped when
// allow_incomplete).
std::string history_junit(const HistoryResult& h, const HistoryOptions& o);
std::string history_json(const HistoryResult& h, const std::vector<HistoryRun>& runs,
                         const HistoryOptions& o);

}  // namespace colltune
