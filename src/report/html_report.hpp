#pragma once

#include <string>

#include "report/view.hpp"

namespace colltune {

// One self-contained HTML file: inline CSS, inline SVG charts, no script, nothing fetched.
std::string render_html(const ReportView& view);

}  // namespace colltune
