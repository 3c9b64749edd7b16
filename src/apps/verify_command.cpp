#include "apps/verify_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "apps/help_format.hpp"
#include "apps/sweep_command.hpp"
#include "core/environment.hpp"
#include "core/errors.hpp"
#include "knobs/knob_scope.hpp"
#include "report/analysis.hpp"
#include "report/tuned_read.hpp"
#include "report/verify.hpp"
#include "store/results.hpp"
#include "sweep/dialect.hpp"
#include "sweep/spec.hpp"

namespace colltune {
namespace fs = std::filesystem;
namespace {

struct VerifyArgs {
  std::string tuned, spec_path, results_root = "results", colls;
  int np = 0, rounds = 4;
  bool help = false;
};

// colltune's NCCL tuner plugin: beside colltune in a build tree, in <prefix>/lib in an install
// (cmake --install, the .deb).
std::string plugin_path() {
  std::error_code ec;
  const fs::path exe = own_executable_path();
  const fs::path dir = exe.is_absolute() ? exe.parent_path() : fs::path(".");
  const fs::path beside = dir / "libnccl-tuner-colltune.so";
  if (fs::is_regular_file(beside, ec)) return beside.string();
  return (dir / ".." / "lib" / "libnccl-tuner-colltune.so").lexically_normal().string();
}

const char* launcher_name(LauncherKind k) {
  return k == LauncherKind::kSrun ? "srun" : k == LauncherKind::kLocal ? "local" : "mpirun";
}

// The sweep that measures it: the defaults (the baseline) and the file applied, one point each,
// in rounds (A B, A B), over the collectives and sizes the file covers.
nlohmann::json verify_spec(const VerifyArgs& a, const TunedFile& f,
                           const std::vector<std::string>& collectives) {
  // Sizes 4x apart from 8 B and up, through the largest row's start, which is measured itself
  // (it is where a rule changes), and two sizes past it.
  std::uint64_t anchor = 8, hi = 1 << 20;
  for (const VerifiedRow& r : f.rows) {
    anchor = std::max(anchor, r.min_bytes);
    if (r.max_bytes != UINT64_MAX) hi = std::max(hi, r.max_bytes);
  }
  anchor = std::min<std::uint64_t>(anchor, 16ULL << 20);
  hi = std::min<std::uint64_t>(std::max(hi, anchor * 16), 64ULL << 20);
  std::uint64_t lo = anchor;
  while (lo / 4 >= 8) lo /= 4;
  nlohmann::json spec{{"name", std::string("verify-") + name(f.kind)},
                      {"repetitions", a.rounds},
                      // A tuned side clearly slower at every size stops early (never the
                      // defaults): the sweep's racing, from the third round.
                      {"race", a.rounds >= 3},
                      {"benchmark",
                       {{"backends", {f.kind == TunedKind::kNcclPlugin ? "nccl" : "mpi"}},
                        {"collectives", collectives},
                        {"min_bytes", lo},
                        {"max_bytes", hi},
                        {"step_factor", 4},
                        {"in_place", "never"}}}};
  if (!a.spec_path.empty()) {
    std::ifstream in(a.spec_path);
    std::ostringstream text;
    text << in.rdbuf();
    const SweepSpec user = parse_spec(text.str(), a.spec_path);
    spec["launcher"] = user.launcher == LauncherKind::kMpirun ? user.launcher_program
                                                              : launcher_name(user.launcher);
    if (user.dialect) spec["mpi_family"] = dialect_name(*user.dialect);
    spec["launcher_args"] = user.launcher_args;
    if (!user.hosts.empty()) spec["hosts"] = user.hosts;
    if (!user.hostfile.empty()) spec["hostfile"] = user.hostfile;
    spec["point_timeout_seconds"] = user.point_timeout_seconds;
  } else {
    // This host's mpirun: Open MPI's needs leave to put more ranks than cores; Hydra needs none.
    SweepSpec here;
    resolve_dialect(here, "verify");
    if (here.dialect.value_or(LaunchDialect::kOpenMpi) == LaunchDialect::kOpenMpi)
      spec["launcher_args"] = {"--oversubscribe"};
  }
  nlohmann::json axes{{"np", {a.np}}}, unset = nlohmann::json::object(),
                                       applied = nlohmann::json::object();
  for (const auto& [key, value] : f.env) {
    axes[key] = {nullptr, value};
    unset[key] = nullptr;
    applied[key] = value;
  }
  spec["axes"] = axes;
  spec["include"] = {unset, applied};
  spec["baseline"] = nlohmann::json::object();
  return spec;
}

// An nccl-plugin file can only be verified where the plugin exists and where its rows' node
// count can be met: a file for 2 nodes measured on one host matches no row and would compare
// the defaults with themselves. Throws ConfigError.
void check_plugin_launch(const VerifyArgs& a, const TunedFile& f) {
  const std::string& plugin = f.env.at("NCCL_TUNER_PLUGIN");
  std::error_code ec;
  if (!fs::is_regular_file(plugin, ec)) {
    throw ConfigError(fmt::format(
        "verify: {}: not there; colltune's NCCL tuner plugin is built beside colltune and "
        "installed in <prefix>/lib; allowed: a colltune build or install that has "
        "libnccl-tuner-colltune.so",
        plugin));
  }
  std::size_t hosts = 1;  // without --spec the launches run on this host
  if (!a.spec_path.empty()) {
    std::ifstream in(a.spec_path);
    std::ostringstream text;
    text << in.rdbuf();
    const SweepSpec user = parse_spec(text.str(), a.spec_path);
    if (!user.hostfile.empty()) return;  // how many it names is the launcher's to say
    hosts = std::max<std::size_t>(user.hosts.size(), 1);
  }
  if (f.nnodes > 0 && static_cast<std::size_t>(f.nnodes) > hosts) {
    throw ConfigError(fmt::format(
        "--spec: {} was written for {} nodes and verify would launch on {} host(s){}: no row "
        "would apply; allowed: --spec naming {} hosts or more",
        a.tuned, f.nnodes, hosts, a.spec_path.empty() ? " (this one, without --spec)" : "",
        f.nnodes));
  }
}

// The first failed launch's last words, when no launch of the tuned side (the point that is not
// the baseline) finished: the file itself is then what the MPI could not take.
std::optional<std::string> every_tuned_launch_failed(const std::string& store) {
  std::ifstream in(fs::path(store) / "manifest.json");
  const nlohmann::json manifest = nlohmann::json::parse(in, nullptr, false);
  if (manifest.is_discarded()) return std::nullopt;
  std::set<std::string> tuned;
  for (const auto& p : manifest.value("points", nlohmann::json::array())) {
    if (!p.value("baseline", false)) tuned.insert(p.value("id", ""));
  }
  std::optional<std::string> first_failure;
  for (const auto& l : manifest.value("launches", nlohmann::json::array())) {
    if (!tuned.count(l.value("point", ""))) continue;
    if (l.value("status", "") == "done") return std::nullopt;
    if (!first_failure) {
      std::string tail;
      for (const auto& line : l.value("tail", nlohmann::json::array())) {
        if (line.is_string() && !line.get<std::string>().empty()) tail = line.get<std::string>();
      }
      first_failure = fmt::format("{} ({})", l.value("status", "?"), tail.substr(0, 300));
    }
  }
  return first_failure;
}

// A warning of the tuned side's launches that Open MPI served a collective of the file by another
// component than coll/tuned (run_context): the file then did not choose what was measured.
std::optional<std::string> tuned_side_not_applied(const Dataset& d) {
  for (const auto& [point_id, warning] : d.warnings) {
    const PointInfo* point = find_point(d, point_id);
    if (point && !point->baseline && warning.find(kNotTunedMark) != std::string::npos)
      return warning;
  }
  return std::nullopt;
}

}  // namespace

int verify_command(const std::vector<std::string>& args) {
  VerifyArgs a;
  CLI::App app("colltune verify: a tuned file applied against the defaults, in fresh launches",
               "colltune verify");
  use_colltune_help(
      app,
      "Exit codes: 0 nowhere shown slower by more than 5%; 1 slower somewhere (the rows "
      "not to deploy are named); 3 could not tell; 2 bad input.");
  app.add_option("tuned", a.tuned,
                 "a file from tune --emit ompi-rules, mpich-json, nccl-plugin or env")
      ->required();
  app.add_option("--np", a.np, "ranks of each launch (default: the file's rank count)");
  app.add_option("--spec", a.spec_path,
                 "a sweep spec whose launch keys to use (launcher, launcher_args, hosts)");
  app.add_option("--rounds", a.rounds, "launches of each side, interleaved (default 4)")
      ->check(CLI::Range(2, 100));
  app.add_option("--coll", a.colls,
                 "the collectives to measure: env files any (default allreduce), others those "
                 "the file covers (default all of them)");
  app.add_option("--results", a.results_root, "where the measuring sweep's store goes");
  if (parse_or_help(app, args, "verify")) return 0;
  TunedFile f = read_tuned_file(a.tuned, plugin_path());
  if (!f.unreachable.empty()) {
    // Launches would measure MPICH's own choice on both sides and find them alike.
    for (const std::string& why : f.unreachable)
      std::fprintf(stderr, "colltune verify: %s\n", why.c_str());
    std::fprintf(stderr,
                 "colltune verify: MPICH would not apply %s as written, so nothing was launched; "
                 "tune --emit mpich-json writes each rule where MPICH reaches it\n",
                 a.tuned.c_str());
    return kVerifyCannotTell;
  }
  if (f.kind == TunedKind::kNcclPlugin) check_plugin_launch(a, f);
  std::set<int> ranks;
  std::set<std::string> covered;
  for (const VerifiedRow& r : f.rows) {
    if (r.nranks > 0) ranks.insert(r.nranks);
    covered.insert(r.collective);
  }
  if (a.np == 0) a.np = ranks.empty() ? 2 : *ranks.begin();
  if (a.np < 1) throw ConfigError(fmt::format("--np: {}; allowed: 1 or more", a.np));
  const bool applies = ranks.empty() || std::any_of(ranks.begin(), ranks.end(), [&](int n) {
                         return f.kind == TunedKind::kOmpiRules ? n <= a.np : n == a.np;
                       });
  if (!applies) {
    throw ConfigError(fmt::format(
        "--np: {}: {} was written for {} ranks ({}); allowed: --np {}{}", a.np, a.tuned,
        fmt::join(ranks, ", "), name(f.kind), *ranks.begin(),
        f.kind == TunedKind::kOmpiRules ? " or more (Open MPI applies a rule upwards)" : ""));
  }
  std::vector<std::string> collectives(covered.begin(), covered.end());
  std::vector<std::string> asked;
  for (std::size_t at = 0; !a.colls.empty() && at <= a.colls.size();) {
    const std::size_t comma = std::min(a.colls.find(',', at), a.colls.size());
    asked.push_back(a.colls.substr(at, comma - at));
    at = comma + 1;
  }
  if (f.kind == TunedKind::kEnv) {
    collectives = asked.empty() ? std::vector<std::string>{"allreduce"} : asked;
    // An env file applies everywhere: one row per collective asked.
    for (const std::string& c : collectives) f.rows.push_back({c, 0, 0, UINT64_MAX, f.path});
  } else if (!asked.empty()) {
    for (const std::string& c : asked) {
      if (!covered.count(c)) {
        throw ConfigError(fmt::format("--coll: {} has no row for {}; allowed: {} (what it covers)",
                                      a.tuned, c, fmt::join(covered, " ")));
      }
    }
    collectives = asked;
    std::erase_if(f.rows, [&](const VerifiedRow& r) {
      return std::find(asked.begin(), asked.end(), r.collective) == asked.end();
    });
  }
  // The spec goes into the store as spec.yaml (JSON is YAML); written first to a temporary
  // file that the sweep reads once.
  char spec_path[] = "/tmp/colltune-verify-XXXXXX.yaml";
  const int fd = ::mkstemps(spec_path, 5);
  if (fd < 0) throw ConfigError("verify: cannot create a temporary spec file in /tmp");
  ::close(fd);
  std::ofstream(spec_path) << verify_spec(a, f, collectives).dump(2) << "\n";
  std::set<std::string> before;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(a.results_root, ec)) before.insert(e.path().string());
  std::fprintf(stderr, "colltune verify: %s (%s) against the defaults, %d ranks, %d rounds\n",
               a.tuned.c_str(), name(f.kind), a.np, a.rounds);
  struct RemoveSpec {
    const char* path;
    ~RemoveSpec() { std::remove(path); }  // on every way out: the sweep may refuse it
  } remove_spec{spec_path};
  int swept = 0;
  try {
    swept = sweep_command({spec_path, "--results", a.results_root});
  } catch (const ConfigError& e) {
    // The temporary spec is gone when the user reads this: name what it was made from.
    std::string text = e.what();
    const std::string made_from =
        fmt::format("verify's sweep of {}{}", a.tuned,
                    a.spec_path.empty() ? "" : " with --spec " + a.spec_path);
    for (std::size_t at = text.find(spec_path); at != std::string::npos;
         at = text.find(spec_path, at + made_from.size())) {
      // Its line and column point into the file that is gone: dropped with its name.
      std::size_t end = at + std::strlen(spec_path);
      while (end + 1 < text.size() && text[end] == ':' &&
             std::isdigit(static_cast<unsigned char>(text[end + 1]))) {
        end += 1;
        while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
      }
      text.replace(at, end - at, made_from);
    }
    throw ConfigError(text);
  }
  std::string store;
  for (const auto& e : fs::directory_iterator(a.results_root, ec)) {
    if (!before.count(e.path().string()) &&
        e.path().filename().string().starts_with(std::string("verify-") + name(f.kind)))
      store = e.path().string();
  }
  if (store.empty()) {
    std::fprintf(stderr, "colltune verify: the measuring sweep left no store (exit %d)\n", swept);
    return swept == 0 ? kVerifyCannotTell : swept;
  }
  const Dataset measured = load_dataset(store);
  const VerifyOutcome outcome = verify_dataset(measured, f, a.np);
  std::fputs(outcome.text.c_str(), stdout);
  std::fprintf(stderr, "colltune verify: store %s\n", store.c_str());
  if (const auto why = every_tuned_launch_failed(store)) {
    std::fprintf(stderr,
                 "colltune verify: every launch with %s applied failed, so the MPI would not run "
                 "with it as it is (it refused or only partly read the file?): %s\n",
                 a.tuned.c_str(), why->c_str());
    return kVerifyCannotTell;
  }
  if (const auto why = tuned_side_not_applied(measured)) {
    std::fprintf(stderr,
                 "colltune verify: the MPI did not apply %s where it was measured, so these "
                 "figures are not the file's: %s\n",
                 a.tuned.c_str(), why->c_str());
    return kVerifyCannotTell;
  }
  if (swept != 0 && outcome.exit_code == kVerifyNotSlower) return kVerifyCannotTell;
  return outcome.exit_code;
}

}  // namespace colltune
