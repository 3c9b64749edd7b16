#pragma once
// The nccl-tests-like table on rank 0's standard output.

#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "report/reporter.hpp"

namespace colltune {

class ConsoleReporter : public Reporter {
 public:
  // Writes to `out`, which the caller owns and keeps open.
  explicit ConsoleReporter(std::FILE* out) : out_(out) {}
  void begin(const RunContext& context) override;
  void add(const Measurement& m) override;
  void end() override;

 private:
  void print_row(const std::optional<Measurement>& out_of_place,
                 const std::optional<Measurement>& in_place);
  void close_table();
  std::FILE* out_;
  // Out-of-place halves waiting for their in-place half, by in_process_knobs (--interleave
  // measures the settings in turns, so several wait at once).
  std::map<std::map<std::string, std::string>, Measurement> pending_;
  std::optional<CollKind> table_;                        // collective of the open table
  std::set<std::pair<std::string, std::string>> skips_;  // (what, why) of the open table
  bool noisy_in_table_ = false;
  double busbw_sum_ = 0;
  int busbw_rows_ = 0;
  std::uint64_t wrong_total_ = 0;
  bool checked_ = false;      // some row was validated
  bool check_asked_ = false;  // --check > 0: "off" would be wrong when no row could be checked
};

// One half of a row: "time algbw busbw #wrong", as the console prints it.
std::string format_half_row(const Measurement& m);

}  // namespace colltune
