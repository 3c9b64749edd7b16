#include "knobs/knob_scope.hpp"

#include <algorithm>
#include <cctype>

#include "knobs/knobs.hpp"

namespace colltune {
namespace {

constexpr std::string_view kTunedPrefix = "OMPI_MCA_coll_tuned_";

// The families longest first, so that "reduce_scatter_block_..." is not read as "reduce_...".
std::vector<const TunedCollective*> longest_first() {
  std::vector<const TunedCollective*> v;
  for (const auto& t : tuned_collectives()) v.push_back(&t);
  std::sort(v.begin(), v.end(), [](auto* a, auto* b) { return a->mca.size() > b->mca.size(); });
  return v;
}

// The tuned collective whose per-collective parameter `rest` (after OMPI_MCA_coll_tuned_) is.
const TunedCollective* family_of(std::string_view rest) {
  static const auto kFamilies = longest_first();
  for (const TunedCollective* t : kFamilies) {
    if (rest.starts_with(t->mca) && rest.size() > t->mca.size() && rest[t->mca.size()] == '_')
      return t;
  }
  return nullptr;
}

bool is_point_to_point_name(std::string_view c) {
  return c == "sendrecv" || c == "pingpong" || c == "bw" || c == "bibw";
}

std::string nccl_name(std::string_view collective) {
  return collective == "reduce_scatter" ? "reducescatter" : std::string(collective);
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return out;
}

// NCCL_ALGO / NCCL_PROTO in the per-collective form ("allreduce:tree;broadcast:ring") change
// only the collectives they name.
bool names_collective(std::string_view value, std::string_view collective) {
  if (value.find(':') == std::string_view::npos) return true;
  const std::string want = nccl_name(collective) + ":";
  const std::string v = lower(value);
  std::size_t at = 0;
  while ((at = v.find(want, at)) != std::string::npos) {
    if (at == 0 || v[at - 1] == ';') return true;
    ++at;
  }
  return false;
}

// NCCL's kernels per collective (src/device/generate.py, algos_of_coll), lower case.
const std::vector<std::string>& nccl_algorithms_of(std::string_view collective) {
  static const std::vector<std::string> kRing{"ring"};
  static const std::vector<std::string> kGather{"ring", "collnetdirect", "nvls", "pat"};
  static const std::vector<std::string> kAllreduce{"tree",         "ring", "collnetdirect",
                                                   "collnetchain", "nvls", "nvlstree"};
  static const std::vector<std::string> kNone;
  if (collective == "allreduce") return kAllreduce;
  if (collective == "allgather" || collective == "reduce_scatter") return kGather;
  if (collective == "broadcast" || collective == "reduce") return kRing;
  return kNone;
}

// The part of an NCCL_ALGO value that applies to `collective`: the whole value, the entry
// "<coll>:<list>" of the per-collective form, or nullopt when that form does not name it.
std::optional<std::string> algo_list_for(std::string_view value, std::string_view collective) {
  const std::string v = lower(value);
  if (v.find(':') == std::string::npos) return v;
  const std::string want = nccl_name(collective) + ":";
  std::size_t start = 0;
  while (start <= v.size()) {
    const std::size_t end = std::min(v.find(';', start), v.size());
    const std::string entry = v.substr(start, end - start);
    if (entry.starts_with(want)) return entry.substr(want.size());
    start = end + 1;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> nccl_algo_unusable(std::string_view value, std::string_view collective) {
  const auto& supported = nccl_algorithms_of(collective);
  const auto list = algo_list_for(value, collective);
  if (supported.empty() || !list || list->empty()) return std::nullopt;
  const bool exclude = list->front() == '^';
  std::vector<std::string> named;
  std::string item;
  for (char ch : list->substr(exclude ? 1 : 0) + ",") {
    if (ch != ',') {
      item += ch;
    } else if (!item.empty()) {
      named.push_back(item);
      item.clear();
    }
  }
  const auto is_named = [&](const std::string& a) {
    return std::find(named.begin(), named.end(), a) != named.end();
  };
  const bool any_left = std::any_of(supported.begin(), supported.end(), [&](const auto& a) {
    return exclude ? !is_named(a) : is_named(a);
  });
  if (any_left) return std::nullopt;
  std::string kernels;
  for (const auto& a : supported) kernels += (kernels.empty() ? "" : " ") + a;
  return "NCCL_ALGO=" + std::string(value) + " leaves " + std::string(collective) +
         " no algorithm NCCL has (it has " + kernels + "), and NCCL fails such a call";
}

bool knob_affects(std::string_view knob, std::string_view value, std::string_view collective,
                  std::string_view backend) {
  const bool mpi = backend == "mpi", nccl = backend == "nccl";
  if (knob.starts_with("OMPI_")) {
    if (nccl) return false;  // MPI only bootstraps NCCL and reduces the timings, untimed
    if (knob.starts_with(kTunedPrefix)) {
      if (const TunedCollective* t = family_of(knob.substr(kTunedPrefix.size())))
        return !t->collective.empty() && t->collective == collective;
      return !is_point_to_point_name(collective);  // use_dynamic_rules, priority, rules file
    }
    if (knob.starts_with("OMPI_MCA_coll_")) return !is_point_to_point_name(collective);
    return true;  // btl, pml, mpool...: every transfer
  }
  if (knob.starts_with("NCCL_")) {
    if (mpi) return false;
    if (knob == "NCCL_ALGO") {
      // NCCL's alltoall and point-to-point are send/recv, which no algorithm choice reaches.
      if (collective == "alltoall" || is_point_to_point_name(collective)) return false;
      return names_collective(value, collective);
    }
    if (knob == "NCCL_PROTO") return names_collective(value, collective);
    return true;
  }
  return true;
}

bool settings_affect(const std::map<std::string, std::string>& settings,
                     const std::map<std::string, std::string>& baseline,
                     std::string_view collective, std::string_view backend) {
  auto changes = [&](const std::string& key, const std::string& value) {
    if (const RunFlagAxis* axis = run_flag_axis(key)) return axis->collective == collective;
    return is_env_key(key) && knob_affects(key, value, collective, backend);
  };
  for (const auto& [key, value] : settings) {
    const auto it = baseline.find(key);
    if ((it == baseline.end() || it->second != value) && changes(key, value)) return true;
  }
  // A knob the baseline sets and this point leaves unset is a difference too.
  for (const auto& [key, value] : baseline) {
    if (settings.count(key) == 0 && changes(key, value)) return true;
  }
  return false;
}

const std::vector<TunedCollective>& tuned_collectives() {
  // colltune's reduce_scatter is MPI_Reduce_scatter_block: coll/tuned decides it with the
  // reduce_scatter_block parameters and rules id 13 (REDUCESCATTERBLOCK), not reduce_scatter's 12
  // (coll_tuned_decision_dynamic.c). gather, scatter, alltoallv and barrier get no rules file:
  // tuned sizes their rules in ways colltune's size axis does not match (gather: dtsize x n).
  static const std::vector<TunedCollective> kTuned{
      {"allgather", 6, "allgather", 0},
      {"allgatherv", 5, "", -1},
      {"allreduce", 6, "allreduce", 2},
      {"alltoall", 5, "alltoall", 3},
      {"alltoallv", 2, "alltoallv", -1},
      {"barrier", 6, "barrier", -1},
      {"bcast", 9, "broadcast", 7},
      {"reduce", 7, "reduce", 11},
      {"reduce_scatter", 4, "", -1},
      {"reduce_scatter_block", 4, "reduce_scatter", 13},
      {"gather", 3, "gather", -1},
      {"scatter", 3, "scatter", -1},
      {"exscan", 2, "", -1},
      {"scan", 2, "", -1}};
  return kTuned;
}

bool needs_dynamic_rules(std::string_view knob) {
  if (!knob.starts_with(kTunedPrefix) || knob == kDynamicRulesKnob) return false;
  const std::string_view rest = knob.substr(kTunedPrefix.size());
  return rest == "dynamic_rules_filename" || family_of(rest) != nullptr;
}

std::optional<std::string> tuned_algorithm_knob(std::string_view collective) {
  for (const auto& t : tuned_collectives()) {
    if (!t.collective.empty() && t.collective == collective)
      return "OMPI_MCA_coll_tuned_" + std::string(t.mca) + "_algorithm";
  }
  return std::nullopt;
}

}  // namespace colltune
