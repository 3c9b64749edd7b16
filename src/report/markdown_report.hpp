#pragma once

#include <string>

#include "report/view.hpp"

namespace colltune {

// Markdown that fits a pull-request comment; every store string escaped.
std::string render_markdown(const ReportView& view);

}  // namespace colltune
