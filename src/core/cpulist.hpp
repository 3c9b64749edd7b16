#pragma once
// CPU sets as Linux cpulists ("0-3,8"), the form taskset and /proc use.

#include <string>
#include <vector>

namespace colltune {

// `cpus` in any order, duplicates allowed; "" for an empty set.
std::string format_cpulist(std::vector<int> cpus);

// A cpulist back into CPU numbers; empty for malformed text.
std::vector<int> parse_cpulist(const std::string& text);

}  // namespace colltune
