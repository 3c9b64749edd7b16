#include "report/panel_labels.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <string_view>
#include <vector>

namespace colltune {
namespace {

// "OMPI_MCA_coll_tuned_allreduce_algorithm=4" -> "allreduce_alg=4": Open MPI's parameter name
// (ompi_info's, without OMPI_MCA_ and coll_tuned_) with its long words cut; other words as they
// are. `keys` collects what each short name stands for.
std::string abbreviate(const std::string& word, std::map<std::string, std::string>& keys) {
  const auto eq = word.find('=');
  if (eq == std::string::npos || word.rfind("OMPI_MCA_", 0) != 0) return word;
  const std::string key = word.substr(0, eq);
  std::string name = key.substr(std::string_view("OMPI_MCA_").size());
  if (name.rfind("coll_tuned_", 0) == 0) name = name.substr(std::string_view("coll_tuned_").size());
  for (const auto& [from, to] :
       {std::pair<std::string_view, std::string_view>{"_algorithm", "_alg"},
        {"_segmentsize", "_seg"}}) {
    if (const auto at = name.find(from); at != std::string::npos) name.replace(at, from.size(), to);
  }
  keys[name] = key;
  return name + word.substr(eq);
}

}  // namespace

std::string label_of(const Dataset& d, const std::string& id) {
  const PointInfo* p = find_point(d, id);
  return p == nullptr ? id : p->label;
}

std::map<std::string, std::string> short_labels(const Panel& panel, const Dataset& d,
                                                std::string& shared, std::string& key_note) {
  std::vector<std::string> ids;
  for (const auto& id : panel.point_ids) ids.push_back(id);
  for (const auto& [id, why] : panel.replicates) ids.push_back(id);
  std::map<std::string, std::vector<std::string>> words;
  for (const auto& id : ids) {
    std::istringstream in(label_of(d, id));
    for (std::string w; in >> w;) words[id].push_back(w);
  }
  std::vector<std::string> common;
  if (ids.size() > 1) {
    for (const auto& w : words[ids.front()]) {
      const bool everywhere = std::all_of(ids.begin(), ids.end(), [&](const std::string& id) {
        return std::find(words[id].begin(), words[id].end(), w) != words[id].end();
      });
      if (everywhere) common.push_back(w);
    }
  }
  std::map<std::string, std::string> out, keys;
  std::set<std::string> seen;
  for (const auto& id : ids) {
    std::string label;
    for (const auto& w : words[id]) {
      if (std::find(common.begin(), common.end(), w) == common.end())
        label += (label.empty() ? "" : " ") + abbreviate(w, keys);
    }
    if (label.empty()) label = "(the shared settings)";
    if (!seen.insert(label).second) return {};  // a collision: keep the full labels
    out[id] = label;
  }
  shared = fmt::format("{}", fmt::join(common, " "));
  for (const auto& [name, key] : keys)
    key_note += fmt::format("{}{} = {}", key_note.empty() ? "" : "; ", name, key);
  return out;
}

}  // namespace colltune
