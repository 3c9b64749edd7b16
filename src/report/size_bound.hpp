#pragma once
// A report a reader can scan and a browser can draw, whatever the run holds: a panel of 10^6
// sizes made a 660 MB HTML page. Every size stays in results.csv and in the answer; the tables
// and charts show a bounded, stated selection. Pure functions on the view.

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include "report/view.hpp"

namespace colltune {

// Rows a panel's table shows and points each of its chart lines draws, at most.
inline constexpr std::size_t kMaxShownSizes = 256;
// Changes of winner named in a panel, and ranges in an answer, at most.
inline constexpr std::size_t kMaxShownChanges = 64;
inline constexpr std::size_t kMaxAnswerLines = 64;

// The sizes of `all` a panel's table and charts show: every one up to kMaxShownSizes, else that
// many spread evenly over the logarithm of the size, the smallest and largest kept.
std::set<std::uint64_t> sizes_to_show(const std::set<std::uint64_t>& all);

// Cuts the panel's chart points to `shown` (its rows are cut as they are made) and its changes
// of winner to kMaxShownChanges; records `sizes_total` and how many are shown.
void bound_panel(PanelView& panel, const std::set<std::uint64_t>& shown, std::size_t sizes_total);

// "Showing 257 of 1000000 sizes ...": what a bounded panel left out and where it is; "" when
// the panel shows every size.
std::string shown_sizes_note(const PanelView& panel);

// Leaves at most kMaxAnswerLines ranges, the last line counting those left out.
void bound_answer(AnswerView& answer);

}  // namespace colltune
