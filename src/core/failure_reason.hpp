#pragma once
// Why a launch failed, from the tail of its log: shared by the sweep's console (which stops a
// sweep whose launches all fail alike) and the report's failures table, so both name one cause.

#include <optional>
#include <string>
#include <vector>

namespace colltune {

// The line that says what went wrong: colltune's own error line where there is one, else the
// first line stating a cause (mpirun's "has detected an attempt to run as root", "No such file",
// "error", ...), skipping the launcher's follow-up lines ("Primary job terminated normally", "We
// reiterate our advice"); else the last line that is not decoration. Pure; any thread.
std::optional<std::string> failure_reason(const std::vector<std::string>& tail);

// The known fix for a reason that will repeat on every launch, or nullopt. Pure.
std::optional<std::string> known_fix(const std::string& reason);

}  // namespace colltune
