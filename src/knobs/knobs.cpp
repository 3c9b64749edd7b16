#include "knobs/knobs.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <map>
#include <regex>
#include <vector>

#include "core/ascii_case.hpp"
#include "core/mpi_algorithms.hpp"
#include "knobs/knob_scope.hpp"

namespace colltune {
namespace {

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t at = text.find(sep, start);
    parts.push_back(text.substr(start, at == std::string_view::npos ? at : at - start));
    if (at == std::string_view::npos) return parts;
    start = at + 1;
  }
}

std::optional<long long> integer(std::string_view text) {
  long long value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<std::string> int_range(std::string_view value, long long lo, long long hi) {
  const auto v = integer(value);
  if (v && *v >= lo && *v <= hi) return std::nullopt;
  return "allowed: an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
}

// NCCL_ALGO / NCCL_PROTO as NCCL 2.28's parseList (src/graph/tuning.cc) reads them: entries
// separated by ';', each "<collective>:<list>" except the first, which may be a bare list for
// every collective ("ring;allreduce:tree"); a list is names separated by ',', optionally after
// '^' to exclude them; names and collectives in any case.
std::optional<std::string> check_name_list(std::string_view value,
                                           const std::vector<std::string>& names) {
  std::string allowed = "allowed: a comma list of";
  for (const auto& n : names) allowed += " " + n;
  allowed +=
      ", optionally starting with ^ to exclude, or per collective as "
      "allreduce:ring;broadcast:^tree (allreduce broadcast reduce allgather reducescatter), "
      "after a first list for all (ring;allreduce:tree)";
  static const std::array<std::string_view, 5> kColls{"allreduce", "broadcast", "reduce",
                                                      "allgather", "reducescatter"};
  auto list_ok = [&](std::string_view list) {
    if (!list.empty() && list.front() == '^') list.remove_prefix(1);
    if (list.empty()) return false;
    for (std::string_view item : split(list, ',')) {
      const std::string l = ascii_lower(item);
      if (std::none_of(names.begin(), names.end(),
                       [&](const std::string& n) { return ascii_lower(n) == l; })) {
        return false;
      }
    }
    return true;
  };
  bool first = true;
  for (std::string_view entry : split(value, ';')) {
    const auto colon = entry.find(':');
    if (colon == std::string_view::npos) {
      if (!first || !list_ok(entry)) return allowed;  // only the first entry may be bare
      first = false;
      continue;
    }
    first = false;
    const std::string coll = ascii_lower(entry.substr(0, colon));
    if (std::find(kColls.begin(), kColls.end(), coll) == kColls.end()) return allowed;
    if (!list_ok(entry.substr(colon + 1))) return allowed;
  }
  return std::nullopt;
}

std::optional<std::string> one_of(std::string_view value, const std::vector<std::string>& names,
                                  bool case_insensitive = false) {
  const std::string v = case_insensitive ? ascii_lower(value) : std::string(value);
  for (const auto& n : names) {
    if ((case_insensitive ? ascii_lower(n) : n) == v) return std::nullopt;
  }
  std::string allowed = "allowed:";
  for (const auto& n : names) allowed += " " + n;
  return allowed;
}

constexpr std::string_view kTunedPrefix = "OMPI_MCA_coll_tuned_";
constexpr std::string_view kTunedSuffix = "_algorithm";

// The coll/tuned entry whose forced-algorithm parameter `name` is.
const TunedCollective* tuned_collective(std::string_view name) {
  if (!name.starts_with(kTunedPrefix) || !name.ends_with(kTunedSuffix)) return nullptr;
  name.remove_prefix(kTunedPrefix.size());
  name.remove_suffix(kTunedSuffix.size());
  for (const auto& t : tuned_collectives()) {
    if (t.mca == name) return &t;
  }
  return nullptr;
}

const std::vector<std::string> kLevels{"LOC", "NVL", "PIX", "PXB", "PHB", "SYS"};

std::optional<std::string> check_level(std::string_view value) {
  if (!one_of(value, kLevels, true) ||
      (integer(value) && *integer(value) >= 0 && *integer(value) <= 4)) {
    return std::nullopt;
  }
  return "allowed: LOC NVL PIX PXB PHB SYS, or the legacy 0 to 4";
}

const std::map<std::string, std::optional<std::string> (*)(std::string_view), std::less<>>&
knob_checks() {
  using Check = std::optional<std::string> (*)(std::string_view);
  static const std::map<std::string, Check, std::less<>> kChecks{
      {"NCCL_P2P_LEVEL", check_level},
      {"NCCL_NET_GDR_LEVEL", check_level},
      {"NCCL_ALGO",
       [](std::string_view v) {
         return check_name_list(
             v, {"Ring", "Tree", "CollnetDirect", "CollnetChain", "NVLS", "NVLSTree", "PAT"});
       }},
      {"NCCL_PROTO",
       [](std::string_view v) {
         return check_name_list(v, {"LL", "LL128", "Simple"});
       }},
      {"NCCL_MIN_NCHANNELS", [](std::string_view v) { return int_range(v, 1, 64); }},
      {"NCCL_MAX_NCHANNELS", [](std::string_view v) { return int_range(v, 1, 64); }},
      {"NCCL_MIN_CTAS", [](std::string_view v) { return int_range(v, 1, 64); }},
      {"NCCL_MAX_CTAS", [](std::string_view v) { return int_range(v, 1, 64); }},
      {"NCCL_BUFFSIZE", [](std::string_view v) { return int_range(v, 1, 1LL << 40); }},
      {"NCCL_NTHREADS",
       [](std::string_view v) {
         return one_of(v, {"64", "128", "256", "512"});
       }},
      {"NCCL_P2P_DISABLE",
       [](std::string_view v) {
         return one_of(v, {"0", "1"});
       }},
      {"NCCL_SHM_DISABLE",
       [](std::string_view v) {
         return one_of(v, {"0", "1"});
       }},
      {"NCCL_NET_GDR_READ",
       [](std::string_view v) {
         return one_of(v, {"0", "1"});
       }},
      {"NCCL_CUMEM_ENABLE",
       [](std::string_view v) {
         return one_of(v, {"0", "1"});
       }},
      {"NCCL_NVLS_ENABLE",
       [](std::string_view v) {
         return one_of(v, {"0", "1", "2"});
       }},
      {"NCCL_COLLNET_ENABLE",
       [](std::string_view v) {
         return one_of(v, {"0", "1"});
       }},
      {"NCCL_CROSS_NIC",
       [](std::string_view v) {
         return one_of(v, {"0", "1", "2"});
       }},
      {"NCCL_IB_QPS_PER_CONNECTION", [](std::string_view v) { return int_range(v, 1, 128); }},
      {"MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE",
       [](std::string_view v) -> std::optional<std::string> {
         if (!v.empty()) return std::nullopt;
         return "allowed: the path of a selection file (tune --emit mpich-json)";
       }},
      {"MPIR_CVAR_DEVICE_COLLECTIVES",
       [](std::string_view v) {
         return one_of(v, {"all", "none", "percoll"});
       }},
      {"OMPI_MCA_coll_tuned_use_dynamic_rules",
       [](std::string_view v) {
         return one_of(v, {"0", "1"});
       }},
  };
  return kChecks;
}

std::optional<std::string> check_policy(std::string_view value, const std::string& base_pattern,
                                        const std::string& modifier_pattern,
                                        const std::string& allowed) {
  const std::regex re("^(" + base_pattern + ")(:(" + modifier_pattern + "))*$", std::regex::icase);
  if (std::regex_match(std::string(value), re)) return std::nullopt;
  return allowed;
}

const std::string kObjects = "hwthread|core|l1cache|l2cache|l3cache|socket|package|numa|board";

}  // namespace

