#pragma once
// "What to set": a panel's winners table read as advice, sizes with the same advice and verdict
// merged into ranges ("64K-1M: alg=4, +12.0% to +15.1% over the baseline (significant)").

#include "report/view.hpp"

namespace colltune {

// The answer for one panel, from its winners rows; called once per panel by make_report_view.
AnswerView answer_of(const PanelView& panel);

}  // namespace colltune
