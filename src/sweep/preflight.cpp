#include "sweep/preflight.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "core/errors.hpp"

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

}  // namespace

void preflight(const SweepSpec& spec, const std::string& source, const std::string& colltune_path,
               const std::string& results_root) {
  const char* launcher = spec.launcher == LauncherKind::kMpirun ? "mpirun"
                         : spec.launcher == LauncherKind::kSrun ? "srun"
                                                                : nullptr;
  if (launcher != nullptr && !on_path(launcher)) {
    throw ConfigError(fmt::format(
        "{}: launcher: '{}' is not on PATH; allowed: a PATH that holds it (every launch would "
        "fail), or launcher: {}",
        source, launcher,
        spec.launcher == LauncherKind::kMpirun ? "srun or local" : "mpirun or local"));
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
