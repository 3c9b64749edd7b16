#include "report/analysis.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace colltune {
namespace {

bool is_env_setting(const std::string& key) {
  return std::any_of(key.begin(), key.end(), [](unsigned char ch) { return std::isupper(ch); });
}

std::map<std::string, std::string> group_of(const PointInfo& p) {
  std::map<std::string, std::string> group;
  for (const auto& [key, value] : p.settings) {
    if (!is_env_setting(key)) group[key] = value;
  }
  return group;
}

}  // namespace

std::string PanelKey::title() const {
  std::string text = collective + " " + dtype;
  if (op != "none") text += " " + op;
  return fmt::format("{}, {} ranks, {}", text, nranks, in_place ? "in-place" : "out-of-place");
}

const PointInfo* find_point(const Dataset& d, const std::string& id) {
  for (const auto& p : d.points) {
    if (p.id == id) return &p;
  }
  return nullptr;
}

std::optional<std::string> baseline_of(const Dataset& d, const std::string& point_id) {
  const PointInfo* point = find_point(d, point_id);
  if (point == nullptr) return std::nullopt;
  const auto group = group_of(*point);
  for (const auto& p : d.points) {
    if (p.baseline && group_of(p) == group) return p.id;
  }
  // A placement baseline stands for every placement with its backend and rank count.
  const auto same = [&](const PointInfo& p, const char* key) {
    const auto a = p.settings.find(key), b = point->settings.find(key);
    return (a == p.settings.end()) == (b == point->settings.end()) &&
           (a == p.settings.end() || a->second == b->second);
  };
  for (const auto& p : d.points) {
    if (p.baseline && same(p, "backend") && same(p, "np")) return p.id;
  }
  return std::nullopt;
}

std::vector<Panel> build_panels(const Dataset& d) {
  std::map<PanelKey, Panel> panels;
  for (const Record& r : d.records) {
    const PanelKey key{r.collective, r.dtype, r.op, r.in_place, r.nranks};
    Panel& panel = panels[key];
    panel.key = key;
    if (r.skipped) {
      panel.skipped[r.point_id] = *r.skipped;
      continue;
    }
    Cell& cell = panel.cells[r.point_id][r.bytes];
    cell.samples_seconds.insert(cell.samples_seconds.end(), r.samples_seconds.begin(),
                                r.samples_seconds.end());
    if (r.wrong) cell.wrong = cell.wrong.value_or(0) + *r.wrong;
    cell.algbw_bytes = r.algbw_bytes;  // every round measures the same op
    cell.bus_factor = r.bus_factor;
  }
  std::vector<Panel> out;
  for (auto& [key, panel] : panels) {
    for (const auto& p : d.points) {
      if (panel.cells.count(p.id) || panel.skipped.count(p.id)) panel.point_ids.push_back(p.id);
    }
    std::vector<std::uint64_t> sizes;
    for (auto& [point, by_size] : panel.cells) {
      for (auto& [bytes, cell] : by_size) {
        cell.summary = summarize(cell.samples_seconds);
        const double t = cell.summary.median;
        cell.algbw_gbps = t > 0 ? cell.algbw_bytes / t / 1e9 : 0;
        cell.busbw_gbps = cell.algbw_gbps * cell.bus_factor;
        sizes.push_back(bytes);
      }
    }
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    panel.sizes = sizes;
    out.push_back(std::move(panel));
  }
  return out;
}

std::vector<SizeVerdict> winners(const Panel& panel, const Dataset& d) {
  std::vector<SizeVerdict> out;
  for (std::uint64_t bytes : panel.sizes) {
    std::vector<std::pair<double, std::string>> ranked;
    for (const auto& id : panel.point_ids) {
      const auto it = panel.cells.find(id);
      if (it == panel.cells.end() || it->second.count(bytes) == 0) continue;
      ranked.emplace_back(it->second.at(bytes).summary.median, id);
    }
    if (ranked.empty()) continue;
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    SizeVerdict v;
    v.bytes = bytes;
    v.winner = ranked[0].second;
    const Cell& best = panel.cells.at(v.winner).at(bytes);
    for (std::size_t i = 1; i < ranked.size(); ++i) {
      const Cell& other = panel.cells.at(ranked[i].second).at(bytes);
      const double p = mann_whitney_p(best.samples_seconds, other.samples_seconds);
      const bool enough = best.samples_seconds.size() >= kMinSamplesForVerdict &&
                          other.samples_seconds.size() >= kMinSamplesForVerdict;
      if (i == 1) {
        v.runner_up = ranked[i].second;
        v.margin_over_runner_up =
            best.summary.median > 0 ? ranked[i].first / best.summary.median - 1 : 0;
        v.p_value = p;
        v.intervals_overlap = other.summary.ci_low <= best.summary.ci_high;
        v.significant = enough && p < kSignificanceLevel;
      }
      if (!enough || p >= kSignificanceLevel) v.tied.push_back(ranked[i].second);
    }
    v.baseline = baseline_of(d, v.winner);
    if (v.baseline && panel.cells.count(*v.baseline) && panel.cells.at(*v.baseline).count(bytes)) {
      const double base = panel.cells.at(*v.baseline).at(bytes).summary.median;
      if (best.summary.median > 0) v.margin_over_baseline = base / best.summary.median - 1;
    }
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace colltune
