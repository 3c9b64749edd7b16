#pragma once
// Independent work items spread over the machine's cores, for the offline commands (history
// reading hundreds of runs): never inside a measured launch, where a second busy core would
// disturb the ranks.

#include <cstddef>
#include <functional>

namespace colltune {

// Calls fn(i) once for every i in [0, n), on up to the hardware's thread count (the caller's
// thread among them); fn must be safe to run concurrently for distinct i. When calls throw, all
// the others still finish and the exception of the lowest i is rethrown, so the error reported
// is the one a plain loop would have stopped at.
void parallel_for(std::size_t n, const std::function<void(std::size_t)>& fn);

}  // namespace colltune
