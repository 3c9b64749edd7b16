#pragma once
// The CI gate: candidate against baseline, matched by point, collective and size. The statistical
// unit is the launch (a sweep round, or one run file); see docs/statistics.md.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "report/compare_side.hpp"
#include "store/atomic_file.hpp"
#include "store/results.hpp"

namespace colltune {

struct CompareOptions {
  double max_slowdown = 0.05;      // the smallest slowdown worth failing for (0.05 = 5%)
  double alpha = 0.05;             // level the Benjamini-Hochberg adjusted one-sided p is held to
  double noise_floor_sd = 0;       // sd of log launch medians measured earlier; 0 = none
  std::string noise_floor_source;  // where it came from, named in the output
  bool allow_incomplete = false;   // comparisons it could not make do not fail the gate
  // The spread between runs from colltune history (sd of log run values), per series by
  // comparison_series_key and pooled for the rest. With it each side counts as one run, since the
  // launches of one run share its drift, and the test is a z-test on the two run values.
  struct RunSpread {
    double sd_log = 0;  // sd of log run values
    double df = 0;      // its degrees of freedom (0: taken as known)
  };
  std::map<std::string, RunSpread> run_sd_by_series;
  RunSpread run_sd;
};

// The series a comparison belongs to, as history names it: point, collective, dtype, op,
// buffers, root, size and ranks.
std::string comparison_series_key(const std::string& point_id, const std::string& collective,
                                  const std::string& dtype, const std::string& op, bool in_place,
                                  int root, std::uint64_t bytes, int nranks);

// kSame: the 95% interval of the ratio stays within --max-slowdown; where it reaches past it the
// row is kInconclusive. kWrong: a record of it found wrong results (a failure, like kSlower).
enum class Verdict { kSlower, kFaster, kSame, kInconclusive, kMissing, kRankMismatch, kWrong };
std::string_view name(Verdict v);
// Missing, rank mismatch and inconclusive: the gate could not compare.
bool is_gap(Verdict v);

struct Comparison {
  std::string point_id, label, collective, dtype, op;
  bool in_place = false;
  std::uint64_t bytes = 0;
  int root = 0;
  int base_nranks = 0, cand_nranks = 0;
  std::size_t base_launches = 0, cand_launches = 0;
  double ratio = 0;                      // candidate / baseline, geometric mean of launch medians
  double ratio_low = 0, ratio_high = 0;  // its 95% interval from the launch-level test
  double p_value = 1;                    // adjusted one-sided p in the direction of the change
  std::string method;                    // "welch", "noise floor"
  Verdict verdict = Verdict::kSame;
  std::string note;  // why, for the gaps
};

// Every (point, collective, dtype, op, in-place, root, size) on either side, one row each: from
// sides merged as they were read (the datasets give labels), or from the datasets' records.
std::vector<Comparison> compare(CompareSide base_side, const Dataset& base, CompareSide cand_side,
                                const Dataset& cand, const CompareOptions& o);
std::vector<Comparison> compare(const Dataset& base, const Dataset& cand, const CompareOptions& o);

// Rows that were compared (slower, faster or same): the gate decided something on them.
std::size_t compared_count(const std::vector<Comparison>& rows);

// 0 nothing slower and every comparison made; 1 something slower or wrong; 3 nothing slower but
// some comparisons could not be made (unless o.allow_incomplete), or none was made at all.
int gate_exit_code(const std::vector<Comparison>& rows, const CompareOptions& o);

// The gate's summary and one table row per comparison, to `out`.
void compare_markdown(const std::vector<Comparison>& rows, const Dataset& base, const Dataset& cand,
                      const CompareOptions& o, const TextSink& out);
std::string compare_junit(const std::vector<Comparison>& rows, const CompareOptions& o);

// A JUnit XML document of one suite "colltune <suite>" holding `cases` (<testcase> elements).
std::string junit_document(const std::string& suite, std::size_t tests, int failures, int errors,
                           int skipped, const std::string& cases);

}  // namespace colltune
