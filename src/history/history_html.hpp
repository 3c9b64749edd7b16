#pragma once
// history.html: the findings, then one time-series chart per panel (each size a line of run
// values with their intervals, outlying runs ringed, every change marked where it happened with
// what changed written along the mark), as inline SVG with no script.

#include <string>
#include <vector>

#include "history/history_findings.hpp"

namespace colltune {

std::string history_html(const HistoryResult& h, const std::vector<HistoryRun>& runs,
                         const HistoryOptions& o);

}  // namespace colltune
