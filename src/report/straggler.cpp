#include "report/straggler.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/sizes.hpp"
#include "core/stats.hpp"

namespace colltune {
namespace {

std::string host_of(const Dataset& d, const std::string& point, std::size_t rank) {
  const auto it = d.contexts.find(point);
  if (it == d.contexts.end()) return "?";
  const auto& placement = it->second.value("placement", nlohmann::json::array());
  for (const auto& p : placement) {
    if (p.value("rank", -1) == static_cast<int>(rank)) return p.value("host", "?");
  }
  return "?";
}

}  // namespace

std::vector<std::pair<std::string, std::string>> straggler_warnings(const Dataset& d) {
  struct Worst {
    double ratio = 0;
    const Record* record = nullptr;
  };
  std::map<std::pair<std::string, std::size_t>, Worst> worst;  // (point, rank)
  for (const Record& r : d.records) {
    const auto& ranks = r.rank_samples_seconds;
    if (ranks.size() < 2 || r.samples_seconds.empty()) continue;
    std::vector<double> medians;
    for (const auto& mine : ranks) medians.push_back(median_of(mine));
    const std::size_t slowest = static_cast<std::size_t>(
        std::max_element(medians.begin(), medians.end()) - medians.begin());
    const double ratio = medians[slowest] / median_of(medians);
    std::size_t slowest_in = 0;
    for (std::size_t s = 0; s < r.samples_seconds.size(); ++s) {
      std::size_t at = 0;
      for (std::size_t p = 1; p < ranks.size(); ++p) {
        if (ranks[p][s] > ranks[at][s]) at = p;
      }
      slowest_in += at == slowest;
    }
    const double share =
        static_cast<double>(slowest_in) / static_cast<double>(r.samples_seconds.size());
    if (ratio < kStragglerRatio || share < kStragglerShare) continue;
    Worst& w = worst[{r.point_id, slowest}];
    if (ratio > w.ratio) w = {ratio, &r};
  }
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, w] : worst) {
    const Record& r = *w.record;
    out.emplace_back(
        key.first,
        fmt::format("rank {} on {} lags: its median sample {:.2f}x the median rank's ({} {} "
                    "{}, round {}; slowest rank in most samples)",
                    key.second, host_of(d, key.first, key.second), w.ratio, r.collective,
                    format_bytes(r.bytes), r.in_place ? "in-place" : "out-of-place", r.round));
  }
  return out;
}

}  // namespace colltune
