#include "sweep/preflight.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>

#include "core/errors.hpp"
#include "sweep/dialect.hpp"

namespace colltune {
namespace {

namespace fs = std::filesystem;

bool executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// As execvp looks a program up: a name with a slash is a path, anything else is searched on PATH.
bool on_path(const std::string& program) {
  if (program.find('/') != std::string::npos) return executable_file(program);
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
  for (std::size_t start = 0; start <= dirs.size();) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = end > start ? dirs.substr(start, end - start) : ".";
    if (executable_file(dir + "/" + program)) return true;
    start = end + 1;
  }
  return false;
}

// The nearest directory that exists on the way to `dir`, which must be writable to create it.
fs::path existing_ancestor(fs::path dir) {
  dir = fs::absolute(dir);
  std::error_code ec;
  while (!fs::exists(dir, ec) && dir.has_parent_path() && dir != dir.parent_path()) {
    dir = dir.parent_path();
  }
  return dir;
}

bool has_word(const std::vector<std::string>& words, std::string_view word) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

// Open MPI's mpirun refuses to start as root unless both variables are "1" or the command line
// says --allow-run-as-root; every launch would then fail in a few milliseconds.
bool root_consented(const SweepSpec& spec) {
  const auto set = [&](const char* name) {
    const auto in_spec = spec.env.find(name);
    if (in_spec != spec.env.end()) return in_spec->second == "1";
    const char* value = std::getenv(name);
    return value != nullptr && std::string_view(value) == "1";
  };
  if (set("OMPI_ALLOW_RUN_AS_ROOT") && set("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM")) return true;
  if (has_word(spec.launcher_args, "--allow-run-as-root")) return true;
  for (const Axis& axis : spec.axes) {
    if (axis.key != "launcher_args") continue;
    return std::all_of(axis.values.begin(), axis.values.end(), [](const auto& v) {
      return v && v->find("\"--allow-run-as-root\"") != std::string::npos;
    });
  }
  return false;
}

}  // namespace

void preflight(const SweepSpec& spec, const std::string& source, const std::string& colltune_path,
               const std::string& results_root) {
  const std::string launcher = spec.launcher == LauncherKind::kMpirun ? spec.launcher_program
                               : spec.launcher == LauncherKind::kSrun ? "srun"
                                                                      : "";
  if (!launcher.empty() && !on_path(launcher)) {
    throw ConfigError(fmt::format(
        "{}: launcher: '{}' is not on PATH; allowed: a PATH that holds it (every launch would "
        "fail), or launcher: {}",
        source, launcher,
        spec.launcher == LauncherKind::kMpirun ? "srun or local" : "mpirun or local"));
  }
  const bool open_mpi = spec.launcher == LauncherKind::kMpirun &&
                        spec.dialect.value_or(LaunchDialect::kOpenMpi) == LaunchDialect::kOpenMpi;
  // Open MPI's rule alone: MPICH and Intel MPI start as root without being asked.
  if (open_mpi && ::geteuid() == 0 && !root_consented(spec)) {
    throw ConfigError(fmt::format(
        "{}: launcher: {} as root without Open MPI's consent (every launch would fail); "
        "allowed: export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 (or set them "
        "in env:), or --allow-run-as-root in launcher_args",
        source, launcher));
  }
  if (!spec.hostfile.empty() && ::access(spec.hostfile.c_str(), R_OK) != 0) {
    throw ConfigError(
        fmt::format("{}: hostfile: '{}' cannot be read ({}); allowed: a readable file", source,
                    spec.hostfile, std::strerror(errno)));
  }
  if (!executable_file(colltune_path)) {
    throw ConfigError(fmt::format(
        "{}: colltune: '{}' is not an executable file; allowed: the path of a colltune binary "
        "(default: the colltune running the sweep)",
        source, colltune_path));
  }
  if (results_root.empty()) return;
  std::error_code ec;
  if (fs::exists(results_root, ec) && !fs::is_directory(results_root, ec)) {
    throw ConfigError(fmt::format(
        "--results: '{}' is not a directory; allowed: a directory, or a path one can be made at",
        results_root));
  }
  const fs::path ancestor = existing_ancestor(results_root);
  if (!fs::is_directory(ancestor, ec) || ::access(ancestor.c_str(), W_OK | X_OK) != 0) {
    throw ConfigError(fmt::format(
        "--results: '{}' cannot be written ('{}' is not a writable directory); allowed: a "
        "directory this user can write",
        results_root, ancestor.string()));
  }
}

}  // namespace colltune
