#include "core/cpulist.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

namespace colltune {

std::string format_cpulist(std::vector<int> cpus) {
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j == i ? fmt::format("{}", cpus[i]) : fmt::format("{}-{}", cpus[i], cpus[j]);
    i = j + 1;
  }
  return out;
}

std::vector<int> parse_cpulist(const std::string& text) {
  std::vector<int> out;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) {
    if (part.empty()) continue;
    int lo = 0, hi = 0;
    char dash = 0;
    std::stringstream p(part);
    if (!(p >> lo)) return {};
    hi = lo;
    if (p >> dash) {
      if (dash != '-' || !(p >> hi) || hi < lo) return {};
    }
    for (int c = lo; c <= hi; ++c) out.push_back(c);
  }
  return out;
}

}  // namespace colltune
