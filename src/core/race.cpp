#include "core/race.hpp"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <stdexcept>

#include "core/stats.hpp"

namespace colltune {
namespace {

// P(X <= k) for X ~ Binomial(n, 1/2), summed exactly in doubles (n is a turn count).
double binomial_half_cdf(std::size_t n, std::size_t k) {
  double term = std::pow(0.5, static_cast<double>(n));  // C(n, 0) / 2^n
  double sum = term;
  for (std::size_t i = 1; i <= k; ++i) {
    term *= static_cast<double>(n - i + 1) / static_cast<double>(i);
    sum += term;
  }
  return sum;
}

}  // namespace

std::vector<std::size_t> turn_order(std::size_t settings, int turn) {
  std::vector<std::size_t> order(settings);
  if (settings == 0) return order;
  // Row 0 is 0, 1, n-1, 2, n-2, ...; row r adds r (mod n). With n odd the rows alone balance
  // places but not predecessors, and with their mirror images they balance both.
  const std::size_t rows = settings % 2 == 0 ? settings : 2 * settings;
  const std::size_t row = static_cast<std::size_t>(turn - 1) % rows;
  for (std::size_t place = 0; place < settings; ++place) {
    const std::size_t base = place % 2 == 1 ? (place + 1) / 2 : (settings - place / 2) % settings;
    order[place] = (base + row) % settings;
  }
  if (row >= settings) std::reverse(order.begin(), order.end());
  return order;
}

std::string_view name(RaceOutcome outcome) {
  switch (outcome) {
    case RaceOutcome::kNotRaced:
      return "not_raced";
    case RaceOutcome::kRacing:
      return "racing";
    case RaceOutcome::kWon:
      return "won";
    case RaceOutcome::kEliminated:
      return "eliminated";
    case RaceOutcome::kTied:
      return "tied";
    case RaceOutcome::kUndecided:
      return "undecided";
  }
  return "?";
}

std::optional<RaceOutcome> parse_race_outcome(std::string_view text) {
  for (RaceOutcome o : {RaceOutcome::kNotRaced, RaceOutcome::kRacing, RaceOutcome::kWon,
                        RaceOutcome::kEliminated, RaceOutcome::kTied, RaceOutcome::kUndecided}) {
    if (name(o) == text) return o;
  }
  return std::nullopt;
}

std::size_t median_interval_rank(std::size_t n, double confidence) {
  // The largest k with P(X <= k - 1) <= (1 - confidence) / 2: [x_(k), x_(n-k+1)] then covers
  // the median with at least `confidence`.
  const double tail = (1 - confidence) / 2;
  std::size_t k = 0;
  while (k + 1 <= n / 2 && binomial_half_cdf(n, k) <= tail) ++k;
  return k;
}

std::optional<std::pair<double, double>> median_interval(std::vector<double> values,
                                                         double confidence) {
  const std::size_t n = values.size();
  const std::size_t k = median_interval_rank(n, confidence);
  if (k == 0) return std::nullopt;
  std::sort(values.begin(), values.end());
  return std::make_pair(values[k - 1], values[n - k]);
}

std::optional<std::pair<double, double>> mean_interval(const std::vector<double>& values,
                                                       double confidence) {
  const std::size_t n = values.size();
  if (n < 2) return std::nullopt;
  const Summary s = summarize(values);
  const boost::math::students_t t(static_cast<double>(n - 1));
  const double half = boost::math::quantile(t, 1 - (1 - confidence) / 2) * s.stddev /
                      std::sqrt(static_cast<double>(n));
  return std::make_pair(s.mean - half, s.mean + half);
}

bool race_step(const std::vector<std::vector<double>>& samples, std::vector<RaceEntry>& entries,
               int turn, const RaceConfig& config) {
  if (samples.size() != entries.size()) throw std::logic_error("race_step: sizes differ");
  std::vector<std::size_t> racing;
  for (std::size_t s = 0; s < entries.size(); ++s) {
    if (entries[s].outcome == RaceOutcome::kRacing) racing.push_back(s);
  }
  const auto stop = [&](std::size_t s, RaceOutcome outcome) { entries[s] = {outcome, turn}; };
  if (racing.size() == 1) {
    stop(racing.front(), RaceOutcome::kWon);
    return true;
  }
  if (racing.empty()) return true;
  const bool sign_test = turn >= config.min_turns;
  const bool t_rule = turn >= config.early_turns && config.early_turns < config.min_turns;
  if (!sign_test && !t_rule) return false;
  // The t rule's level per look: every look from early_turns to the budget shares 1 - confidence.
  const int t_looks = std::max(1, config.max_turns - config.early_turns + 1);
  const double t_confidence = 1 - (1 - config.confidence) / t_looks;

  // Every setting still racing has samples for turns 1..turn, so turn t pairs them (a block, as
  // in F-Race: drift during turn t hits all of them alike).
  const auto recent = [&](std::size_t s) {
    return std::vector<double>(samples[s].end() - turn, samples[s].end());
  };
  std::size_t best = racing.front();
  double best_median = median_of(recent(best));
  for (std::size_t s : racing) {
    const double m = median_of(recent(s));
    if (m < best_median) best = s, best_median = m;
  }
  const double upper = std::log1p(config.tie_tolerance);
  const std::vector<double> best_samples = recent(best);
  bool all_tied = true;
  // Futility: where the spread seen so far would leave even the budget's last look straddling
  // log(1 + tie) for every open setting, more turns buy nothing but time.
  bool all_futile = sign_test && config.stop_futile;
  const boost::math::students_t t_at_budget(std::max(1, config.max_turns - 1));
  const double t_quantile_at_budget =
      boost::math::quantile(t_at_budget, 1 - (1 - t_confidence) / 2);
  // The sign test's interval at the budget is [x_(k), x_(n-k+1)] of n turns: projected from the
  // turns so far at the same ranks, so that a few wild turns (a descheduled rank), which widen
  // t's projection, do not call futile what the order statistics would still decide.
  const std::size_t budget_turns = static_cast<std::size_t>(std::max(1, config.max_turns));
  const std::size_t budget_rank = median_interval_rank(budget_turns, config.confidence);
  for (std::size_t s : racing) {
    if (s == best) continue;
    const std::vector<double> mine = recent(s);
    std::vector<double> log_ratios(mine.size());
    for (std::size_t t = 0; t < mine.size(); ++t) {
      log_ratios[t] = std::log(mine[t] / best_samples[t]);
    }
    std::vector<std::pair<double, double>> intervals;
    if (sign_test) {
      if (auto i = median_interval(log_ratios, config.confidence)) intervals.push_back(*i);
    }
    if (t_rule) {
      if (auto i = mean_interval(log_ratios, t_confidence)) intervals.push_back(*i);
    }
    const bool above = std::any_of(intervals.begin(), intervals.end(),
                                   [&](const auto& i) { return i.first > upper; });
    const bool within = std::any_of(intervals.begin(), intervals.end(),
                                    [&](const auto& i) { return i.second < upper; });
    if (above) {
      stop(s, RaceOutcome::kEliminated);
    } else if (!within) {
      all_tied = false;  // it may still be more than the tolerance slower than the best
      const Summary spread = summarize(log_ratios);
      const double half_at_budget =
          t_quantile_at_budget * spread.stddev / std::sqrt(static_cast<double>(config.max_turns));
      if (std::abs(spread.mean - upper) >= half_at_budget) all_futile = false;
      if (budget_rank > 0) {
        std::sort(log_ratios.begin(), log_ratios.end());
        const std::size_t n = log_ratios.size();
        // The budget's rank scaled to the turns so far (rounded up, at least 1).
        const std::size_t rank =
            std::clamp<std::size_t>((budget_rank * n + budget_turns - 1) / budget_turns, 1,
                                    std::max<std::size_t>(1, n / 2));
        if (log_ratios[n - rank] < upper || log_ratios[rank - 1] > upper) all_futile = false;
      }
    }
  }
  std::vector<std::size_t> left;
  for (std::size_t s : racing) {
    if (entries[s].outcome == RaceOutcome::kRacing) left.push_back(s);
  }
  if (left.size() == 1) {
    stop(left.front(), RaceOutcome::kWon);
  } else if (all_tied) {
    for (std::size_t s : left) stop(s, RaceOutcome::kTied);
  } else if (turn >= config.max_turns || all_futile) {
    for (std::size_t s : left) stop(s, RaceOutcome::kUndecided);
  } else {
    return false;
  }
  return true;
}

}  // namespace colltune
