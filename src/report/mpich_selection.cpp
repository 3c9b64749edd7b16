#include "report/mpich_selection.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/errors.hpp"
#include "core/mpi_family.hpp"
#include "report/analysis.hpp"
#include "report/tune_parts.hpp"

namespace colltune {
namespace {

using Json = nlohmann::ordered_json;  // MPICH tries sibling keys in file order

// The collectives a file carries: colltune's name, MPICH's, its container prefix, and the
// message size MPICH compares with colltune's bytes (csel.c get_avg_msgsize and
// get_total_msgsize: count x type size for the rooted and reducing ones, that times the
// communicator size for the exchanges, which is what colltune's bytes count there).
struct SelectionCollective {
  std::string_view colltune, mpi, container, size_key;
};
constexpr std::array<SelectionCollective, 6> kCollectives{{
    {"allreduce", "allreduce", "MPIR_Allreduce", "avg_msg_size"},
    {"broadcast", "bcast", "MPIR_Bcast", "avg_msg_size"},
    {"reduce", "reduce", "MPIR_Reduce", "avg_msg_size"},
    {"alltoall", "alltoall", "MPIR_Alltoall", "total_msg_size"},
    {"allgather", "allgather", "MPIR_Allgather", "total_msg_size"},
    {"reduce_scatter", "reduce_scatter_block", "MPIR_Reduce_scatter_block", "total_msg_size"},
}};

// An algorithm's restrictions as MPICH's src/mpi/coll/coll_algorithms.txt states them (4.0.2 and
// 5.0.0). A forced CVAR checks them and falls back; a selection file is not checked, so each
// becomes a condition in the file, MPICH's own choice where it fails. Algorithms with extra
// parameters (k, tree_type...) take them from the file, which colltune does not write: none.
enum Restriction : unsigned {
  kCommutative = 1,
  kBuiltinOp = 2,
  kParentComm = 4,
  kCountAtLeastPof2 = 8,
  kPowerOfTwoRanks = 16,
  kNotInPlace = 32,
  kParameters = 64,
};
struct AlgorithmFacts {
  std::string_view mpi_collective, name;
  unsigned restrictions;
};
constexpr std::array<AlgorithmFacts, 29> kAlgorithms{{
    {"allreduce", "nb", 0},
    {"allreduce", "smp", kCommutative | kParentComm},
    {"allreduce", "recursive_doubling", 0},
    {"allreduce", "recursive_multiplying", kCommutative | kParameters},
    {"allreduce", "reduce_scatter_allgather", kCountAtLeastPof2 | kBuiltinOp},
    {"allreduce", "tree", kParameters},
    {"allreduce", "recexch", kParameters},
    {"allreduce", "ring", kCommutative},
    {"allreduce", "k_reduce_scatter_allgather", kCommutative | kParameters},
    {"bcast", "nb", 0},
    {"bcast", "binomial", 0},
    {"bcast", "scatter_recursive_doubling_allgather", 0},
    {"bcast", "scatter_ring_allgather", 0},
    {"bcast", "smp", kParentComm},
    {"reduce", "nb", 0},
    {"reduce", "binomial", 0},
    {"reduce", "smp", kCommutative | kParentComm},
    {"reduce", "reduce_scatter_gather", kCountAtLeastPof2 | kBuiltinOp},
    {"alltoall", "nb", 0},
    {"alltoall", "brucks", kNotInPlace},
    {"alltoall", "pairwise", kNotInPlace},
    {"alltoall", "scattered", kNotInPlace},
    {"allgather", "nb", 0},
    {"allgather", "brucks", 0},
    {"allgather", "recursive_doubling", kPowerOfTwoRanks},
    {"allgather", "ring", 0},
    {"reduce_scatter_block", "nb", 0},
    {"reduce_scatter_block", "recursive_doubling", 0},
    {"reduce_scatter_block", "pairwise", kCommutative},
}};

// What a verify launch is, as MPICH's selection conditions (csel.c) test it: colltune's
// reductions are MPI_SUM (built in, commutative), never in place under verify.
struct LaunchFacts {
  std::string_view collective;  // MPICH's name
  int comm_size = 0;
  std::uint64_t bytes = 0;  // what the collective's size key compares (kCollectives)
};

enum class Tri { kNo, kYes, kUnknown };

Tri holds(const std::string& key, const LaunchFacts& l) {
  const auto number = [&](std::size_t at) { return std::stoull(key.substr(at)); };
  const auto yes = [](bool b) { return b ? Tri::kYes : Tri::kNo; };
  const bool reduction = l.collective == "allreduce" || l.collective == "reduce" ||
                         l.collective == "reduce_scatter_block";
  // A container ends the level where MPICH meets it; "=any" always holds.
  if (key.starts_with("algorithm=") || key.starts_with("composition=") || key == "any" ||
      key.ends_with("=any"))
    return Tri::kYes;
  if (key.starts_with("collective=")) return yes(key.substr(11) == l.collective);
  if (key == "comm_type=intra") return Tri::kYes;
  if (key == "comm_type=inter") return Tri::kNo;
  if (key.starts_with("comm_size<=")) return yes(l.comm_size <= static_cast<int>(number(11)));
  if (key.starts_with("comm_size<")) return yes(l.comm_size < static_cast<int>(number(10)));
  if (key == "comm_size=pow2") return yes((l.comm_size & (l.comm_size - 1)) == 0);
  for (const char* size : {"avg_msg_size", "total_msg_size"}) {
    const std::string le = std::string(size) + "<=", lt = std::string(size) + "<";
    if (key.starts_with(le)) return yes(l.bytes <= number(le.size()));
    if (key.starts_with(lt)) return yes(l.bytes < number(lt.size()));
  }
  if (reduction && (key == "is_commutative=yes" || key == "is_op_built_in=yes")) return Tri::kYes;
  if (reduction && (key == "is_commutative=no" || key == "is_op_built_in=no")) return Tri::kNo;
  if (key == "is_sendbuf_inplace=no") return Tri::kYes;
  if (key == "is_sendbuf_inplace=yes") return Tri::kNo;
  return Tri::kUnknown;  // the node layout, the count against a power of two...: not known here
}

// MPICH tries a level's keys in file order and follows the first that holds: the key before
// `key` that surely holds for `l`, or "" (none, or one it cannot tell).
std::string taken_before(const Json& level, const std::string& key, const LaunchFacts& l) {
  for (const auto& [earlier, value] : level.items()) {
    if (earlier == key) return "";
    const Tri t = holds(earlier, l);
    if (t == Tri::kYes) return earlier;
    if (t == Tri::kUnknown) return "";
  }
  return "";
}

const AlgorithmFacts* facts_of(std::string_view mpi_collective, std::string_view name) {
  for (const AlgorithmFacts& f : kAlgorithms) {
    if (f.mpi_collective == mpi_collective && f.name == name) return &f;
  }
  return nullptr;
}

// The container MPICH's parser knows for a CVAR value: nb is every communicator kind's.
std::string container_of(const SelectionCollective& c, std::string_view name) {
  return name == "nb" ? fmt::format("{}_allcomm_nb", c.container)
                      : fmt::format("{}_intra_{}", c.container, name);
}

// The forced algorithm, inside the conditions its restrictions need; `mpich` where one fails.
Json guarded_leaf(const std::string& container, unsigned restrictions, const Json& mpich) {
  Json node = Json::object();
  node["algorithm=" + container] = Json::object();
  const auto either = [&](const char* holds, const char* fails, bool leaf_first) {
    Json wrapped = Json::object();
    if (leaf_first) {
      wrapped[holds] = node;
      wrapped[fails] = mpich;
    } else {
      wrapped[fails] = mpich;
      wrapped[holds] = node;
    }
    node = std::move(wrapped);
  };
  if (restrictions & kCountAtLeastPof2) either("count=any", "count<pow2", false);
  if (restrictions & kPowerOfTwoRanks) either("comm_size=pow2", "comm_size=any", true);
  if (restrictions & kNotInPlace) either("is_sendbuf_inplace=no", "is_sendbuf_inplace=yes", true);
  if (restrictions & kParentComm) either("comm_hierarchy=parent", "comm_hierarchy=any", true);
  if (restrictions & kBuiltinOp) either("is_op_built_in=yes", "is_op_built_in=no", true);
  if (restrictions & kCommutative) either("is_commutative=yes", "is_commutative=no", true);
  return node;
}

// One collective's rules for `nranks` ranks: ranges of measured sizes, each the forced leaf or
// MPICH's own subtree, and MPICH's own below the smallest and above the largest size measured.
Json size_rules(const SelectionCollective& c,
                const std::vector<std::pair<std::uint64_t, Json>>& by_size, const Json& mpich) {
  Json rules = Json::object();
  const std::string key(c.size_key);
  rules[fmt::format("{}<{}", key, by_size.front().first)] = mpich;
  for (std::size_t i = 0; i < by_size.size(); ++i) {
    const bool last = i + 1 == by_size.size();
    if (!last && by_size[i + 1].second == by_size[i].second) continue;  // one range
    const std::string bound = last ? fmt::format("{}<={}", key, by_size[i].first)
                                   : fmt::format("{}<{}", key, by_size[i + 1].first);
    rules[bound] = by_size[i].second;
  }
  rules[key + "=any"] = mpich;
  return rules;
}

// The algorithm name a point forces for this collective, or "" (the baseline).
std::string forced(const Dataset& d, const std::string& point, const std::string& knob) {
  return tune_parts::setting(d, point, knob).value_or("");
}

void check_store_mpi(const Dataset& d, const MpichLibrary& lib) {
  for (const auto& [point, context] : d.contexts) {
    const auto versions = context.value("library_versions", nlohmann::json::object());
    if (!versions.contains("mpi") || !versions["mpi"].is_string()) continue;
    const std::string text = versions["mpi"].get<std::string>();
    const auto identity = identify_mpi_library(text);
    if (!identity || dialect_of_family(identity->family) != LaunchDialect::kHydra ||
        identity->version != lib.version) {
      throw ConfigError(fmt::format(
          "{}: measured with {}, but this colltune is built against MPICH {} ({}), whose built-in "
          "selection the file extends; allowed: tune with the colltune built against the MPICH "
          "the store measured",
          d.source, identity ? identity->text() : text.substr(0, 80), lib.version, lib.path));
    }
  }
}

}  // namespace

bool MpichLibrary::knows(std::string_view algorithm) const {
  return bytes.find(fmt::format("{}{}{}", '\0', algorithm, '\0')) != std::string::npos;
}

MpichLibrary read_mpich_library(const std::string& path, const std::string& version) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream all;
  all << in.rdbuf();
  MpichLibrary lib{path, version, "", all.str()};
  // Three selection tables are compiled in (CH4, POSIX and MPIR); only the MPIR one names MPIR_
  // algorithms (CH4's name MPIDI_ compositions, POSIX's MPIDI_POSIX_ algorithms).
  for (std::size_t at = lib.bytes.find("{\"collective="); at != std::string::npos;
       at = lib.bytes.find("{\"collective=", at + 1)) {
    const std::size_t end = lib.bytes.find('\0', at);
    const std::string_view text(lib.bytes.data() + at, end - at);
    if (text.find("algorithm=MPIR_") != std::string_view::npos) {
      lib.builtin_selection = std::string(text);
      break;
    }
  }
  if (lib.builtin_selection.empty() || !lib.knows("MPIR_Allreduce_intra_recursive_doubling")) {
    throw ConfigError(fmt::format(
        "--emit mpich-json: {} holds no MPICH built-in collective selection; allowed: the "
        "colltune built against an MPICH 4 or later (ch4)",
        path));
  }
  return lib;
}