bool is_known_knob(std::string_view name) {
  return knob_checks().count(name) > 0 || tuned_collective(name) != nullptr ||
         mpi_algorithm_knob_collective(name).has_value();
}

std::optional<std::string> check_knob(std::string_view name, std::string_view value) {
  if (const auto it = knob_checks().find(name); it != knob_checks().end()) return it->second(value);
  if (const TunedCollective* t = tuned_collective(name)) {
    return int_range(value, 0, t->max_algorithm);
  }
  if (mpi_algorithm_knob_collective(name)) {
    // The form only: which names or ids this MPI offers, the MPI itself says (MPI_T), where
    // the launch or the sweep asks it (`colltune topo --list-algorithms`).
    if (name.starts_with("I_MPI_")) {
      const AlgorithmKnob any_id{std::string(name), "", {}, 0, 1 << 30};
      if (!check_algorithm_value(any_id, value)) return std::nullopt;
      return "allowed: a preset id, or id:lo-hi;id:lo-hi (message bytes, optionally @ranks)";
    }
    if (!value.empty() && std::all_of(value.begin(), value.end(), [](char ch) {
          return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_';
        })) {
      return std::nullopt;
    }
    return "allowed: an algorithm name of this MPICH, such as ring (colltune topo "
           "--list-algorithms lists them)";
  }
  return std::nullopt;
}

