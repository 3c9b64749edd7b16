#include "apps/sweep_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <set>

#include "apps/default_spec.hpp"
#include "apps/help_topics.hpp"
#include "apps/topo_command.hpp"
#include "backends/registry.hpp"
#include "core/environment.hpp"
#include "core/errors.hpp"
#include "runner/run_options.hpp"
#include "store/manifest.hpp"
#include "sweep/dialect.hpp"
#include "sweep/driver.hpp"
#include "sweep/expand.hpp"
#include "sweep/groups.hpp"
#include "sweep/launch.hpp"
#include "sweep/mpi_axis.hpp"
#include "sweep/mpi_knobs.hpp"
#include "sweep/preflight.hpp"
#include "sweep/spec.hpp"
#include "sweep/spec_redact.hpp"
#include "topo/gpu_probe.hpp"

namespace colltune {
namespace {

namespace fs = std::filesystem;

// Above this many launches the sweep says how many, and their longest time, before starting.
constexpr std::size_t kLaunchesWorthAWarning = 100;

struct SweepArgs {
  std::string spec_path;
  std::string resume_dir;
  std::string results_root = "results";
  bool dry_run = false;
  bool emit_sbatch = false;
  bool help = false;
  int gpus = -1;  // built-in default: -1 the visible GPUs, 0 the Open MPI one, N the GPU one
  std::uint64_t max_points = kDefaultMaxPoints;
};

SweepArgs parse_sweep_args(const std::vector<std::string>& args) {
  SweepArgs a;
  CLI::App app("colltune sweep", "colltune sweep");
  app.set_help_flag();
  app.add_flag("-h,--help", a.help);
  app.add_option("spec", a.spec_path);
  app.add_option("--resume", a.resume_dir);
  app.add_option("--results", a.results_root);
  app.add_flag("--dry-run", a.dry_run);
  app.add_flag("--emit-sbatch", a.emit_sbatch);
  app.add_option("--gpus", a.gpus)->check(CLI::Range(0, 1024));
  app.add_option("--max-points", a.max_points)->check(CLI::Range(std::uint64_t{1}, UINT64_MAX));
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    throw ConfigError(fmt::format("{}; see colltune sweep --help", e.what()));
  }
  return a;
}

void print_dry_run(const SweepSpec& spec, const std::vector<Point>& points,
                   const std::string& colltune, const std::string& results_root) {
  const auto groups = launch_groups(spec, points);
  std::size_t k = 0;
  const std::size_t total = groups.size() * static_cast<std::size_t>(spec.repetitions);
  for (int round = 1; round <= spec.repetitions; ++round) {
    for (const auto& group : groups) {
      std::vector<const Point*> members;
      for (std::size_t i : group) members.push_back(&points[i]);
      const Point& p = *members.front();
      const Launch launch = build_group_launch(
          spec, members, colltune,
          (fs::path(results_root) / "<sweep-id>" / launch_records_path(p.id, round)).string());
      ++k;
      for (const Point* m : members) {
        // The label holds spec values: a newline in one must not end the comment.
        const std::string label =
            has_control_characters(m->label) ? shell_quote(m->label) : m->label;
        fmt::print("# [{}/{}] point {} round {}{}: {}\n", k, total, m->id, round,
                   m->baseline ? " (baseline)" : "", label);
      }
      // Safe to paste and to share: secrets redacted as the manifest redacts them.
      std::vector<std::string> words;
      for (const auto& [key, value] : launch.env) {
        const std::string shown = redact_words({key + "=" + value}).front();
        words.push_back(key + "=" + shell_quote(shown.substr(key.size() + 1)));
      }
      for (const auto& word : redact_words(launch.argv)) words.push_back(shell_quote(word));
      fmt::print("{}\n", fmt::join(words, " "));
    }
  }
  for (const std::string& note : spec.notes) fmt::print("# note: {}\n", note);
}

// The GPU default on `gpus` GPUs where asked for, or where a GPU is visible and the NCCL
// backend is built; the Open MPI default otherwise.
// One GPU is one rank, and a one-rank communicator takes NCCL's one-rank path, which never reads
// NCCL_ALGO or NCCL_PROTO: the GPU default would measure one thing seven times.
std::string builtin_default_spec(int gpus) {
  const auto built = built_backends();
  const bool mpi_built = std::find(built.begin(), built.end(), "mpi") != built.end();
  constexpr const char* kOneRank =
      "NCCL never reads NCCL_ALGO or NCCL_PROTO on a one-rank communicator (its one-rank path "
      "copies), so the GPU default needs two GPUs";
  if (gpus == 1)
    throw ConfigError(fmt::format("--gpus: 1; allowed: 0, or 2 or more: {}", kOneRank));
  if (gpus < 0) {
    const bool nccl = std::find(built.begin(), built.end(), "nccl") != built.end();
    gpus = nccl ? visible_gpu_count() : 0;
    if (gpus == 1) {
      if (!mpi_built) {
        throw ConfigError(
            fmt::format("spec: none given and one GPU visible; allowed: a spec "
                        "file, or a host with two GPUs: {}",
                        kOneRank));
      }
      fmt::print(stderr, "colltune sweep: one GPU visible; {}: the Open MPI default runs\n",
                 kOneRank);
      gpus = 0;
    }
  }
  if (gpus == 0) return kDefaultSpecYaml;
  std::string text = kDefaultGpuSpecYaml;
  const std::string setting = "\n  gpus: 1 ";  // configs/default-gpu.yaml's benchmark.gpus
  const auto at = text.find(setting);
  if (at == std::string::npos) throw std::logic_error("default-gpu.yaml has no 'gpus: 1'");
  text.replace(at, setting.size(), fmt::format("\n  gpus: {} ", gpus));
  return text;
}

}  // namespace