std::string emit_mpich_selection(const Dataset& d, const MpichLibrary& lib,
                                 std::vector<std::string>& notes) {
  check_store_mpi(d, lib);
  Json doc = Json::parse(lib.builtin_selection);
  int rules = 0;
  std::map<std::string, std::map<int, Json>> chosen;  // mpi collective -> ranks -> size rules
  for (const Panel& panel : build_panels(d)) {
    const auto c = std::find_if(kCollectives.begin(), kCollectives.end(),
                                [&](const auto& s) { return s.colltune == panel.key.collective; });
    if (c == kCollectives.end() || panel.key.in_place) continue;
    std::string upper(c->mpi);
    std::transform(upper.begin(), upper.end(), upper.begin(), ::toupper);
    const std::string knob = fmt::format("MPIR_CVAR_{}_INTRA_ALGORITHM", upper);
    const auto candidates = tune_parts::forcing_candidates(d, panel, knob);
    const std::string collective_key = fmt::format("collective={}", c->mpi);
    if (!candidates || !doc.contains(collective_key) ||
        !doc[collective_key].contains("comm_type=intra") ||
        chosen[std::string(c->mpi)].count(panel.key.nranks)) {
      continue;
    }
    const Json& mpich = doc[collective_key]["comm_type=intra"];
    std::vector<std::pair<std::uint64_t, Json>> by_size;
    bool any = false;
    for (const SizeVerdict& v : winners(*candidates, d)) {
      const std::string name =
          v.significant && !v.baseline_fastest ? forced(d, v.fastest, knob) : "";
      const AlgorithmFacts* facts = name.empty() ? nullptr : facts_of(c->mpi, name);
      const std::string container = container_of(*c, name);
      if (!name.empty() &&
          (!facts || (facts->restrictions & kParameters) || !lib.knows(container))) {
        notes.push_back(fmt::format(
            "not written: {} at {} B on {} ranks won with {}, which {}; MPICH decides there",
            c->colltune, v.bytes, panel.key.nranks, name,
            !lib.knows(container) ? "this MPICH's selection parser does not know"
            : facts && (facts->restrictions & kParameters)
                ? "takes parameters (k, tree type) the file would have to carry"
                : "colltune has no restriction facts for"));
        by_size.emplace_back(v.bytes, mpich);
        continue;
      }
      any = any || facts != nullptr;
      by_size.emplace_back(v.bytes,
                           facts ? guarded_leaf(container, facts->restrictions, mpich) : mpich);
    }
    if (!any || by_size.empty()) continue;
    chosen[std::string(c->mpi)][panel.key.nranks] = size_rules(*c, by_size, mpich);
    ++rules;
  }
  if (rules == 0) {
    throw ConfigError(fmt::format(
        "{}: no point sets MPIR_CVAR_<COLL>_INTRA_ALGORITHM to a value that beat MPICH's own "
        "choice significantly for an out-of-place allreduce, broadcast, reduce, alltoall, "
        "allgather or reduce_scatter; allowed: a sweep over those knobs (nothing to write)",
        d.source));
  }
  // Each communicator size measured: MPICH's own below it, the measured rules at it.
  for (auto& [mpi, by_ranks] : chosen) {
    Json& intra = doc[fmt::format("collective={}", mpi)]["comm_type=intra"];
    const Json mpich = intra;
    Json sized = Json::object();
    for (auto& [nranks, size_rules_json] : by_ranks) {
      sized[fmt::format("comm_size<{}", nranks)] = mpich;
      sized[fmt::format("comm_size<={}", nranks)] = std::move(size_rules_json);
    }
    sized["comm_size=any"] = mpich;
    intra = std::move(sized);
  }
  return doc.dump(2) + "\n";
}

