#pragma once
// Summary statistics of a sample set, with a distribution-free confidence interval of the median.

#include <cstddef>
#include <vector>

namespace colltune {

struct Summary {
  std::size_t n = 0;
  double min = 0, median = 0, mean = 0, p95 = 0, max = 0, stddev = 0;
  // Confidence interval of the median (Le Boudec, rank based). `ci_exact` is false when there are
  // too few samples for the requested level, and then the interval is [min, max].
  double ci_low = 0, ci_high = 0;
  double ci_level = 0.95;
  bool ci_exact = false;
};

// Any units; `samples` need not be sorted. Percentiles interpolate linearly between order
// statistics; stddev is the sample standard deviation (n - 1). Empty input gives n == 0.
Summary summarize(std::vector<double> samples, double z = 1.96);

// The median as summarize() takes it (the mean of the two middle values for an even count); 0
// for no values.
double median_of(std::vector<double> values);

// (ci_high - ci_low) / median: the relative width used to warn about noisy numbers.
double relative_ci_width(const Summary& s);

// Two-sided p-value of the Mann-Whitney U test on raw samples: the normal approximation with
// tie and continuity corrections (sound from about 8 samples a side). 1 when either is empty.
double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace colltune
