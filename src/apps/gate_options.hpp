#pragma once
// What compare's numbers mean: fractions and slowdowns as users write them, the noise floor in
// its three forms (a percentage, a file `colltune noise --out` wrote, a directory `colltune
// history --out` wrote), and the warning for launches too close in time to show the drift.

#include <string>

#include "report/compare.hpp"
#include "store/results.hpp"

namespace colltune {

// "5%" or "0.05" (0 or more); throws ConfigError naming `flag`.
double parse_fraction(const std::string& text, const std::string& flag);

// --max-slowdown, history's --min-change: "5%" or "1.05x" as a fraction (0.05); a bare number is
// refused. Throws ConfigError naming `flag`.
double parse_slowdown(const std::string& text, const std::string& flag = "--max-slowdown");

// A gate's false-alarm level. Below 0.001 a real slowdown is waved through as noise (at 1e-300
// a 1.3x slowdown at p = 0.0013 read "same"); above 0.2 one comparison in five alarms falsely.
inline constexpr double kMinAlpha = 0.001, kMaxAlpha = 0.2;

// --alpha: a plain probability in [kMinAlpha, kMaxAlpha]; throws ConfigError naming `flag`.
double parse_alpha(const std::string& text, const std::string& flag);

// --noise-floor into `o`: its sd (percentage, noise file) or the spread between runs (history
// directory or its history.json). Throws ConfigError naming the field and what is allowed.
void parse_noise_floor(const std::string& text, CompareOptions& o);

// On stderr, when each side's launches all began within a few minutes (they share one stretch of
// the machine's drift) and no noise floor was given.
void warn_short_spans(const Dataset& a, const Dataset& b);

}  // namespace colltune
