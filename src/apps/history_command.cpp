#include "apps/history_command.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <cmath>
#include <filesystem>

#include "apps/gate_options.hpp"
#include "apps/help_format.hpp"
#include "core/errors.hpp"
#include "history/history_html.hpp"
#include "history/history_report.hpp"
#include "store/atomic_file.hpp"

namespace colltune {
namespace {

namespace fs = std::filesystem;

}  // namespace

int history_command(const std::vector<std::string>& args) {
  CLI::App app(
      "colltune history: runs over time (sweep stores and run files, each one run), their change "
      "points and what changed with them",
      "colltune history");
  use_colltune_help(app,
                    "Exit codes: 0 written (with --gate: the newest run is not after a change to "
                    "slower); 1 --gate: it is; 3 --gate: some series too short or the newest run "
                    "alone off (the next run tells); 2 bad input.");
  std::vector<std::string> inputs;
  std::string out_dir, junit, level = "0.05", min_change = "5%";
  bool gate = false, allow_incomplete = false, skip_bad = false;
  app.add_option("runs", inputs,
                 "sweep stores, run files (.jsonl), nccl-tests or OSU logs, or directories of them")
      ->required();
  app.add_option(
         "--out", out_dir,
         "write history.md, history.html and history.json there (default: print only); made when "
         "missing")
      ->option_text("DIR");
  app.add_flag("--gate", gate, "exit 1 when the newest run comes after a change to slower");
  app.add_option(
         "--min-change", min_change,
         "the smallest step that is a finding: 5% or 1.05x, never a bare number (default 5%)")
      ->option_text("X");
  app.add_option("--alpha", level,
                 "false-alarm level of the whole history: the chance of any false change when "
                 "nothing changed, 0.001 to 0.2 (default 0.05)")
      ->option_text("P");
  app.add_flag("--allow-incomplete", allow_incomplete,
               "--gate: series too short to tell, or whose newest run alone is off, pass "
               "(default: they exit 3)");
  app.add_option("--junit", junit, "--gate: also write JUnit XML, one test case per series")
      ->option_text("FILE");
  app.add_flag("--skip-bad-records", skip_bad,
               "leave out records that fail their range checks, with a warning each");
  if (parse_or_help(app, args, "history")) return 0;
  HistoryOptions o;
  o.change.level = parse_alpha(level, "--alpha");
  o.change.min_change = parse_slowdown(min_change, "--min-change");
  if (!(o.change.min_change > 0))
    throw ConfigError(
        fmt::format("--min-change: '{}' is not allowed; allowed: above 0%, like 5%", min_change));
  o.allow_incomplete = allow_incomplete;
  if (!junit.empty() && !gate)
    throw ConfigError("--junit: needs --gate; allowed: history --gate --junit FILE");
  if (!junit.empty()) check_output_path("--junit", junit);
  if (!out_dir.empty()) check_output_directory("--out", out_dir);
  auto runs = load_history(inputs, LoadOptions{skip_bad});
  if (runs.empty())
    throw ConfigError("runs: none given; allowed: stores, run files or a directory");
  const HistoryResult h = analyse_history(runs, o);
  std::fputs(history_console(h, runs, gate).c_str(), stdout);
  if (!out_dir.empty()) {
    std::error_code made;
    fs::create_directories(out_dir, made);
    for (const auto& [name, text] : {std::pair{"history.md", history_markdown(h, runs, o)},
                                     std::pair{"history.json", history_json(h, runs, o)},
                                     std::pair{"history.html", history_html(h, runs, o)}}) {
      const std::string path = (fs::path(out_dir) / name).string();
      write_file_atomic(path, text);
      fmt::print("history: wrote {}\n", path);
    }
  }
  if (!junit.empty()) write_file_atomic(junit, history_junit(h, o));
  return gate ? h.exit_code : 0;
}

}  // namespace colltune
