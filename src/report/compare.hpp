#pragma once
// The CI gate: candidate against baseline, matched by point, collective and size.

#include <cstdint>
#include <string>
#include <vector>

#include "store/results.hpp"

namespace colltune {

struct CompareOptions {
  double max_slowdown = 0.05;  // the smallest slowdown worth failing for (0.05 = 5%)
  double alpha = 0.05;         // Mann-Whitney significance level
  std::size_t min_samples = 8;
};

enum class Verdict { kSlower, kFaster, kSame, kTooFewSamples, kMissing, kRankMismatch };
std::string_view name(Verdict v);

struct Comparison {
  std::string point_id, label, collective, dtype, op;
  bool in_place = false;
  std::uint64_t bytes = 0;
  int base_nranks = 0, cand_nranks = 0;
  std::size_t base_samples = 0, cand_samples = 0;
  double ratio = 0;                      // candidate median time / baseline median time
  double ratio_low = 0, ratio_high = 0;  // from the medians' confidence intervals
  double p_value = 1;
  Verdict verdict = Verdict::kSame;
  std::string note;  // why, for missing, mismatch and too few samples
};

std::vector<Comparison> compare(const Dataset& base, const Dataset& cand, const CompareOptions& o);
bool any_regression(const std::vector<Comparison>& rows);

std::string compare_markdown(const std::vector<Comparison>& rows, const Dataset& base,
                             const Dataset& cand, const CompareOptions& o);
std::string compare_junit(const std::vector<Comparison>& rows);

}  // namespace colltune
