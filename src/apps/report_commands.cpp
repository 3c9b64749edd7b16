#include "apps/report_commands.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <filesystem>
#include <optional>

#include "apps/gate_options.hpp"
#include "apps/help_format.hpp"
#include "backends/registry.hpp"
#include "comm/mpi_world.hpp"
#include "core/decision.hpp"
#include "core/errors.hpp"
#include "core/flag_values.hpp"
#include "core/mpi_family.hpp"
#include "core/timestamp.hpp"
#include "report/analysis.hpp"
#include "report/compare.hpp"
#include "report/csv_report.hpp"
#include "report/html_report.hpp"
#include "report/markdown_report.hpp"
#include "report/mpich_selection.hpp"
#include "report/tune.hpp"
#include "report/view.hpp"
#include "store/atomic_file.hpp"
#include "store/json_text.hpp"
#include "store/manifest.hpp"
#include "store/results.hpp"

namespace colltune {
namespace {

namespace fs = std::filesystem;

constexpr const char* kResultsHelp =
    "a sweep store (results/<id>), a run's JSONL (--json), or nccl-tests JSON (-J, or nccl-tests' "
    "own)";
// report and tune read several inputs as launches of one comparison.
const std::string kLaunchesHelp =
    std::string(kResultsHelp) +
    "; several are launches of one comparison, each file its own (a run --race-after file with "
    "the launch it followed)";
constexpr const char* kSkipBadHelp =
    "leave out records that fail their range checks, with a warning each (default: such a "
    "record is bad input)";

void print_left_out(const Dataset& d) {
  for (const auto& line : d.left_out)
    std::fprintf(stderr, "colltune: warning: left out: %s\n", line.c_str());
}

}  // namespace

int report_command(const std::vector<std::string>& args) {
  CLI::App app("colltune report: report.md, report.html and results.csv from results",
               "colltune report");
  std::vector<std::string> inputs;
  std::string out_dir;
  use_colltune_help(app,
                    "Exit codes: 0 written; 2 bad input (one line naming the file and field).");
  app.add_option("results", inputs, kLaunchesHelp)->required();
  app.add_option("--out", out_dir,
                 "where to write (default: the store, or the input file's directory); made when "
                 "missing")
      ->option_text("DIR");
  bool skip_bad = false;
  app.add_flag("--skip-bad-records", skip_bad, kSkipBadHelp);
  if (parse_or_help(app, args, "report")) return 0;
  // Where the files go is checked before anything is read, so a read-only store fails at once.
  const std::string out_flag =
      out_dir.empty() ? "results (report writes into it; see --out)" : "--out";
  const std::string& input = inputs.front();
  if (out_dir.empty()) {
    out_dir = fs::is_directory(input) ? input : fs::path(input).parent_path().string();
    if (out_dir.empty()) out_dir = ".";
  }
  check_output_directory(out_flag, out_dir);
  Dataset d = load_datasets(inputs, LoadOptions{skip_bad});
  print_left_out(d);
  std::error_code made;
  if (!fs::exists(out_dir)) fs::create_directories(out_dir, made);  // the input read well
  if (made || !fs::is_directory(out_dir)) {
    throw ConfigError(fmt::format(
        "{}: '{}' is not a directory and cannot be one{}; allowed: a directory (made when "
        "missing)",
        out_flag, out_dir, made ? " (" + made.message() + ")" : ""));
  }
  // Named after the first input, and how many more, so a report of two launches does not
  // overwrite the first one's own.
  const std::string more = inputs.size() > 1 ? fmt::format("+{}", inputs.size() - 1) : "";
  const std::string stem =
      fs::is_directory(input) && more.empty() ? "" : fs::path(input).stem().string() + more + ".";
  std::vector<std::string> paths;
  for (const char* name : {"report.md", "report.html", "results.csv"}) {
    paths.push_back((fs::path(out_dir) / (stem + name)).string());
    check_output_path(out_flag, paths.back());
  }
  // Every record's row first, streamed: the view then lets the records go (10^6 of them).
  write_file_atomic(paths[2], [&](const TextSink& out) { render_csv(d, out); });
  fmt::print("report: wrote {}\n", paths[2]);
  const ReportView view = make_report_view(std::move(d));
  write_file_atomic(paths[0], render_markdown(view));
  fmt::print("report: wrote {}\n", paths[0]);
  write_file_atomic(paths[1], render_html(view));
  fmt::print("report: wrote {}\n", paths[1]);
  return 0;
}

int compare_command(const std::vector<std::string>& args) {
  CLI::App app(
      "colltune compare: a CI gate, candidate against baseline. The unit is the launch: give each "
      "side a sweep store with several rounds, or several run files (--baseline/--candidate "
      "repeated)",
      "colltune compare");
  use_colltune_help(app,
                    "Exit codes: 0 nothing slower; 1 slower; 3 some comparison could not be made "
                    "(missing, inconclusive, different rank counts); 2 bad input.");
  std::string base_path, cand_path;
  std::vector<std::string> base, cand;
  std::string slowdown = "5%", alpha = "0.05", junit, noise;
  bool allow_incomplete = false, skip_bad = false;
  app.add_option("base", base_path, "the baseline: " + std::string(kResultsHelp));
  app.add_option("cand", cand_path, "the candidate, alike");
  app.add_option("--baseline", base,
                 "a baseline input instead of BASE; repeat for several launches")
      ->option_text("PATH");
  app.add_option("--candidate", cand, "a candidate input instead of CAND; repeat alike")
      ->option_text("PATH");
  app.add_option("--max-slowdown", slowdown,
                 "the smallest slowdown that fails the gate: 5% or 1.05x (default 5%)")
      ->option_text("X");
  app.add_option("--alpha", alpha,
                 "level for the adjusted one-sided p-values, 0.001 to 0.2 (default 0.05)")
      ->option_text("P");
  app.add_option("--noise-floor", noise,
                 "launch-to-launch spread: 4%, a file from colltune noise --out, or a directory "
                 "colltune history --out wrote (its spread between runs, per series); lets one "
                 "launch a side decide (default: none; then each side needs several launches)")
      ->option_text("X|FILE");
  app.add_flag("--allow-incomplete", allow_incomplete,
               "missing, inconclusive and rank-mismatched comparisons do not fail the gate "
               "(default: they exit 3)");
  app.add_flag("--skip-bad-records", skip_bad, kSkipBadHelp);
  app.add_option("--junit", junit,
                 "also write JUnit XML, one test case per comparison (default: none)")
      ->option_text("FILE");
  if (parse_or_help(app, args, "compare")) return 0;
  if (!base_path.empty()) base.insert(base.begin(), base_path);
  if (!cand_path.empty()) cand.insert(cand.begin(), cand_path);
  if (base.empty() || cand.empty()) {
    throw ConfigError(
        "compare: a baseline and a candidate are needed; allowed: colltune compare BASE CAND, or "
        "--baseline A --baseline B --candidate C --candidate D");
  }
  CompareOptions o;
  o.max_slowdown = parse_slowdown(slowdown);
  o.alpha = parse_alpha(alpha, "--alpha");
  if (!noise.empty()) parse_noise_floor(noise, o);
  if (!junit.empty()) check_output_path("--junit", junit);
  o.allow_incomplete = allow_incomplete;
  const LoadOptions load{skip_bad};
  // Each side merged as it is read: 10^6 records a side are never held.
  CompareSide base_side, cand_side;
  const Dataset a = load_datasets(base, load, [&](Record&& r) { base_side.add(r); });
  const Dataset b = load_datasets(cand, load, [&](Record&& r) { cand_side.add(r); });
  print_left_out(a);
  print_left_out(b);
  if (noise.empty()) warn_short_spans(a, b);
  const auto rows = compare(std::move(base_side), a, std::move(cand_side), b, o);
  compare_markdown(rows, a, b, o,
                   [](std::string_view text) { std::fwrite(text.data(), 1, text.size(), stdout); });
  if (!junit.empty()) write_file_atomic(junit, compare_junit(rows, o));
  return gate_exit_code(rows, o);
}

int noise_command(const std::vector<std::string>& args) {
  CLI::App app(
      "colltune noise: the launch-to-launch spread of this machine, from identical launches (a "
      "sweep store with several rounds, or several run files), for compare --noise-floor",
      "colltune noise");
  std::vector<std::string> inputs;
  std::string out;
  use_colltune_help(app, "Exit codes: 0 ok; 2 bad input.");
  app.add_option("results", inputs, "sweep stores or run files measured alike")->required();
  app.add_option("--out", out,
                 "also write the noise floor as JSON for compare --noise-floor (default: print "
                 "only)")
      ->option_text("FILE");
  if (parse_or_help(app, args, "noise")) return 0;
  if (!out.empty()) check_output_path("--out", out);
  const Dataset d = load_datasets(inputs);
  std::vector<LaunchSamples> cells;
  for (const Panel& panel : build_panels(d)) {
    for (const auto& [point, by_size] : panel.cells) {
      for (const auto& [bytes, cell] : by_size) cells.push_back(cell.launches);
    }
  }
  std::size_t df = 0;
  const double sd = pooled_launch_sd(cells, &df);
  if (df == 0) {
    throw ConfigError(fmt::format(
        "{}: no configuration has two launches at one size; allowed: a sweep with rounds >= 2 "
        "or several run files of the same benchmark",
        d.source));
  }
  fmt::print(
      "noise: launch medians vary by {:.2f}% (standard deviation of their logs {:.4f}, {} "
      "degrees of freedom over {} cells) in {}\n",
      std::expm1(sd) * 100, sd, df, cells.size(), d.source);
  if (!out.empty()) {
    const nlohmann::json j = {{"launch_sd_log", sd},
                              {"degrees_of_freedom", df},
                              {"cells", cells.size()},
                              {"source", d.source},
                              {"created_utc", utc_timestamp(false)}};
    write_file_atomic(out, dump_json_text(j, 2) + "\n");
    fmt::print("noise: wrote {}\n", out);
  }
  return 0;
}

int tune_command(const std::vector<std::string>& args) {
  CLI::App app("colltune tune: configuration from a results store", "colltune tune");
  std::vector<std::string> inputs;
  std::string emit, min_bytes = "0", max_bytes;
  use_colltune_help(app, "Exit codes: 0 printed; 2 bad input.");
  app.add_option("results", inputs, kLaunchesHelp)->required();
  app.add_option("--emit", emit,
                 "what to print: nccl-plugin (colltune's NCCL tuner plugin's file), nccl-tuner "
                 "(NCCL's example tuner-plugin CSV), ompi-rules (coll/tuned "
                 "rules file), mpich-json (MPICH's collective selection file; needs the colltune "
                 "built against the MPICH measured), env (one setting's environment), openmetrics "
                 "(required)")
      ->required()
      ->option_text("FORMAT");
  app.add_option("--min-bytes", min_bytes, "env: smallest size to optimise for (default 0)")
      ->option_text("SIZE");
  app.add_option("--max-bytes", max_bytes, "env: largest size to optimise for (default: no limit)")
      ->option_text("SIZE");
  bool skip_bad = false;
  app.add_flag("--skip-bad-records", skip_bad, kSkipBadHelp);
  if (parse_or_help(app, args, "tune")) return 0;
  TuneOptions o;
  const std::uint64_t lo = parse_size_flag(min_bytes, "--min-bytes");
  const std::uint64_t hi =
      max_bytes.empty() ? UINT64_MAX : parse_size_flag(max_bytes, "--max-bytes");
  if (lo > hi) {
    throw ConfigError(fmt::format(
        "--min-bytes: {} is above --max-bytes {}; allowed: a range whose least is at most its "
        "greatest",
        min_bytes, max_bytes));
  }
  o.min_bytes = lo;
  o.max_bytes = hi;
  const std::vector<std::string> allowed{"nccl-plugin", "nccl-tuner", "ompi-rules",
                                         "mpich-json",  "env",        "openmetrics"};
  if (std::find(allowed.begin(), allowed.end(), emit) == allowed.end()) {
    throw ConfigError(
        fmt::format("--emit: '{}' is not allowed; allowed: nccl-plugin nccl-tuner ompi-rules "
                    "mpich-json env openmetrics",
                    emit));
  }
  std::optional<MpichLibrary> mpich;
  if (emit == "mpich-json") {
    // Before the store is read: the base is this binary's MPICH, or there is nothing to extend.
    const auto identity = identify_mpi_library(MpiWorld::library_version());
    const std::string file = mpi_library_file_here();
    if (!identity || dialect_of_family(identity->family) != LaunchDialect::kHydra || file.empty()) {
      throw ConfigError(fmt::format(
          "--emit mpich-json: this colltune is built against {}; allowed: the colltune built "
          "against the MPICH the store measured (its built-in selection is the file's base)",
          identity ? identity->text() : "no MPI"));
    }
    mpich = read_mpich_library(file, identity->version);
  }
  const Dataset d = load_datasets(inputs, LoadOptions{skip_bad});
  print_left_out(d);
  std::string text;
  if (emit == "nccl-plugin") text = emit_nccl_plugin(d);
  if (emit == "nccl-tuner") text = emit_nccl_tuner(d);
  if (emit == "ompi-rules") text = emit_ompi_rules(d);
  if (emit == "mpich-json") {
    std::vector<std::string> notes;
    text = emit_mpich_selection(d, *mpich, notes);
    notes.push_back(
        "use: MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=<this file> with "
        "MPIR_CVAR_DEVICE_COLLECTIVES=none (as measured; the file is MPICH's MPIR-level "
        "selection, which ch4's device collectives would otherwise bypass), and no "
        "MPIR_CVAR_<COLL>_INTRA_ALGORITHM set (auto lets the file decide)");
    for (const std::string& note : notes) std::fprintf(stderr, "# %s\n", note.c_str());
  }
  if (emit == "env") text = emit_env(d, o);
  if (emit == "openmetrics") text = emit_openmetrics(d);
  std::fputs(text.c_str(), stdout);
  return 0;
}

}  // namespace colltune
