#include "apps/report_commands.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <filesystem>

#include "core/errors.hpp"
#include "core/sizes.hpp"
#include "report/compare.hpp"
#include "report/csv_report.hpp"
#include "report/html_report.hpp"
#include "report/markdown_report.hpp"
#include "report/tune.hpp"
#include "report/view.hpp"
#include "store/manifest.hpp"
#include "store/results.hpp"

namespace colltune {
namespace {

namespace fs = std::filesystem;

// Parses `args` with `app`; --help prints and returns true.
bool parse_or_help(CLI::App& app, const std::vector<std::string>& args,
                   const std::string& command) {
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    std::fputs(app.help().c_str(), stdout);
    return true;
  } catch (const CLI::ParseError& e) {
    throw ConfigError(fmt::format("{}; see colltune {} --help", e.what(), command));
  }
  return false;
}

double parse_fraction(const std::string& text, const std::string& flag) {
  std::string number = text;
  double scale = 1;
  if (!number.empty() && number.back() == '%') {
    number.pop_back();
    scale = 0.01;
  }
  double value = -1;
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec != std::errc() || end != number.data() + number.size() || value < 0) {
    throw ConfigError(
        fmt::format("{}: '{}' is not allowed; allowed: a percentage like 5% or a "
                    "fraction like 0.05",
                    flag, text));
  }
  return value * scale;
}

}  // namespace

int report_command(const std::vector<std::string>& args) {
  CLI::App app("colltune report: report.md, report.html and results.csv from results",
               "colltune report");
  std::string input, out_dir;
  app.add_option("results", input, "a sweep store (results/<id>), a run's JSONL or nccl-tests JSON")
      ->required();
  app.add_option("--out", out_dir, "where to write (default: the store, or the file's directory)");
  if (parse_or_help(app, args, "report")) return 0;
  const Dataset d = load_dataset(input);
  if (out_dir.empty()) {
    out_dir = fs::is_directory(input) ? input : fs::path(input).parent_path().string();
    if (out_dir.empty()) out_dir = ".";
  }
  if (!fs::is_directory(out_dir)) {
    throw ConfigError(
        fmt::format("--out: '{}' is not a directory; allowed: an existing directory", out_dir));
  }
  const ReportView view = make_report_view(d);
  const std::string stem = fs::is_directory(input) ? "" : fs::path(input).stem().string() + ".";
  const std::vector<std::pair<std::string, std::string>> files{
      {stem + "report.md", render_markdown(view)},
      {stem + "report.html", render_html(view)},
      {stem + "results.csv", render_csv(d)}};
  for (const auto& [name, text] : files) {
    const std::string path = (fs::path(out_dir) / name).string();
    write_file_atomic(path, text);
    fmt::print("report: wrote {}\n", path);
  }
  return 0;
}

int compare_command(const std::vector<std::string>& args) {
  CLI::App app("colltune compare: a CI gate, candidate against baseline", "colltune compare");
  std::string base, cand, slowdown = "5%", alpha = "0.05", junit;
  app.add_option("baseline", base)->required();
  app.add_option("candidate", cand)->required();
  app.add_option("--max-slowdown", slowdown, "the smallest slowdown that fails the gate (5%)");
  app.add_option("--alpha", alpha, "significance level of the Mann-Whitney test (0.05)");
  app.add_option("--junit", junit, "also write JUnit XML, one test case per comparison");
  if (parse_or_help(app, args, "compare")) return 0;
  CompareOptions o;
  o.max_slowdown = parse_fraction(slowdown, "--max-slowdown");
  o.alpha = parse_fraction(alpha, "--alpha");
  if (o.alpha <= 0 || o.alpha >= 1) {
    throw ConfigError(fmt::format("--alpha: '{}' is not allowed; allowed: between 0 and 1", alpha));
  }
  const Dataset a = load_dataset(base);
  const Dataset b = load_dataset(cand);
  const auto rows = compare(a, b, o);
  std::fputs(compare_markdown(rows, a, b, o).c_str(), stdout);
  if (!junit.empty()) write_file_atomic(junit, compare_junit(rows));
  return any_regression(rows) ? 1 : 0;
}

int tune_command(const std::vector<std::string>& args) {
  CLI::App app("colltune tune: configuration from a results store", "colltune tune");
  std::string input, emit, min_bytes = "0", max_bytes;
  app.add_option("results", input)->required();
  app.add_option("--emit", emit, "nccl-tuner, ompi-rules, env or openmetrics")->required();
  app.add_option("--min-bytes", min_bytes, "env: smallest size to optimise for");
  app.add_option("--max-bytes", max_bytes, "env: largest size to optimise for");
  if (parse_or_help(app, args, "tune")) return 0;
  TuneOptions o;
  const auto lo = parse_bytes(min_bytes);
  const auto hi =
      max_bytes.empty() ? std::optional<std::uint64_t>(UINT64_MAX) : parse_bytes(max_bytes);
  if (!lo)
    throw ConfigError(fmt::format(
        "--min-bytes: '{}' is not a size; allowed: bytes with an optional K, M or G suffix",
        min_bytes));
  if (!hi)
    throw ConfigError(fmt::format(
        "--max-bytes: '{}' is not a size; allowed: bytes with an optional K, M or G suffix",
        max_bytes));
  o.min_bytes = *lo;
  o.max_bytes = *hi;
  const std::vector<std::string> allowed{"nccl-tuner", "ompi-rules", "env", "openmetrics"};
  if (std::find(allowed.begin(), allowed.end(), emit) == allowed.end()) {
    throw ConfigError(fmt::format(
        "--emit: '{}' is not allowed; allowed: nccl-tuner ompi-rules env openmetrics", emit));
  }
  const Dataset d = load_dataset(input);
  std::string text;
  if (emit == "nccl-tuner") text = emit_nccl_tuner(d);
  if (emit == "ompi-rules") text = emit_ompi_rules(d);
  if (emit == "env") text = emit_env(d, o);
  if (emit == "openmetrics") text = emit_openmetrics(d);
  std::fputs(text.c_str(), stdout);
  return 0;
}

}  // namespace colltune
