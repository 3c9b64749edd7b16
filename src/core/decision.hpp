#pragma once
// Decisions between two configurations that rest on what varies between launches. Samples of one
// launch share its placement, caches and neighbours, so they are not independent of each other;
// launches are. Method and reference: docs/statistics.md.

#include <cstddef>
#include <string>
#include <vector>

namespace colltune {

// One side's times, one entry per launch: that launch's samples (seconds, any order).
using LaunchSamples = std::vector<std::vector<double>>;

struct LaunchTest {
  std::size_t base_launches = 0, cand_launches = 0;  // launches with at least one sample
  double ratio = 0;  // geometric mean of candidate launch medians over the baseline's (>1 slower)
  double ratio_low = 0, ratio_high = 0;  // its 95% interval (0 when not decidable)
  double p_slower = 1, p_faster = 1;     // one-sided p-values
  double log_se = 0;                     // standard error of the log ratio (0 when not decidable)
  double df = 0;                         // its degrees of freedom; 0 for the noise floor's normal
  std::string method;   // "welch" or "noise floor"; empty when the data cannot decide
  std::string why_not;  // when method is empty: what is missing
};

// The mean over `launches` of the log of each one's median (log seconds): a unit's figure, each
// launch one vote; `counted` gets the launches that had samples (0: returns 0). Pure.
double mean_log_median(const LaunchSamples& launches, int& counted);

// The smallest spread of log launch medians believed: a timer tick below this cannot make two
// identical-looking launches infinitely significant.
inline constexpr double kMinLaunchSd = 1e-3;

// Welch's t-test on the logs of launch medians (two launches a side at least). With
// `noise_floor_sd` > 0 (a standard deviation of log launch medians measured earlier on the same
// machine), a z-test with the larger of that and the pooled estimate, which also decides one
// launch against one. Pure function; any thread.
LaunchTest test_launches(const LaunchSamples& base, const LaunchSamples& cand,
                         double noise_floor_sd = 0);

// Settings interleaved in the same launches: a one-sample t-test of the per-launch log ratio of
// medians (launch i of `cand` against launch i of `base`; both must list the same launches), so
// the launch, not the sample, is the unit: what one launch does to a comparison and the next
// does not shows as spread. Needs two launches with samples on both sides. Pure; any thread.
LaunchTest test_paired_launches(const LaunchSamples& base, const LaunchSamples& cand);

// One-sided p-value of "the candidate takes at most `max_ratio` times the baseline's time" from
// `t`'s own statistic: small when the data shows a slowdown beyond that tolerance, not merely
// some slowdown. 1 when `t` could not decide. Pure function; any thread.
double p_slower_beyond(const LaunchTest& t, double max_ratio);

// Each side one run, valued at the geometric mean of its launch medians, against `run_sd` (the
// sd of log run values between runs, as colltune history measures it, on `run_df` degrees of
// freedom): a t-test on the two values (z when run_df is 0), since a run's launches share its
// drift and more of them do not shrink it. Method "between runs". Pure function; any thread.
LaunchTest test_runs(const LaunchSamples& base, const LaunchSamples& cand, double run_sd,
                     double run_df);

// Benjamini-Hochberg adjusted p-values (same order as `p`): a family of comparisons keeps its
// false discovery rate, and with no true difference anywhere its chance of any false alarm,
// at the level the adjusted values are held against.
std::vector<double> benjamini_hochberg(const std::vector<double>& p);

// Pooled standard deviation of log launch medians over many cells (each a list of launches of
// one configuration at one size): the noise floor `test_launches` takes. `df` gets its degrees
// of freedom. 0 when no cell has two launches.
double pooled_launch_sd(const std::vector<LaunchSamples>& cells, std::size_t* df = nullptr);

}  // namespace colltune
