#pragma once
// The history rendered: the console answer, history.md (findings first), history.json (every
// series with its runs, changes and between-run spread, which compare --noise-floor reads).

#include <string>
#include <vector>

#include "history/history_findings.hpp"

namespace colltune {

std::string history_console(const HistoryResult& h, const std::vector<HistoryRun>& runs, bool gate);
std::string history_markdown(const HistoryResult& h, const std::vector<HistoryRun>& runs,
                             const HistoryOptions& o);
// --gate --junit: one test case per series; slower fails, gaps are errors (skipped when
// allow_incomplete).
std::string history_junit(const HistoryResult& h, const HistoryOptions& o);
std::string history_json(const HistoryResult& h, const std::vector<HistoryRun>& runs,
                         const HistoryOptions& o);

}  // namespace colltune
