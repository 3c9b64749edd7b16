#include "knobs/knob_scope.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

#include "core/ascii_case.hpp"
#include "core/mpi_algorithms.hpp"
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

constexpr std::string_view kAdjustPrefix = "I_MPI_ADJUST_";

// "allreduce" -> its coll/tuned entry, by the exact name MPICH, Intel MPI and Open MPI share.
const TunedCollective* collective_named(std::string_view mpi_name) {
  for (const auto& t : tuned_collectives()) {
    if (t.mca == mpi_name) return &t;
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

// The list of an NCCL_ALGO / NCCL_PROTO value that applies to `collective`, as NCCL's parseList
// applies entries in order: the last "<coll>:<list>" naming it, else a bare first entry (for
// every collective), else nullopt (the value leaves it alone).
std::optional<std::string> list_for(std::string_view value, std::string_view collective) {
  const std::string v = lower(value);
  const std::string want = nccl_name(collective) + ":";
  std::optional<std::string> found;
  std::size_t start = 0;
  while (start <= v.size()) {
    const std::size_t end = std::min(v.find(';', start), v.size());
    const std::string entry = v.substr(start, end - start);
    if (entry.find(':') == std::string::npos) {
      if (start == 0) found = entry;
    } else if (entry.starts_with(want)) {
      found = entry.substr(want.size());
    }
    start = end + 1;
  }
  return found;
}

// NCCL_ALGO / NCCL_PROTO change only the collectives their value reaches.
bool names_collective(std::string_view value, std::string_view collective) {
  return list_for(value, collective).has_value();
}

// NCCL's NVLS kernels per (type, op) (device.h ncclNvlsSupported, in sync with generate.py):
// sum, min and max for 32- and 64-bit integers, half and bfloat16; sum only for float and
// double; nothing for 8-bit types, prod or avg (avg is a premultiplied sum or a sum then
// divide, neither an NVLS kernel). allgather moves data and needs none.
bool nvls_reduces(std::string_view dtype, std::string_view op) {
  static const std::vector<std::string_view> kSumMinMax{"int32",  "uint32", "int64",
                                                        "uint64", "half",   "bfloat16"};
  if (std::find(kSumMinMax.begin(), kSumMinMax.end(), dtype) != kSumMinMax.end())
    return op == "sum" || op == "min" || op == "max";
  return (dtype == "float" || dtype == "double") && op == "sum";
}

// Whether NCCL_PROTO=`proto` leaves `collective` the Simple protocol.
bool allows_simple(std::string_view proto, std::string_view collective) {
  const auto list = list_for(proto, collective);
  if (!list || list->empty()) return true;
  const bool exclude = list->front() == '^';
  const bool named =
      ("," + list->substr(exclude ? 1 : 0) + ",").find(",simple,") != std::string::npos;
  return exclude != named;
}

// Why NCCL cannot run `algorithm` for this (collective, type, op) on `shape`, or empty.
std::string algorithm_missing(std::string_view algorithm, std::string_view collective,
                              std::string_view dtype, std::string_view op, const NcclShape& shape) {
  const bool reduces = collective == "allreduce" || collective == "reduce_scatter";
  const bool nvls = algorithm == "nvls" || algorithm == "nvlstree";
  if (nvls && reduces && !dtype.empty() && !nvls_reduces(dtype, op)) {
    return fmt::format("{} has no {} {} kernel", algorithm, dtype, op);
  }
  // tuning.cc: NVLS and NVLSTree run the Simple protocol only.
  if (nvls && !allows_simple(shape.proto, collective)) {
    return fmt::format("{} runs Simple only, which NCCL_PROTO={} rules out", algorithm,
                       shape.proto);
  }
  if (algorithm == "pat") {
    // enqueue.cc: PAT reduce_scatter cannot scale (no premultiplied sum nor sum then divide).
    if (collective == "reduce_scatter" && op == "avg") return "pat has no avg";
    if (shape.pat_enable == "0") return "pat is off (NCCL_PAT_ENABLE=0)";
    // tuning.cc ncclPatEnable: "PAT only supports 1 GPU per node", unless forced on.
    if (shape.pat_enable != "1" && shape.gpus_per_node > 1)
      return fmt::format("pat needs one GPU per node, and this communicator has {} on a node",
                         shape.gpus_per_node);
  }
  return "";
}

// Algorithms whose availability depends on the system (NVLS hardware, CollNet, nodes): only
// asking NCCL tells.
bool depends_on_system(std::string_view algorithm) {
  return algorithm == "nvls" || algorithm == "nvlstree" || algorithm == "collnetdirect" ||
         algorithm == "collnetchain";
}

}  // namespace

std::optional<std::string> nccl_algo_unusable(std::string_view value, std::string_view collective,
                                              std::string_view dtype, std::string_view op,
                                              const NcclShape& shape) {
  const auto& supported = nccl_algorithms_of(collective);
  const auto list = list_for(value, collective);
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
  std::vector<std::string> missing;
  bool any_left = false, any_certain = false;
  for (const auto& a : supported) {
    if (exclude == is_named(a)) continue;  // ruled out by the value
    const std::string why = algorithm_missing(a, collective, dtype, op, shape);
    if (why.empty()) any_left = true;
    if (why.empty() && !depends_on_system(a)) any_certain = true;
    if (!why.empty()) missing.push_back(why);
  }
  std::string kernels;
  for (const auto& a : supported) kernels += (kernels.empty() ? "" : " ") + a;
  if (!any_left) {
    return fmt::format(
        "NCCL_ALGO={} leaves {} no algorithm NCCL can run (it has {}{}{}), and NCCL fails such a "
        "call",
        value, collective, kernels, missing.empty() ? "" : "; ", fmt::join(missing, "; "));
  }
  if (!shape.can_probe && !any_certain) {
    return fmt::format(
        "NCCL_ALGO={} leaves {} only algorithms whether NCCL can run them here only NCCL knows, "
        "and a non-blocking communicator cannot ask it without running the op (a failure there "
        "ends the communicator); measure it with --nccl-blocking 1",
        value, collective);
  }
  return std::nullopt;
}

std::optional<std::string> nccl_simulate_skip(bool invalid_usage, bool algo_or_proto_set,
                                              std::string_view result,
                                              std::string_view last_warning) {
  // Without a knob set, NCCL's own choice has nothing to run: that is no setting to skip but a
  // broken installation, and anything else (a connect, memory) may have left the communicator
  // half set up.
  if (!invalid_usage || !algo_or_proto_set) return std::nullopt;
  return fmt::format("NCCL cannot run it here (asked with ncclGroupSimulateEnd): {} ({})", result,
                     last_warning);
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
  if (knob.starts_with("MPIR_CVAR_") || knob.starts_with("MPICH_") || knob.starts_with("I_MPI_")) {
    if (nccl) return false;  // as Open MPI's parameters: the NCCL backend times no MPI call
    if (const auto algorithm = mpi_algorithm_knob_collective(knob)) return *algorithm == collective;
    if (knob.starts_with(kAdjustPrefix)) {
      std::string rest = ascii_lower(knob.substr(kAdjustPrefix.size()));
      if (const TunedCollective* t = family_of(rest))  // I_MPI_ADJUST_ALLREDUCE_NODE_KARY_RADIX
        return !t->collective.empty() && t->collective == collective;
    }
    return true;
  }
  if (knob.starts_with("NCCL_")) {
    if (mpi) return false;
    if (knob == "NCCL_ALGO") {
      // NCCL's alltoall and point-to-point are send/recv, which no algorithm choice reaches;
      // so are gather, scatter and alltoallv: only what has an algorithm table is reached.
      if (nccl_algorithms_of(collective).empty()) return false;
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
    if (key == kMpiAxis) return backend == "mpi";
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

std::optional<std::string> mpi_algorithm_knob_collective(std::string_view knob) {
  std::optional<std::string> mpi_name = mpich_algorithm_collective(knob);
  if (!mpi_name && knob.starts_with(kAdjustPrefix)) {
    const std::string_view rest = knob.substr(kAdjustPrefix.size());
    if (!rest.empty() && std::all_of(rest.begin(), rest.end(), [](char ch) {
          return (ch >= 'A' && ch <= 'Z') || ch == '_';
        })) {
      mpi_name = ascii_lower(rest);
    }
  }
  if (!mpi_name) return std::nullopt;
  const TunedCollective* t = collective_named(*mpi_name);
  if (t == nullptr) {
    // I_MPI_ADJUST_ALLREDUCE_NODE and the like are settings of a collective, not its knob.
    if (knob.starts_with(kAdjustPrefix)) return std::nullopt;
    return std::string();
  }
  return std::string(t->collective);
}

std::vector<std::string> moot_tuned_algorithm_warnings(
    const std::map<std::string, std::string>& components, const std::vector<std::string>& knobs,
    const std::vector<std::string>& measured) {
  const auto has = [](const std::vector<std::string>& list, std::string_view item) {
    return std::find(list.begin(), list.end(), item) != list.end();
  };
  const bool rules_file = has(knobs, kRulesFileKnob);
  std::vector<std::string> out;
  for (const TunedCollective& tuned : tuned_collectives()) {
    const std::string knob = fmt::format("OMPI_MCA_coll_tuned_{}_algorithm", tuned.mca);
    const bool forced = has(knobs, knob);
    if (!forced && !(rules_file && !tuned.collective.empty() && has(measured, tuned.collective)))
      continue;
    const auto served = components.find(std::string(tuned.mca));
    if (served == components.end() || served->second == "tuned") continue;
    const std::string& other = served->second;
    out.push_back(fmt::format(
        "{} is served by Open MPI's coll/{} {} (the library's own table, MPI_COMM_WORLD): {} "
        "does not choose what runs{}; allowed: OMPI_MCA_coll=^{}, or OMPI_MCA_coll_tuned_priority "
        "above coll/{}'s",
        tuned.mca, other, kNotTunedMark,
        forced ? knob : fmt::format("the rules file ({})", kRulesFileKnob),
        other == "han" ? " (han runs coll/tuned on its own sub-communicators, where it may apply)"
                       : "",
        other, other));
  }
  return out;
}

}  // namespace colltune
