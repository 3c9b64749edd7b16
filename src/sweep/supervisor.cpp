#include "sweep/supervisor.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

extern char** environ;

namespace colltune {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::map<pid_t, pid_t> parent_map() {
  std::map<pid_t, pid_t> parents;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
    const auto close = text.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    int ppid = 0;
    if (std::sscanf(text.c_str() + close + 1, " %c %d", &state, &ppid) == 2) {
      parents[static_cast<pid_t>(std::stoi(name))] = ppid;
    }
  }
  return parents;
}

std::set<pid_t> descendants(pid_t root) {
  const auto parents = parent_map();
  std::set<pid_t> found;
  std::deque<pid_t> queue{root};
  while (!queue.empty()) {
    const pid_t p = queue.front();
    queue.pop_front();
    for (const auto& [child, parent] : parents) {
      if (parent == p && found.insert(child).second) queue.push_back(child);
    }
  }
  return found;
}

// Reaps every exited child; returns true (and its status) when `pid` was among them.
bool reap(pid_t pid, int& status) {
  bool done = false;
  int st = 0;
  pid_t r = 0;
  while ((r = waitpid(-1, &st, WNOHANG)) > 0) {
    if (r == pid) {
      status = st;
      done = true;
    }
  }
  return done;
}

std::vector<std::string> environment_with(const std::map<std::string, std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string entry(*e);
    const std::string key = entry.substr(0, entry.find('='));
    if (extra.count(key) == 0) env.push_back(entry);
  }
  for (const auto& [key, value] : extra) env.push_back(key + "=" + value);
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

std::string_view name(LaunchStatus status) {
  switch (status) {
    case LaunchStatus::kDone:
      return "done";
    case LaunchStatus::kFailed:
      return "failed";
    case LaunchStatus::kTimeout:
      return "timeout";
    case LaunchStatus::kInterrupted:
      return "interrupted";
  }
  return "?";
}

void become_subreaper() { prctl(PR_SET_CHILD_SUBREAPER, 1); }

long long process_start_ticks(pid_t pid) {
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(stat.substr(close + 1));
  std::string field;
  for (int n = 3; fields >> field; ++n) {
    if (n == 22) return std::atoll(field.c_str());
  }
  return 0;
}

std::string process_command_line(pid_t pid) {
  std::ifstream in(fmt::format("/proc/{}/cmdline", pid));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (char& ch : text) {
    if (ch == '\0') ch = ' ';
  }
  return text;
}

void kill_process_tree(pid_t pid) {
  std::set<pid_t> tree = descendants(pid);
  tree.insert(pid);
  for (int sig : {SIGCONT, SIGTERM}) {
    kill(-pid, sig);
    for (pid_t p : tree) kill(p, sig);
  }
  int status = 0;
  const auto start = Clock::now();
  while (seconds_since(start) < 2.0 && kill(pid, 0) == 0 && !reap(pid, status)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  // Whatever is left, including ranks orphaned when their launcher went first.
  const std::set<pid_t> late = descendants(pid);
  tree.insert(late.begin(), late.end());
  const std::set<pid_t> orphans = descendants(getpid());
  kill(-pid, SIGKILL);
  for (pid_t p : tree) kill(p, SIGKILL);
  for (pid_t p : orphans) {
    if (tree.count(p) == 0 && getpgid(p) == pid) kill(p, SIGKILL);
  }
}

LaunchOutcome run_supervised(const Launch& launch, const std::string& log_path,
                             const SuperviseOptions& options) {
  LaunchOutcome outcome;
  const auto start = Clock::now();

  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, log_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&files, STDOUT_FILENO, STDERR_FILENO);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // Its own process group: the terminal's Ctrl-C reaches only the driver, which then stops the
  // launch as a whole; and the group can be killed at once.
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int sig : {SIGINT, SIGTERM, SIGPIPE, SIGHUP}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<std::string> argv = launch.argv;
  std::vector<std::string> env = environment_with(launch.env);
  auto c_argv = c_strings(argv);
  auto c_env = c_strings(env);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, c_argv[0], &files, &attr, c_argv.data(), c_env.data());
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    std::ofstream(log_path, std::ios::app)
        << fmt::format("colltune sweep: cannot start {}: {}\n", argv[0], std::strerror(rc));
    outcome.exit_code = 127;
    return outcome;
  }
  if (options.on_started) options.on_started(pid);

  int status = 0;
  auto last_tick = start;
  while (!reap(pid, status)) {
    const double elapsed = seconds_since(start);
    const bool interrupted = options.interrupted != nullptr && options.interrupted->load();
    if (elapsed > options.limit_seconds || interrupted) {
      kill_process_tree(pid);
      while (!reap(pid, status) && kill(pid, 0) == 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      outcome.status = interrupted ? LaunchStatus::kInterrupted : LaunchStatus::kTimeout;
      outcome.seconds = seconds_since(start);
      return outcome;
    }
    if (options.on_tick && seconds_since(last_tick) >= 0.5) {
      last_tick = Clock::now();
      options.on_tick(elapsed);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  outcome.seconds = seconds_since(start);
  if (WIFEXITED(status)) {
    outcome.exit_code = WEXITSTATUS(status);
    outcome.status = outcome.exit_code == 0 ? LaunchStatus::kDone : LaunchStatus::kFailed;
  } else if (WIFSIGNALED(status)) {
    outcome.signal = WTERMSIG(status);
    outcome.status = LaunchStatus::kFailed;
  }
  return outcome;
}

std::vector<std::string> tail_lines(const std::string& path, std::size_t n) {
  std::ifstream in(path);
  std::deque<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    lines.push_back(line);
    if (lines.size() > n) lines.pop_front();
  }
  return {lines.begin(), lines.end()};
}

}  // namespace colltune