std::optional<std::string> check_map_by(std::string_view value) {
  return check_policy(value,
                      "slot|node|seq|dist|" + kObjects + "|ppr:[0-9]+:(" + kObjects + "|node)",
                      "PE=[0-9]+|SPAN|OVERSUBSCRIBE|NOOVERSUBSCRIBE|NOLOCAL|DISPLAY",
                      "allowed: slot node seq dist hwthread core l1cache l2cache l3cache socket "
                      "package numa board, or ppr:N:object, with :PE=n :SPAN :OVERSUBSCRIBE "
                      ":NOOVERSUBSCRIBE :NOLOCAL modifiers");
}

std::optional<std::string> check_bind_to(std::string_view value) {
  return check_policy(value, "none|" + kObjects, "overload-allowed|if-supported",
                      "allowed: none hwthread core l1cache l2cache l3cache socket package numa "
                      "board, with :overload-allowed or :if-supported");
}

std::optional<std::string> check_rank_by(std::string_view value) {
  return check_policy(value, "slot|node|" + kObjects, "span|fill",
                      "allowed: slot node hwthread core l1cache l2cache l3cache socket package "
                      "numa board, with :span or :fill");
}

const std::vector<std::string>& placement_axis_keys() {
  static const std::vector<std::string> kKeys{"np",      "nodes",   "ranks_per_node", "map_by",
                                              "bind_to", "rank_by", "launcher_args"};
  return kKeys;
}

bool is_env_key(const std::string& key) {
  if (key.empty() || std::isdigit(static_cast<unsigned char>(key[0]))) return false;
  const bool word = std::all_of(key.begin(), key.end(),
                                [](unsigned char ch) { return std::isalnum(ch) || ch == '_'; });
  return word &&
         std::any_of(key.begin(), key.end(), [](unsigned char ch) { return std::isupper(ch); });
}

const std::vector<RunFlagAxis>& run_flag_axes() {
  static const std::vector<RunFlagAxis> kAxes{{"exchange", "--exchange", "alltoallv"},
                                              {"exchange_seed", "--exchange-seed", "alltoallv"}};
  return kAxes;
}

const RunFlagAxis* run_flag_axis(std::string_view key) {
  for (const RunFlagAxis& axis : run_flag_axes()) {
    if (axis.key == key) return &axis;
  }
  return nullptr;
}

bool is_setting_key(const std::string& key) {
  return is_env_key(key) || run_flag_axis(key) != nullptr || key == kMpiAxis;
}

std::map<std::string, std::string> group_settings(const std::map<std::string, std::string>& s) {
  std::map<std::string, std::string> group;
  for (const auto& [key, value] : s) {
    if (!is_setting_key(key)) group[key] = value;
  }
  return group;
}

}  // namespace colltune
