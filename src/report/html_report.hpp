#pragma once

#include <string>

#include "report/view.hpp"

namespace colltune {

// One self-contained HTML file: inline CSS, inline SVG charts, no script, nothing fetched.
std::string render_html(const ReportView& view);

// The busbw-against-size chart of one panel: log2 size axis, one line per series.
std::string render_svg_chart(const PanelView& panel, int chart_index);

}  // namespace colltune
