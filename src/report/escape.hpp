#pragma once
// Escaping for every string that comes from a store or a spec on its way into a document.

#include <string>
#include <string_view>

namespace colltune {

std::string html_escape(std::string_view text);      // & < > " '
std::string markdown_escape(std::string_view text);  // html_escape, plus | ` * _ [ ] and newlines
std::string csv_field(std::string_view text);        // quoted when it holds , " or a newline

}  // namespace colltune
