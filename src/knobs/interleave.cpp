#include "knobs/interleave.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <set>

#include "core/errors.hpp"
#include "core/mpi_algorithms.hpp"
#include "knobs/knobs.hpp"

namespace colltune {
namespace {

constexpr std::string_view kMcaPrefix = "OMPI_MCA_";

// "OMPI_MCA_coll_tuned_x" or "coll_tuned_x" -> "OMPI_MCA_coll_tuned_x"; NCCL_ALGO, NCCL_PROTO as
// they are; nullopt for anything else. Other NCCL_ names get a line saying why not.
std::optional<std::string> env_name(std::string_view text, std::string_view flag) {
  if (is_nccl_in_process_knob(text)) return std::string(text);
  if (text.starts_with("NCCL_")) {
    throw ConfigError(fmt::format(
        "{}: {} is read once per process by NCCL; allowed: NCCL_ALGO NCCL_PROTO (re-read at "
        "every communicator init); sweep {} as an axis, one launch per value",
        flag, text, text));
  }
  if (text.starts_with("I_MPI_ADJUST_")) {
    throw ConfigError(fmt::format(
        "{}: {} is read by Intel MPI at MPI_Init only (an MPI_T write of its "
        "MPIR_CVAR_USE_ form reads back but switches no call, not even on a new communicator: "
        "Intel MPI 2021.13); sweep {} as an axis, one launch per value",
        flag, text, text));
  }
  if (is_mpich_in_process_knob(text)) return std::string(text);
  if (text.starts_with("MPIR_CVAR_")) {
    throw ConfigError(fmt::format(
        "{}: {} is not an MPICH algorithm variable; allowed: MPIR_CVAR_<COLL>_INTRA_ALGORITHM "
        "or _INTER_ALGORITHM (MPICH reads them at every call); sweep others as axes",
        flag, text));
  }
  if (text.starts_with(kMcaPrefix)) text.remove_prefix(kMcaPrefix.size());
  const bool good = !text.empty() && std::all_of(text.begin(), text.end(), [](char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_';
  });
  return good ? std::optional<std::string>(std::string(kMcaPrefix) + std::string(text))
              : std::nullopt;
}

std::string value_or_throw(std::string_view text, std::string_view flag, const std::string& name) {
  if (auto value = canonical_in_process_value(name, text)) {
    // The knob table's domain (coll_tuned_allreduce_algorithm 0-6) before any launch: MPI_T
    // would only refuse it mid-run, as "MPI_T error 63".
    const auto problem = *value == "default" ? std::nullopt : check_knob(name, *value);
    if (!problem) return *value;
    throw ConfigError(fmt::format("{} {}: '{}' is not allowed; {}, or default (the launch value)",
                                  flag, parameter_name(name), text, *problem));
  }
  const std::string allowed =
      is_nccl_in_process_knob(name) || is_mpich_in_process_knob(name)
          ? check_knob(name, text).value_or("allowed: a value the knob's library parses")
          : "allowed: a 32-bit integer";
  throw ConfigError(fmt::format("{} {}: '{}' is not allowed; {}, or default (the launch value)",
                                flag, parameter_name(name), text, allowed));
}

void check_count(std::size_t settings, std::string_view flag) {
  if (settings > kMaxInterleaved) {
    throw ConfigError(
        fmt::format("{}: {} settings; allowed: at most {} in one launch (use a sweep)", flag,
                    settings, kMaxInterleaved));
  }
}

std::vector<InProcessSettings> product_of_axes(const std::vector<std::string>& axes) {
  std::vector<InProcessSettings> product{{}};
  for (const std::string& item : axes) {
    const auto equals = item.find('=');
    const auto name = env_name(std::string_view(item).substr(0, equals), "--interleave");
    if (equals == std::string::npos || !name || equals + 1 == item.size()) {
      throw ConfigError(fmt::format(
          "--interleave: '{}' is not NAME=V1,V2,...; allowed: an Open MPI parameter and its "
          "integer values, such as coll_tuned_allreduce_algorithm=1,2,4, an MPICH algorithm "
          "variable and its names, such as MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=ring,smp, or "
          "NCCL_ALGO / NCCL_PROTO and their values, such as NCCL_ALGO=Ring,Tree",
          item));
    }
    if (product.front().count(*name) != 0) {
      throw ConfigError(fmt::format("--interleave: {} is given twice; allowed: once per name",
                                    parameter_name(*name)));
    }
    std::vector<std::string> values;
    std::string_view rest = std::string_view(item).substr(equals + 1);
    for (bool more = true; more;) {
      const auto comma = rest.find(',');
      const std::string value = value_or_throw(rest.substr(0, comma), "--interleave", *name);
      if (std::find(values.begin(), values.end(), value) != values.end()) {
        throw ConfigError(
            fmt::format("--interleave {}: '{}' is given twice; allowed: each value once",
                        parameter_name(*name), value));
      }
      values.push_back(value);
      more = comma != std::string_view::npos;
      if (more) rest.remove_prefix(comma + 1);
    }
    std::vector<InProcessSettings> next;
    for (const auto& partial : product) {
      for (const std::string& value : values) {
        next.push_back(partial);
        next.back()[*name] = value;
      }
    }
    product = std::move(next);
    check_count(product.size(), "--interleave");
  }
  return product;
}

std::vector<InProcessSettings> explicit_sets(const std::vector<std::string>& sets) {
  std::vector<InProcessSettings> out;
  std::set<std::string> names;
  for (const std::string& item : sets) {
    InProcessSettings setting;
    std::string_view rest(item);
    while (!rest.empty()) {
      const auto space = rest.find(' ');
      const std::string_view word = rest.substr(0, space);
      rest = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
      if (word.empty()) continue;
      const auto equals = word.find('=');
      const auto name = env_name(word.substr(0, equals), "--interleave-set");
      if (equals == std::string_view::npos || !name || setting.count(*name) != 0) {
        throw ConfigError(fmt::format(
            "--interleave-set: '{}' is not NAME=V NAME2=V2 ...; allowed: Open MPI parameters "
            "with an integer, or NCCL_ALGO / NCCL_PROTO with a list; each once, or default",
            item));
      }
      setting[*name] = value_or_throw(word.substr(equals + 1), "--interleave-set", *name);
      names.insert(*name);
    }
    if (setting.empty()) {
      throw ConfigError(fmt::format(
          "--interleave-set: '{}' names no parameter; allowed: NAME=V NAME2=V2 ...", item));
    }
    out.push_back(std::move(setting));
  }
  for (auto& setting : out) {
    for (const std::string& name : names) setting.try_emplace(name, "default");
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (std::find(out.begin(), out.begin() + static_cast<long>(i), out[i]) !=
        out.begin() + static_cast<long>(i)) {
      throw ConfigError(
          fmt::format("--interleave-set: '{}' is given twice; allowed: once each", sets[i]));
    }
  }
  check_count(out.size(), "--interleave-set");
  return out;
}

}  // namespace

std::string_view parameter_name(std::string_view env_name) {
  return env_name.starts_with(kMcaPrefix) ? env_name.substr(kMcaPrefix.size()) : env_name;
}

bool is_nccl_in_process_knob(std::string_view env_name) {
  return env_name == "NCCL_ALGO" || env_name == "NCCL_PROTO";
}

bool is_mpich_in_process_knob(std::string_view env_name) {
  return mpich_algorithm_collective(env_name).has_value();
}

std::optional<std::string> canonical_in_process_value(std::string_view env_name,
                                                      std::string_view text) {
  if (text == "default") return std::string(text);
  if (is_nccl_in_process_knob(env_name)) {
    // An empty list would leave NCCL nothing to choose; NCCL_ALGO= reads as unset anyway.
    if (text.empty() || check_knob(env_name, text)) return std::nullopt;
    return std::string(text);
  }
  if (is_mpich_in_process_knob(env_name)) {
    if (check_knob(env_name, text)) return std::nullopt;  // a name; the MPI says which
    return std::string(text);
  }
  if (!env_name.starts_with(kMcaPrefix)) return std::nullopt;
  long long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < -(1LL << 31) ||
      value >= (1LL << 31)) {
    return std::nullopt;
  }
  return std::to_string(value);
}

