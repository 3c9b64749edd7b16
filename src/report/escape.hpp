#pragma once
// Escaping for every string that comes from a store or a spec on its way into a document.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace colltune {

// & < > " ' as references; control characters XML forbids as \xNN text (valid HTML and XML).
std::string html_escape(std::string_view text);
// Text from outside made safe for a terminal: control characters (tab and newline too) and DEL
// as \xNN text, escape sequences thereby inert; everything else as it was.
std::string control_escaped(std::string_view text);
// Backslash escapes (CommonMark), never HTML entities, so the .md reads as plain text: | ` * _
// [ ] \ < and & always (no tag or entity can form), > at the start; newlines become spaces.
std::string markdown_escape(std::string_view text);
std::string csv_field(std::string_view text);  // quoted when it holds , " or a newline
// An OpenMetrics label value: \\ \" and \n escaped, as the text format asks.
std::string metric_label(std::string_view text);

// "1 rank", "2 ranks": a count with its noun in the right number (nouns taking a plain s).
std::string counted(std::size_t n, std::string_view noun);

// "a, b, c and 4 more": the first `shown` items of a list, joined, unescaped.
std::string first_of(const std::vector<std::string>& items, std::size_t shown);

}  // namespace colltune
