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

AnswerBuilder::AnswerBuilder(const PanelView& panel)
    : panel_(panel),
      answer_{
          panel.shared.empty() ? panel.title : fmt::format("{} ({})", panel.title, panel.shared),
          {}} {}

void AnswerBuilder::add(const WinnerRow& row) {
  const std::string advice = advice_of(row, panel_);
  const std::string verdict = verdict_of(row.significance);
  if (open_ && (advice != advice_ || verdict != verdict_)) close();
  if (!open_) {
    open_ = true;
    advice_ = advice, verdict_ = verdict;
    first_size_ = row.size, first_vs_baseline_ = row.vs_baseline;
    rows_ = 0;
    least_ = greatest_ = row.gain_over_baseline;
    fewest_ = SIZE_MAX, most_ = 0;
    names_winner_ = advice == row.winner;
  }
  ++rows_;
  last_size_ = row.size;
  // The gain over the range as its least and greatest, whatever order the sizes put them in.
  least_ = std::min(least_, row.gain_over_baseline);
  greatest_ = std::max(greatest_, row.gain_over_baseline);
  // How many others the kept baseline is tied with, over the range.
  if (!row.contenders.empty() && !row.baselines_in_contention.empty()) {
    fewest_ = std::min(fewest_, row.contenders.size() - 1);
    most_ = std::max(most_, row.contenders.size() - 1);
  }
}

void AnswerBuilder::close() {
  const std::string range = rows_ == 1 ? first_size_ : first_size_ + "-" + last_size_;
  std::string line = fmt::format("{}: {}", range, advice_);
  if (names_winner_) {
    line += fmt::format(", {} over the baseline",
                        rows_ == 1
                            ? first_vs_baseline_
                            : fmt::format("{:+.1f}% to {:+.1f}%", least_ * 100, greatest_ * 100));
  }
  if (most_ > 0) {
    line += fewest_ == most_ ? fmt::format(", tied with {}", counted(most_, "other"))
                             : fmt::format(", tied with {} to {} others", fewest_, most_);
  }
  if (verdict_ != "only one configuration") line += " (" + verdict_ + ")";
  answer_.lines.push_back(std::move(line));
  open_ = false;
}

AnswerView AnswerBuilder::finish() {
  if (open_) close();
  return std::move(answer_);
}

AnswerView answer_of(const PanelView& panel) {
  AnswerBuilder answer(panel);
  for (const WinnerRow& row : panel.winners) answer.add(row);
  return answer.finish();
}

}  // namespace colltune
