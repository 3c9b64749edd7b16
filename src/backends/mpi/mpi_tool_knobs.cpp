#include "backends/mpi/mpi_tool_knobs.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <string_view>

#include "core/errors.hpp"
#include "knobs/interleave.hpp"
#include "knobs/knob_scope.hpp"

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
        "--interleave: '{}' is not an MPI_T control variable of this MPI; allowed: an Open MPI "
        "parameter `ompi_info --param all all --level 9` lists, such as "
        "coll_tuned_allreduce_algorithm",
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

}  // namespace colltune
