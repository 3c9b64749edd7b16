#include "core/env_switch.hpp"

#include <fmt/format.h>
#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

namespace colltune {
namespace {

// True when `path` has a line NAME=..., as NCCL's config files are written (# starts a comment).
bool file_sets(const std::string& path, const std::string& name) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    const auto equals = line.find('=', first);
    if (equals == std::string::npos) continue;
    std::string key = line.substr(first, equals - first);
    key.erase(key.find_last_not_of(" \t") + 1);
    if (key == name) return true;
  }
  return false;
}

// As NCCL's first init reads them: NCCL_CONF_FILE, else ~/.nccl.conf; then /etc/nccl.conf. The
// home is the password database's (NCCL's userHomeDir calls getpwuid), not $HOME.
std::vector<std::string> nccl_config_files() {
  std::vector<std::string> files;
  if (const char* file = std::getenv("NCCL_CONF_FILE"); file != nullptr && *file != '\0') {
    files.emplace_back(file);
  } else if (const passwd* user = getpwuid(getuid()); user != nullptr && user->pw_dir != nullptr) {
    files.push_back(std::string(user->pw_dir) + "/.nccl.conf");
  }
  files.emplace_back("/etc/nccl.conf");
  return files;
}

}  // namespace

ScopedEnvironment::ScopedEnvironment(const std::map<std::string, std::string>& values) {
  for (const auto& [name, value] : values) {
    if (value == "default") continue;
    const char* before = std::getenv(name.c_str());
    saved_.emplace_back(name,
                        before == nullptr ? std::nullopt : std::optional<std::string>(before));
    setenv(name.c_str(), value.c_str(), 1);
  }
}

ScopedEnvironment::~ScopedEnvironment() {
  for (const auto& [name, before] : saved_) {
    if (before) {
      setenv(name.c_str(), before->c_str(), 1);
    } else {
      unsetenv(name.c_str());
    }
  }
}

std::optional<std::string> nccl_env_switch_error(const std::map<std::string, std::string>& knobs) {
  if (knobs.empty()) return std::nullopt;
  if (const char* plugin = std::getenv("NCCL_ENV_PLUGIN"); plugin != nullptr && *plugin != '\0') {
    return fmt::format(
        "--interleave: NCCL_ENV_PLUGIN={} may resolve NCCL variables from elsewhere than this "
        "process's environment; allowed: --interleave without an environment plugin, or a sweep "
        "axis (one launch per value)",
        plugin);
  }
  if (const char* policy = std::getenv("NCCL_CTA_POLICY"); policy != nullptr && *policy != '\0') {
    // Its efficiency path asks at every enqueue whether NCCL_ALGO / NCCL_PROTO are set
    // (enqueue.cc ~1950), after colltune has put the launch's environment back.
    return fmt::format(
        "--interleave: NCCL_CTA_POLICY={} makes NCCL read NCCL_ALGO and NCCL_PROTO at every "
        "call, not only at init, so the settings would not stay apart; allowed: --interleave "
        "with NCCL_CTA_POLICY unset, or a sweep axis (one launch per value)",
        policy);
  }
  for (const auto& knob : knobs) {
    const std::string& name = knob.first;
    if (std::getenv(name.c_str()) != nullptr) continue;  // set at launch: files do not override
    for (const std::string& file : nccl_config_files()) {
      if (!file_sets(file, name)) continue;
      return fmt::format(
          "--interleave: {} is set in {}, which NCCL applies at its first init only, so "
          "'default' would differ between settings; allowed: {} exported at launch (then "
          "default is that value)",
          name, file, name);
    }
  }
  return std::nullopt;
}

}  // namespace colltune
