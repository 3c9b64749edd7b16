#pragma once
// colltune verify's verdicts: the tuned point against the defaults in one store, per row of the
// tuned file, from the launch-level test the gate uses (docs/statistics.md).

#include <optional>
#include <string>
#include <vector>

#include "report/tuned_read.hpp"
#include "store/results.hpp"

namespace colltune {

inline constexpr double kVerifyMaxSlowdown = 0.05;  // compare's --max-slowdown default
inline constexpr int kVerifyNotSlower = 0, kVerifySlower = 1, kVerifyBadInput = 2,
                     kVerifyCannotTell = 3;

struct VerifyOutcome {
  int exit_code = kVerifyCannotTell;
  std::string text;  // per row and size: tuned/default time with its interval, the verdict
};

// nccl-plugin files: why the tuned launches of `d` show no row of `f` applied (NCCL loaded no
// colltune plugin, or none of its rows was for the communicator NCCL counted), from the
// tuner_plugin backend setting the NCCL backend records; nullopt when rows applied, with `seen`
// saying so in one line.
std::optional<std::string> plugin_not_applied(const Dataset& d, const TunedFile& f,
                                              std::string& seen);

// `d` holds one baseline point (the defaults) and one other (the file applied), measured over
// `nranks` ranks. Rows of `f` that apply to `nranks` get a verdict: slower where any of their
// sizes is shown slower by more than 5% (one-sided test of "at most 5% slower",
// Benjamini-Hochberg over every size, level 0.05), "within 5%" where some size is significantly
// but not shown more than 5% slower, faster where some are faster and none slower, "no
// measurable gain" where none differs, "could not tell" where some size's 95% interval reaches
// past 5% slower or could not be tested, "WRONG RESULTS" where either point found wrong results.
// Exit 1 when a row is slower or wrong, 3 when some row could not be told (or none applies), or
// for an nccl-plugin file when plugin_not_applied says why no row applied.
VerifyOutcome verify_dataset(const Dataset& d, const TunedFile& f, int nranks);

}  // namespace colltune
