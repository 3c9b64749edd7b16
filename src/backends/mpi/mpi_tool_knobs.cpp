#include "backends/mpi/mpi_tool_knobs.hpp"

#include <dlfcn.h>
#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>

#include "core/ascii_case.hpp"
#include "core/errors.hpp"
#include "knobs/interleave.hpp"
#include "knobs/knob_scope.hpp"
#include "knobs/knobs.hpp"

namespace colltune {
namespace {

void check_tool(int rc, std::string_view call, std::string_view name) {
  if (rc != MPI_SUCCESS)
    throw MpiError(fmt::format("{}({}) failed: MPI_T error {}", call, name, rc));
}

// MPI_T_init_thread and MPI_T_finalize around the writes; handles live only inside. The first
// session's init is never finalized: Open MPI tears its variable system down at the last
// MPI_T_finalize and rebuilds it at the next init (about 0.2 s each, per interleaved setting),
// while nested inits only count.
class ToolSession {
 public:
  ToolSession() {
    int provided = 0;
    static const int kept_open = MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    check_tool(kept_open, "MPI_T_init_thread", "");
    check_tool(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), "MPI_T_init_thread", "");
  }
  ~ToolSession() { MPI_T_finalize(); }
  ToolSession(const ToolSession&) = delete;
  ToolSession& operator=(const ToolSession&) = delete;
};

struct ControlVariable {
  int index = -1;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  int scope = MPI_T_SCOPE_CONSTANT;
};

ControlVariable find_variable(const std::string& name) {
  ControlVariable v;
  const int rc = MPI_T_cvar_get_index(name.c_str(), &v.index);
  if (rc == MPI_T_ERR_INVALID_NAME) {
    throw ConfigError(fmt::format(
        "--interleave: '{}' is not an MPI_T control variable of this MPI; allowed: the knobs "
        "`colltune topo --list-algorithms` lists, or another parameter `ompi_info --param all "
        "all --level 9` lists (Open MPI)",
        name));
  }
  check_tool(rc, "MPI_T_cvar_get_index", name);
  char found[256];
  char description[1024];
  int found_length = sizeof(found), description_length = sizeof(description);
  int verbosity = 0, bind = 0;
  MPI_T_enum enumtype = nullptr;
  check_tool(MPI_T_cvar_get_info(v.index, found, &found_length, &verbosity, &v.type, &enumtype,
                                 description, &description_length, &bind, &v.scope),
             "MPI_T_cvar_get_info", name);
  return v;
}

// A scalar control variable read into `value`, which must be as wide as its type.
template <typename T>
T read_variable(const ControlVariable& v, const std::string& name) {
  MPI_T_cvar_handle handle = nullptr;
  int count = 0;
  check_tool(MPI_T_cvar_handle_alloc(v.index, nullptr, &handle, &count), "MPI_T_cvar_handle_alloc",
             name);
  T value{};
  const int rc = MPI_T_cvar_read(handle, &value);
  MPI_T_cvar_handle_free(&handle);
  check_tool(rc, "MPI_T_cvar_read", name);
  return value;
}

struct VariableText {
  std::string name, description;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_T_enum enumtype = MPI_T_ENUM_NULL;
  int scope = MPI_T_SCOPE_CONSTANT;
};

VariableText variable_text(int index) {
  char name[256];
  std::string description(4096, '\0');
  int name_length = sizeof(name), description_length = static_cast<int>(description.size());
  int verbosity = 0, bind = 0;
  VariableText v;
  check_tool(MPI_T_cvar_get_info(index, name, &name_length, &verbosity, &v.type, &v.enumtype,
                                 description.data(), &description_length, &bind, &v.scope),
             "MPI_T_cvar_get_info", std::to_string(index));
  v.name = name;
  description.resize(description.find('\0') == std::string::npos ? description.size()
                                                                 : description.find('\0'));
  v.description = std::move(description);
  return v;
}

// The names of an MPI_T enum's items when they are numbered 0, 1, ... (Open MPI's); else empty.
std::vector<std::string> enum_names(MPI_T_enum enumtype) {
  int count = 0, length = 0;
  char name[256];
  length = sizeof(name);
  if (MPI_T_enum_get_info(enumtype, &count, name, &length) != MPI_SUCCESS) return {};
  std::vector<std::string> names;
  for (int item = 0; item < count; ++item) {
    int value = -1;
    length = sizeof(name);
    if (MPI_T_enum_get_item(enumtype, item, &value, name, &length) != MPI_SUCCESS ||
        value != item) {
      return {};
    }
    names.emplace_back(name);
  }
  return names;
}

// An MPICH algorithm variable's value names, in the order of the integers MPI_T writes.
std::vector<std::string> value_names(const VariableText& v) {
  if (v.enumtype != MPI_T_ENUM_NULL) return enum_names(v.enumtype);
  return mpich_algorithm_names(v.description);
}

void require_dynamic_rules(const std::string& knob) {
  const std::string name(parameter_name(kDynamicRulesKnob));
  const ControlVariable v = find_variable(name);
  const bool on =
      v.type == MPI_C_BOOL ? read_variable<bool>(v, name) != 0 : read_variable<int>(v, name) != 0;
  if (!on) {
    throw ConfigError(fmt::format(
        "--interleave: {} has no effect unless coll/tuned's dynamic rules are on; allowed: set "
        "{}=1 at launch (MPI_T cannot change it)",
        knob, kDynamicRulesKnob));
  }
}

}  // namespace

