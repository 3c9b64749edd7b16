#include "report/size_bound.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

namespace colltune {
std::set<std::uint64_t> sizes_to_show(const std::set<std::uint64_t>& all) {
  if (all.size() <= kMaxShownSizes) return all;
  // Targets evenly spaced in log(bytes), each taking the first size at or above it. Sweeps step
  // sizes by powers of two, so a log spacing keeps every decade of a 10^6-size linear scan in
  // view, where an even stride would show only its top.
  const std::vector<std::uint64_t> sizes(all.begin(), all.end());
  std::set<std::uint64_t> kept{sizes.front(), sizes.back()};
  const double low = std::log(static_cast<double>(std::max<std::uint64_t>(sizes.front(), 1)));
  const double high = std::log(static_cast<double>(std::max<std::uint64_t>(sizes.back(), 1)));
  for (std::size_t t = 0; t < kMaxShownSizes; ++t) {
    const double target =
        std::exp(low + (high - low) * static_cast<double>(t) / (kMaxShownSizes - 1));
    auto at = std::lower_bound(sizes.begin(), sizes.end(), target, [](std::uint64_t s, double x) {
      return static_cast<double>(s) < x;
    });
    kept.insert(at == sizes.end() ? sizes.back() : *at);
  }
  return kept;
}

void bound_panel(PanelView& panel, const std::set<std::uint64_t>& shown, std::size_t sizes_total) {
  for (SeriesView& s : panel.series) {
    std::erase_if(s.points, [&](const SeriesPoint& p) { return !shown.count(p.bytes); });
  }
  panel.sizes_total = sizes_total;
  panel.sizes_shown = std::min(shown.size(), sizes_total);
  if (panel.changes.size() > kMaxShownChanges) {
    const std::size_t more = panel.changes.size() - kMaxShownChanges;
    panel.changes.resize(kMaxShownChanges);
    panel.changes.push_back(fmt::format("and {} more times", more));
  }
}

std::string shown_sizes_note(const PanelView& panel) {
  if (panel.sizes_shown >= panel.sizes_total) return "";
  return fmt::format(
      "Showing {} of {} sizes in this table and its charts: spread evenly over the size range on "
      "a log scale, plus the sizes where the winner changes (up to {}). The answer above covers "
      "every size; "
      "results.csv holds them all.",
      panel.sizes_shown, panel.sizes_total, kMaxShownChanges);
}

void bound_answer(AnswerView& answer) {
  if (answer.lines.size() <= kMaxAnswerLines) return;
  const std::size_t more = answer.lines.size() - (kMaxAnswerLines - 1);
  answer.lines.resize(kMaxAnswerLines - 1);
  answer.lines.push_back(
      fmt::format("... and {} more size ranges (every size is in results.csv)", more));
}

}  // namespace colltune