std::vector<VerifiedRow> mpich_selection_rows(const std::string& path, const std::string& text,
                                              std::vector<std::string>& unreachable) {
  Json doc;
  try {
    doc = Json::parse(text);
  } catch (const Json::exception& e) {
    throw ConfigError(
        fmt::format("{}: not JSON ({}); allowed: tune --emit mpich-json's output", path, e.what()));
  }
  std::vector<VerifiedRow> rows;
  for (const SelectionCollective& c : kCollectives) {
    const std::string key = fmt::format("collective={}", c.mpi);
    if (!doc.contains(key) || !doc[key].contains("comm_type=intra")) continue;
    const Json& intra = doc[key]["comm_type=intra"];
    if (!intra.contains("comm_size=any")) continue;  // MPICH's own shape: nothing of colltune's
    const Json& mpich = intra["comm_size=any"];
    for (const auto& [bound, rules] : intra.items()) {
      if (!bound.starts_with("comm_size<=") || !rules.is_object()) continue;
      const int nranks = std::stoi(bound.substr(11));
      std::uint64_t from = 0;
      for (const auto& [size_key, choice] : rules.items()) {
        const bool inclusive = size_key.find("<=") != std::string::npos;
        const std::size_t cut = size_key.find('<');
        const std::uint64_t limit = cut == std::string::npos
                                        ? UINT64_MAX
                                        : std::stoull(size_key.substr(cut + (inclusive ? 2 : 1)));
        if (choice != mpich) {
          VerifiedRow row{std::string(c.colltune), nranks, from,
                          inclusive || limit == UINT64_MAX ? limit : limit - 1, ""};
          std::string names;
          const auto find_leaf = [&](const auto& self, const Json& node) -> void {
            for (const auto& [k, v] : node.items()) {
              if (k.starts_with("algorithm="))
                names += (names.empty() ? "" : " ") + k.substr(10);
              else if (v.is_object() && v != mpich)
                self(self, v);
            }
          };
          find_leaf(find_leaf, choice);
          row.what = fmt::format("{}: {} for {}-{} B on {} ranks", path, names, row.min_bytes,
                                 row.max_bytes, nranks);
          // Each level on the way to the rule, as MPICH walks it for a launch the rule is for.
          const LaunchFacts launch{c.mpi, nranks, row.min_bytes};
          std::string first;
          for (const auto& [level, taken] : {std::pair<const Json*, std::string>{&doc, key},
                                             {&doc[key], "comm_type=intra"},
                                             {&intra, bound},
                                             {&rules, size_key}}) {
            if (first.empty()) first = taken_before(*level, taken, launch);
          }
          if (!first.empty()) {
            unreachable.push_back(fmt::format(
                "{}: MPICH never reaches it: '{}' comes before it in the file and holds there",
                row.what, first));
          }
          rows.push_back(std::move(row));
        }
        from = inclusive ? limit + 1 : limit;
      }
    }
  }
  return rows;
}

}  // namespace colltune