void write_mpi_t_knobs(const std::map<std::string, std::string>& knobs) {
  if (knobs.empty()) return;
  const ToolSession session;
  for (const auto& [name, text] : knobs) {
    const ControlVariable v = find_variable(name);
    if (v.scope == MPI_T_SCOPE_CONSTANT || v.scope == MPI_T_SCOPE_READONLY) {
      throw ConfigError(fmt::format(
          "--interleave: {} is read-only through MPI_T; allowed: parameters writable at run "
          "time (set this one at launch, OMPI_MCA_{}={})",
          name, name, text));
    }
    if (v.type != MPI_INT) {
      throw ConfigError(fmt::format(
          "--interleave: {} is not an integer control variable; allowed: integer parameters "
          "such as coll_tuned_allreduce_algorithm",
          name));
    }
    if (needs_dynamic_rules("OMPI_MCA_" + name)) require_dynamic_rules(name);
    // The value at first contact is the launch value, which "default" restores.
    static std::map<std::string, int> launch_values;
    auto launched = launch_values.find(name);
    if (launched == launch_values.end()) {
      launched = launch_values.emplace(name, read_variable<int>(v, name)).first;
    }
    const int value = text == "default" ? launched->second : std::stoi(text);
    MPI_T_cvar_handle handle = nullptr;
    int count = 0;
    check_tool(MPI_T_cvar_handle_alloc(v.index, nullptr, &handle, &count),
               "MPI_T_cvar_handle_alloc", name);
    const int rc = MPI_T_cvar_write(handle, &value);
    MPI_T_cvar_handle_free(&handle);
    check_tool(rc, "MPI_T_cvar_write", name);
    if (const int back = read_variable<int>(v, name); back != value) {
      throw MpiError(
          fmt::format("MPI_T_cvar_write({}) wrote {} but {} reads back", name, value, back));
    }
  }
}

