#pragma once
// "What to set": a panel's winners table read as advice, sizes with the same advice and verdict
// merged into ranges ("64K-1M: alg=4, +12.0% to +15.1% over the baseline (significant)").

#include <cstddef>
#include <string>

#include "report/view.hpp"

namespace colltune {

// The answer for one panel, built a winners row at a time (a panel of 10^6 sizes need not hold
// them all): add each row in size order, then finish once. `panel` gives the title, shared
// settings and baseline count, and must outlive the builder.
class AnswerBuilder {
 public:
  explicit AnswerBuilder(const PanelView& panel);
  void add(const WinnerRow& row);
  AnswerView finish();

 private:
  void close();  // the open range becomes a line

  const PanelView& panel_;
  AnswerView answer_;
  bool open_ = false;
  std::string advice_, verdict_, first_size_, last_size_, first_vs_baseline_;
  std::size_t rows_ = 0;
  bool names_winner_ = false;
  double least_ = 0, greatest_ = 0;
  std::size_t fewest_ = 0, most_ = 0;
};

// The answer for one panel from its winners rows.
AnswerView answer_of(const PanelView& panel);

}  // namespace colltune
