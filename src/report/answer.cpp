#include "report/answer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "report/escape.hpp"

namespace colltune {
namespace {

// "yes", "no significant difference", "undecided: ...": the verdict without its statistics.
std::string verdict_of(const std::string& significance) {
  const auto cut = significance.find_first_of("(;:");
  std::string out = significance.substr(0, cut);
  while (!out.empty() && (out.back() == ' ' || out.back() == ',')) out.pop_back();
  return out.rfind("yes", 0) == 0 ? "significant" : out;
}

// What a row tells the reader to do, before its size range and gain are added: rows whose
// advice is the same merge into one range.
std::string advice_of(const WinnerRow& row, const PanelView& panel) {
  const std::string verdict = verdict_of(row.significance);
  if (verdict == "only one configuration")
    return "only " + row.winner + " measured, nothing to choose";
  if (row.winner != "no significant difference") {
    if (row.vs_baseline == "is the baseline") return "keep the baseline, the fastest";
    if (row.vs_baseline == "n/a") return row.winner + ", no baseline measured to compare with";
    return row.winner;  // the gain over the baseline follows
  }
  if (row.baselines_in_contention.empty()) {
    // Every baseline is out: something beats the library's choice; a race that ended tied says
    // the survivors are alike; an undecided one has not told them apart.
    if (verdict.rfind("race tied", 0) == 0) {
      return fmt::format("not the baseline (slower); any of {} tied: {}",
                         counted(row.contenders.size(), "configuration"),
                         first_of(row.contenders, 3));
    }
    return fmt::format("not the baseline (slower), but undecided among {}: {}",
                       counted(row.contenders.size(), "configuration"),
                       first_of(row.contenders, 3));
  }
  // With several placements, name the baselines still in contention when some are out.
  if (row.baselines_in_contention.size() < panel.baselines) {
    std::vector<std::string> kept = row.baselines_in_contention;
    std::sort(kept.begin(), kept.end());
    return "keep " + first_of(kept, 3);
  }
  return "keep the baseline";
}

}  // namespace

AnswerView answer_of(const PanelView& panel) {
  AnswerView answer{
      panel.shared.empty() ? panel.title : fmt::format("{} ({})", panel.title, panel.shared), {}};
  const auto& rows = panel.winners;
  for (std::size_t i = 0; i < rows.size();) {
    const std::string advice = advice_of(rows[i], panel);
    const std::string verdict = verdict_of(rows[i].significance);
    std::size_t j = i;
    while (j + 1 < rows.size() && advice_of(rows[j + 1], panel) == advice &&
           verdict_of(rows[j + 1].significance) == verdict) {
      ++j;
    }
    const std::string range = i == j ? rows[i].size : rows[i].size + "-" + rows[j].size;
    std::string line = fmt::format("{}: {}", range, advice);
    if (advice == rows[i].winner) {
      // The gain over the range as its least and greatest, whatever order the sizes put them in.
      double least = rows[i].gain_over_baseline, greatest = least;
      for (std::size_t k = i; k <= j; ++k) {
        least = std::min(least, rows[k].gain_over_baseline);
        greatest = std::max(greatest, rows[k].gain_over_baseline);
      }
      line +=
          fmt::format(", {} over the baseline",
                      i == j ? rows[i].vs_baseline
                             : fmt::format("{:+.1f}% to {:+.1f}%", least * 100, greatest * 100));
    }
    // How many others the kept baseline is tied with, over the range.
    std::size_t fewest = SIZE_MAX, most = 0;
    for (std::size_t k = i; k <= j; ++k) {
      if (rows[k].contenders.empty() || rows[k].baselines_in_contention.empty()) continue;
      fewest = std::min(fewest, rows[k].contenders.size() - 1);
      most = std::max(most, rows[k].contenders.size() - 1);
    }
    if (most > 0) {
      line += fewest == most ? fmt::format(", tied with {}", counted(most, "other"))
                             : fmt::format(", tied with {} to {} others", fewest, most);
    }
    if (verdict != "only one configuration") line += " (" + verdict + ")";
    answer.lines.push_back(std::move(line));
    i = j + 1;
  }
  return answer;
}

}  // namespace colltune