std::vector<AlgorithmKnob> mpi_algorithm_knobs() {
  const ToolSession session;
  int count = 0;
  check_tool(MPI_T_cvar_get_num(&count), "MPI_T_cvar_get_num", "");
  std::vector<AlgorithmKnob> knobs;
  for (int index = 0; index < count; ++index) {
    const VariableText v = variable_text(index);
    const std::string open_mpi = "OMPI_MCA_" + v.name;
    if (v.name.starts_with("coll_tuned_") && v.name.ends_with("_algorithm") &&
        is_known_knob(open_mpi) && v.enumtype != MPI_T_ENUM_NULL) {
      const std::string coll = v.name.substr(11, v.name.size() - 11 - 10);
      knobs.push_back({open_mpi, coll, enum_names(v.enumtype)});
    } else if (const auto coll = mpich_algorithm_collective(v.name)) {
      knobs.push_back({v.name, *coll, value_names(v), 0, -1, true});
    } else if (v.name.starts_with("MPIR_CVAR_USE_")) {
      const auto presets = intel_presets(v.description);
      if (presets && mpi_algorithm_knob_collective(presets->alias)) {
        knobs.push_back({presets->alias,
                         ascii_lower(v.name.substr(14)),
                         {},
                         presets->lowest_id,
                         presets->highest_id});
      }
    }
  }
  std::sort(knobs.begin(), knobs.end(), [](const AlgorithmKnob& a, const AlgorithmKnob& b) {
    return std::tie(a.collective, a.env_name) < std::tie(b.collective, b.env_name);
  });
  return knobs;
}

std::string mpi_library_file() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&MPI_Get_library_version), &info) == 0 ||
      info.dli_fname == nullptr) {
    return "";
  }
  return info.dli_fname;
}

PerCallKnobs::PerCallKnobs(const std::map<std::string, std::string>& knobs) {
  if (knobs.empty()) return;
  const char* device = std::getenv("MPIR_CVAR_DEVICE_COLLECTIVES");
  if (device == nullptr || std::string_view(device) != "none") {
    throw ConfigError(fmt::format(
        "--interleave: {} is not what runs unless MPIR_CVAR_DEVICE_COLLECTIVES=none (now {}): "
        "by default MPICH's ch4 device collectives route calls around the MPIR algorithm (one "
        "node's allreduce goes to POSIX release_gather); allowed: set "
        "MPIR_CVAR_DEVICE_COLLECTIVES=none at launch",
        knobs.begin()->first, device == nullptr ? "unset" : device));
  }
  const ToolSession session;  // the first session stays open, so the indices stay valid
  for (const auto& [name, text] : knobs) {
    const ControlVariable v = find_variable(name);
    const std::vector<std::string> names = value_names(variable_text(v.index));
    if (v.type != MPI_INT || names.empty()) {
      throw ConfigError(fmt::format(
          "--interleave: {} is not an algorithm variable colltune can read the values of in "
          "this MPI; allowed: the knobs colltune topo --list-algorithms lists",
          name));
    }
    static std::map<std::string, int> launch_values;  // "default" writes these back
    auto launched = launch_values.find(name);
    if (launched == launch_values.end()) {
      launched = launch_values.emplace(name, read_variable<int>(v, name)).first;
    }
    int value = launched->second;
    if (text != "default") {
      const auto it = std::find(names.begin(), names.end(), text);
      if (it == names.end()) {
        const AlgorithmKnob offered{name, "", names};
        throw ConfigError(fmt::format("--interleave {}: '{}' is not allowed; {}", name, text,
                                      check_algorithm_value(offered, text).value_or("")));
      }
      value = static_cast<int>(it - names.begin());
    }
    writes_.emplace_back(v.index, value);
  }
}

void PerCallKnobs::put_in_force() {
  static const PerCallKnobs* in_force = nullptr;
  static std::vector<std::pair<int, int>> written;
  if (in_force == this && written == writes_) return;
  const ToolSession session;
  for (const auto& [index, value] : writes_) {
    MPI_T_cvar_handle handle = nullptr;
    int count = 0;
    check_tool(MPI_T_cvar_handle_alloc(index, nullptr, &handle, &count), "MPI_T_cvar_handle_alloc",
               std::to_string(index));
    const int rc = MPI_T_cvar_write(handle, &value);
    MPI_T_cvar_handle_free(&handle);
    check_tool(rc, "MPI_T_cvar_write", std::to_string(index));
  }
  in_force = this;
  written = writes_;
}

}  // namespace colltune