std::string sweep_help() {
  return R"(colltune sweep: one supervised launch per point of a knob and placement matrix

usage: colltune sweep [SPEC.yaml] [options]

  SPEC.yaml          the sweep (configs/annotated.yaml documents every key); without one, a
                     built-in default runs: NCCL's algorithms and protocols on every local GPU
                     (configs/default-gpu.yaml) where two or more GPUs are visible and the NCCL
                     backend is built, Open MPI's coll/tuned algorithms (configs/default.yaml) elsewhere
  --gpus N           built-in default only: N >= 2 picks the GPU one with N GPUs, 0 the Open
                     MPI one (default: the GPUs the CUDA runtime sees; with one, the Open MPI
                     one, as NCCL never reads NCCL_ALGO/NCCL_PROTO on one rank)
  --dry-run          print every launch (environment and argv), run nothing
  --resume DIR       continue the sweep stored in DIR (results/<sweep-id>): runs only the
                     launches that are not done, with the spec stored there
  --results DIR      where new sweeps are stored (default results)
  --emit-sbatch      print a Slurm batch script that runs this sweep, run nothing
  --max-points N     refuse a sweep whose axes multiply to more than N points, counted before
                     any is built (default 10000)

Exit codes: 0 every launch done; 3 some failed or timed out (recorded in the manifest);
2 bad input; 130 interrupted (resumable).
)";
}