std::string interleave_backend(const std::vector<InProcessSettings>& settings) {
  if (settings.empty() || settings.front().empty()) return "";
  return is_nccl_in_process_knob(settings.front().begin()->first) ? "nccl" : "mpi";
}

std::vector<InProcessSettings> parse_interleave(const std::vector<std::string>& axes,
                                                const std::vector<std::string>& sets) {
  if (!axes.empty() && !sets.empty()) {
    throw ConfigError(
        "--interleave-set: given with --interleave; allowed: one of the two (the product of "
        "axes, or explicit settings)");
  }
  std::vector<InProcessSettings> settings;
  if (!sets.empty()) {
    settings = explicit_sets(sets);
  } else if (!axes.empty()) {
    settings = product_of_axes(axes);
  }
  if (!settings.empty()) {
    const auto& names = settings.front();
    const auto nccl = std::count_if(names.begin(), names.end(), [](const auto& knob) {
      return is_nccl_in_process_knob(knob.first);
    });
    const auto mpich = std::count_if(names.begin(), names.end(), [](const auto& knob) {
      return is_mpich_in_process_knob(knob.first);
    });
    const auto total = static_cast<long>(names.size());
    if ((nccl != 0 && nccl != total) || (mpich != 0 && mpich != total)) {
      throw ConfigError(fmt::format(
          "{}: knobs of different libraries together; allowed: one kind per launch (Open MPI "
          "parameters or MPICH algorithm variables with --backend mpi, NCCL_ALGO / NCCL_PROTO "
          "with --backend nccl)",
          sets.empty() ? "--interleave" : "--interleave-set"));
    }
  }
  return settings;
}

}  // namespace colltune
