#pragma once
// Environment variables switched inside one process, for knobs a library re-reads whenever it
// creates a communicator (NCCL_ALGO, NCCL_PROTO at each NCCL init). No NCCL here.

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace colltune {

// Sets each variable (name -> value) for as long as it lives, then restores each to what it was
// before (unset if it was). "default" leaves a variable as the process has it. setenv is not
// thread-safe: the owner keeps other threads from reading the environment meanwhile.
class ScopedEnvironment {
 public:
  explicit ScopedEnvironment(const std::map<std::string, std::string>& values);
  ~ScopedEnvironment();
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

// Why these NCCL knobs cannot be switched through this process's environment, as one line
// naming the knob and what is allowed; nullopt when they can. NCCL reads variables a NCCL
// config file sets (NCCL_CONF_FILE or else ~/.nccl.conf, then /etc/nccl.conf) into the environment
// once, at its first init, so such a knob would mean one thing for "default" before that and
// another after; an environment plugin (NCCL_ENV_PLUGIN) may not read the environment at all.
// Reads the environment and those files; called by every rank before its first NCCL init.
std::optional<std::string> nccl_env_switch_error(const std::map<std::string, std::string>& knobs);

}  // namespace colltune