int sweep_command(const std::vector<std::string>& args) {
  const SweepArgs a = parse_sweep_args(args);
  if (a.help) {
    std::fputs((sweep_help() + "\n" + read_more_line("sweep") + "\n").c_str(), stdout);
    return 0;
  }
  const bool builtin = a.spec_path.empty() && a.resume_dir.empty();
  if (a.gpus >= 0 && !builtin) {
    throw ConfigError(
        "--gpus: picks a built-in default; allowed: only without a spec file or --resume");
  }
  std::string text = builtin ? builtin_default_spec(a.gpus) : "";
  std::string source = "<built-in default>";
  if (!a.resume_dir.empty()) {
    source = a.resume_dir + "/spec.yaml";
    if (!fs::exists(a.resume_dir + "/manifest.json")) {
      throw ConfigError(
          fmt::format("--resume: '{}' is not a sweep store; allowed: a "
                      "results/<sweep-id> directory with a manifest.json",
                      a.resume_dir));
    }
    text = read_file(source);
    if (const auto hash = redacted_spec_hash(text)) {
      // The store kept no secrets, so they come from the spec file again, which must be the
      // one the sweep started with: a changed secret would mix two configurations in one store.
      if (a.spec_path.empty()) {
        throw ConfigError(fmt::format(
            "--resume: {} has its secret values redacted; allowed: the spec file given again: "
            "colltune sweep SPEC.yaml --resume {}",
            source, a.resume_dir));
      }
      text = read_file(a.spec_path);
      if (spec_hash(text) != *hash) {
        throw ConfigError(fmt::format(
            "spec: '{}' differs from the spec {} was started with (hash {} against {}); "
            "--resume runs the same spec, secrets included",
            a.spec_path, a.resume_dir, spec_hash(text), *hash));
      }
      source = a.spec_path;
    } else if (!a.spec_path.empty() && read_file(a.spec_path) != text) {
      throw ConfigError(
          fmt::format("spec: '{}' differs from {}; --resume runs the stored spec, "
                      "so give the same file or none",
                      a.spec_path, source));
    }
  } else if (!a.spec_path.empty()) {
    source = a.spec_path;
    text = read_file(a.spec_path);
  }
  SweepSpec spec = parse_spec(text, source);
  resolve_dialect(spec, source);  // asks mpirun/mpiexec --version unless mpi_family names it
  std::vector<Point> points;
  try {
    points = expand(spec, a.max_points);
  } catch (const ConfigError& e) {
    throw ConfigError(fmt::format("{}: {}", source, e.what()));
  }
  if (points.empty()) {
    throw ConfigError(fmt::format("{}: include/exclude: no point is left to run", source));
  }
  std::set<std::string> backends;
  for (const Point& p : points) {
    backends.insert(p.settings.count("backend") ? p.settings.at("backend") : "mpi");
  }
  for (const std::string& backend : backends) {
    std::vector<std::string> run_args = spec.run_args;
    run_args.insert(run_args.end(), {"--backend", backend});
    try {
      parse_run_options(run_args);
    } catch (const ConfigError& e) {
      // The benchmark section is `colltune run`'s vocabulary; say where the bad value came from.
      throw ConfigError(fmt::format("{}: benchmark: {}", source, e.what()));
    }
  }
  const std::string colltune =
      spec.colltune_path.empty() ? own_executable_path() : spec.colltune_path;
  // Each MPI judged on what its own points give it (the `mpi` axis: several; else the spec's).
  const auto where_of = [&](const std::string& mpi) {
    return mpi.empty() ? source : fmt::format("{} (points under {})", source, mpi);
  };
  for (auto& [mpi, view] : specs_by_mpi(spec, points)) {
    const std::string where = where_of(mpi);
    check_launcher_args(view, where);
    check_knob_family(view, where);
    // The MPI's own algorithm values, before any launch.
    check_mpi_algorithm_knobs(view, where,
                              view.colltune_path.empty() ? colltune : view.colltune_path);
    for (const std::string& note : view.notes) {
      if (std::find(spec.notes.begin(), spec.notes.end(), note) == spec.notes.end())
        spec.notes.push_back(note);
    }
  }
  for (const Point& p : points) build_launch(spec, p, colltune, "check.jsonl");  // throws early
  if (!spec.interleave.empty()) {
    // The settings a group passes must pass `colltune run` as well (at most 64 per launch).
    for (const auto& group : launch_groups(spec, points)) {
      std::vector<const Point*> members;
      for (std::size_t i : group) members.push_back(&points[i]);
      const Launch launch = build_group_launch(spec, members, colltune, "check.jsonl");
      const auto run = std::find(launch.argv.begin(), launch.argv.end(), "run");
      try {
        parse_run_options(std::vector<std::string>(run + 1, launch.argv.end()));
      } catch (const ConfigError& e) {
        throw ConfigError(fmt::format("{}: interleave: {}", source, e.what()));
      }
    }
  }

  if (a.emit_sbatch) {
    const std::string spec_arg =
        a.spec_path.empty() && a.resume_dir.empty() ? "" : fs::absolute(source).string();
    const std::string script =
        sbatch_script(spec, points, colltune, spec_arg, fs::absolute(a.results_root).string());
    std::fputs(script.c_str(), stdout);
    // What --time assumed, where the user sees it (the script holds it as a comment too).
    const auto time_line = script.find("#SBATCH --time=");
    std::fprintf(stderr,
                 "colltune sweep: %s assumes every launch may take point_timeout_seconds "
                 "(%g s); see the script's first lines\n",
                 script.substr(time_line + 8, script.find('\n', time_line) - time_line - 8).c_str(),
                 spec.point_timeout_seconds);
    return 0;
  }
  if (a.dry_run) {
    print_dry_run(spec, points, colltune, a.results_root);
    return 0;
  }
  if (spec.colltune_path.empty()) {
    const auto built = built_backends();
    for (const std::string& backend : backends) {
      if (std::find(built.begin(), built.end(), backend) == built.end()) {
        throw ConfigError(
            fmt::format("{}: backend: '{}' is not built into this colltune; "
                        "allowed: {} (or set colltune: to a binary that has it)",
                        source, backend, fmt::join(built, " ")));
      }
    }
  }
  SweepPlan plan;
  plan.spec = spec;
  plan.points = points;
  plan.colltune_path = colltune;
  plan.colltune_version = fmt::format("{} ({})", COLLTUNE_VERSION, COLLTUNE_GIT_REVISION);
  plan.resume = !a.resume_dir.empty();
  // Before measuring ceilings, creating the store, or spending an allocation on launches that
  // would all fail alike.
  for (const auto& [mpi, view] : specs_by_mpi(spec, points)) {
    preflight(view, where_of(mpi), view.colltune_path.empty() ? colltune : view.colltune_path,
              plan.resume ? "" : a.results_root);
  }
  if (!plan.resume) plan.ceilings_json = host_ceilings_json();
  plan.store_dir =
      plan.resume ? a.resume_dir
                  : (fs::path(a.results_root) / new_sweep_id(spec.name, a.results_root)).string();
  const std::size_t launches = launch_groups(spec, points).size() * spec.repetitions;
  if (launches > kLaunchesWorthAWarning) {
    // Said before the first launch, so a sweep larger than meant can be stopped at once.
    std::fprintf(stderr,
                 "colltune sweep: %zu points, %zu launches (%d rounds); each may take up to "
                 "point_timeout_seconds (%g s): at most %.1f h; the ETA follows once launches "
                 "finish\n",
                 points.size(), launches, spec.repetitions, spec.point_timeout_seconds,
                 static_cast<double>(launches) * spec.point_timeout_seconds / 3600);
  }
  return run_sweep(plan, stderr);
}

}  // namespace colltune
