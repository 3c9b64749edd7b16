#include "runner/run_options.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>

#include "core/errors.hpp"
#include "core/exchange.hpp"
#include "core/flag_values.hpp"
#include "core/sizes.hpp"
#include "core/suggest.hpp"
#include "core/validation.hpp"
#include "knobs/interleave.hpp"
#include "runner/nccl_options.hpp"
#include "runner/nccl_tests_flags.hpp"

namespace colltune {
namespace {

template <typename Enum>
std::vector<std::string> names_of(const std::vector<Enum>& values) {
  std::vector<std::string> out;
  for (Enum v : values) out.emplace_back(name(v));
  return out;
}

// "a,b" or "all" -> values; `parse` maps one name.
template <typename Enum, typename Parse>
std::vector<Enum> parse_list(const std::vector<std::string>& items, std::string_view flag,
                             std::string_view what, const std::vector<Enum>& all, Parse parse) {
  std::vector<Enum> out;
  for (const std::string& item : items) {
    if (item == "all") return all;
    const auto value = parse(item);
    if (!value) {
      throw ConfigError(fmt::format("{}: '{}' is not a {}; allowed: {} all", flag, item, what,
                                    fmt::join(names_of(all), " ")));
    }
    if (std::find(out.begin(), out.end(), *value) == out.end()) out.push_back(*value);
  }
  return out;
}

// CLI11 lists every unexpected argument, in reversed order; name the first one instead, with
// the nearest flag where it looks like a typo.
std::string unexpected_argument(const CLI::App& app, const std::vector<std::string>& args) {
  std::vector<std::string> known;
  for (const CLI::Option* option : app.get_options()) {
    for (const std::string& name : option->get_lnames()) known.push_back("--" + name);
    for (const std::string& name : option->get_snames()) known.push_back("-" + name);
  }
  for (const std::string& arg : args) {
    const std::string flag = arg.substr(0, arg.find('='));
    if (flag.size() < 2 || flag[0] != '-' ||
        std::find(known.begin(), known.end(), flag) != known.end()) {
      continue;
    }
    const auto near = nearest_word(flag, known);
    return fmt::format(
        "{}: not a colltune run flag{}; allowed: the flags colltune run --help lists", flag,
        near ? fmt::format(" (did you mean {}?)", *near) : "");
  }
  return "colltune run takes no positional arguments; allowed: flags only (see colltune run "
         "--help)";
}

// Racing is on wherever two or more settings are compared (--race off: the fixed budget). Its
// budget is --repetitions turns (20 unless given); ops per sample adapt unless -n or -m fix them.
void apply_race_options(RunOptions& o, const std::string& race, const std::string& futility,
                        const std::string& tie, const std::string& min_turns,
                        const std::string& sample_seconds, bool iters_given,
                        bool repetitions_given) {
  RunPolicy& policy = o.policy;
  for (const auto& [flag, value] : {std::pair{"--race", &race}, {"--race-futility", &futility}}) {
    if (*value != "on" && *value != "off") {
      throw ConfigError(fmt::format("{}: '{}' is not allowed; allowed: on off", flag, *value));
    }
  }
  policy.race_config.stop_futile = futility == "on";
  if (!tie.empty()) {
    policy.race_config.tie_tolerance = parse_number_flag(tie, "--race-tie", "%", 0.5, 50) / 100;
  }
  if (!sample_seconds.empty()) {
    policy.min_sample_seconds =
        parse_number_flag(sample_seconds, "--min-sample-seconds", " s", 1e-5, 10);
  }
  if (race == "off" || o.interleaved.size() < 2) return;  // nothing to race
  if (!repetitions_given) policy.repetitions = kRaceDefaultTurns;
  if (!min_turns.empty()) {
    policy.race_config.min_turns = static_cast<int>(
        parse_integer_flag(min_turns, "--race-min-turns", kRaceFewestTurns, policy.repetitions));
  } else if (policy.repetitions < policy.race_config.min_turns) {
    o.notes.push_back(fmt::format(
        "racing off: --repetitions {} is below the {} turns a decision needs; every setting "
        "gets {} samples",
        policy.repetitions, policy.race_config.min_turns, policy.repetitions));
    return;
  }
  policy.race = true;
  policy.adaptive_iters = !iters_given && o.backend_options.aggregate == 1;
}

}  // namespace

bool names_interleave(const std::vector<std::string>& args) {
  return std::any_of(args.begin(), args.end(),
                     [](const std::string& arg) { return arg.rfind("--interleave", 0) == 0; });
}

RunOptions parse_run_options(const std::vector<std::string>& args) {
  RunOptions o;
  CLI::App app("colltune run: measure collectives on the launched ranks", "colltune run");
  app.set_help_flag();  // handled below, so --help prints once and exits 0 on every rank
  std::string min_bytes, max_bytes, step_factor, step_bytes, iters, warmup, root, repetitions,
      window, timeout, timing = "batch", cache = "warm", in_place = "both", race = "on", race_tie,
                       race_min_turns, min_sample_seconds, allocator = "ncclmemalloc";
  std::vector<std::string> colls{"allreduce"}, dtypes{"float"}, ops{"sum"}, check;
  app.add_flag("-h,--help", o.help);
  app.add_option("--backend", o.backend);
  app.add_option("--coll", colls)->delimiter(',');
  app.add_option("-b,--minbytes", min_bytes);
  app.add_option("-e,--maxbytes", max_bytes);
  app.add_option("-f,--stepfactor", step_factor);
  app.add_option("-i,--stepbytes", step_bytes);
  app.add_option("-n,--iters", iters);
  app.add_option("-w,--warmup_iters", warmup);
  auto* check_option = app.add_option("-c,--check", check)->expected(0, 1);
  app.add_option("-d,--datatype", dtypes)->delimiter(',');
  app.add_option("-o,--op", ops)->delimiter(',');
  app.add_option("-r,--root", root);
  app.add_option("--timing", timing);
  app.add_option("--cache", cache);
  app.add_option("--repetitions", repetitions);
  std::string reduction;
  app.add_option("-a,--average", reduction);
  app.add_option("--window", window);
  app.add_flag("--rank-samples", o.policy.rank_samples);
  app.add_flag("--copy-ceiling", o.copy_ceiling);
  app.add_flag("--phase-times", o.phase_times);
  std::string exchange = "uniform", exchange_seed;
  app.add_option("--exchange", exchange);
  app.add_option("--exchange-seed", exchange_seed);
  app.add_option("--in-place", in_place);
  auto& bo = o.backend_options;
  app.add_option("-g,--gpus,--ngpus", bo.gpus)->check(CLI::Range(1, 1024));
  app.add_option("-m,--agg_iters", bo.aggregate)->check(CLI::Range(1, 1024));
  app.add_option("--device", bo.device)->check(CLI::Range(0, 1023));
  app.add_option("--nccl-blocking", bo.nccl_blocking)->check(CLI::Range(0, 1));
  app.add_option("--cga-cluster-size", bo.cga_cluster_size)->check(CLI::Range(0, 8));
  app.add_option("--min-ctas", bo.min_ctas)->check(CLI::Range(1, 64));
  app.add_option("--max-ctas", bo.max_ctas)->check(CLI::Range(1, 64));
  app.add_option("--net-name", bo.net_name);
  app.add_option("--allocator", allocator);
  std::string buffers = "host";  // not --memory: nccl-tests' -M/--memory means something else
  app.add_option("--buffers", buffers);
  std::string split = "none";
  app.add_option("--split", split);
  std::vector<std::string> interleave, interleave_sets;
  app.add_option("--interleave", interleave)->allow_extra_args(false);
  app.add_option("--interleave-set", interleave_sets)->allow_extra_args(false);
  app.add_option("--race", race);
  app.add_option("--race-tie", race_tie);
  std::string race_futility = "on";
  app.add_option("--race-futility", race_futility);
  app.add_option("--race-min-turns", race_min_turns);
  app.add_option("--race-after", o.race_after_path);
  app.add_option("--min-sample-seconds", min_sample_seconds);
  app.add_option("--json", o.json_path);
  app.add_option("-T,--timeout", timeout);
  int threads = 1;
  app.add_option("-t,--nthreads", threads);
  app.add_flag("--test-corrupt", o.policy.corrupt_one)->group("");
  app.add_option("--test-hang-rank", o.policy.hang_rank)->group("");
  app.add_flag("--test-hang-after-first-op", o.policy.hang_after_first_op)->group("");
  app.add_option("--test-stop-rank", o.policy.stop_rank)->group("");
  app.add_option("--test-skip-rank", o.policy.skip_rank)->group("");
  app.add_option("--test-hang-setup-rank", o.policy.hang_setup_rank)->group("");
  app.add_option("--test-delay-rank", o.policy.delay_rank)->group("");
  app.add_option("--test-delay-seconds", o.policy.delay_seconds)->group("");
  app.add_option("--test-delay-setting", o.policy.delay_setting)->group("");
  NcclTestsFlags nccl_tests_flags;
  add_nccl_tests_flags(app, nccl_tests_flags);

  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::ExtrasError&) {
    throw ConfigError(unexpected_argument(app, args));
  } catch (const CLI::ParseError& e) {
    throw ConfigError(fmt::format("{}; see colltune run --help", e.what()));
  }
  if (o.help) return o;

  o.colls = parse_list(colls, "--coll", "collective", all_coll_kinds(), parse_coll_kind);
  o.dtypes = parse_list(dtypes, "-d/--datatype", "datatype", all_dtypes(), parse_dtype);
  o.ops = parse_list(ops, "-o/--op", "reduction op", all_reduce_ops(), parse_reduce_op);
  if (!min_bytes.empty()) o.min_bytes = parse_size_flag(min_bytes, "-b/--minbytes");
  if (!max_bytes.empty()) o.max_bytes = parse_size_flag(max_bytes, "-e/--maxbytes");
  if (!step_bytes.empty()) o.step_bytes = parse_size_flag(step_bytes, "-i/--stepbytes");
  if (!step_factor.empty()) {
    o.step_factor =
        static_cast<std::uint64_t>(parse_integer_flag(step_factor, "-f/--stepfactor", 1, 1 << 20));
  }
  if (!step_bytes.empty() && o.step_factor > 1) {
    // nccl-tests multiplies when -f is above 1 and never adds -i then: said, not dropped
    // silently (a sweep spec may carry both, documented as "-i when step_factor is 1").
    o.notes.push_back(fmt::format(
        "-i/--stepbytes {} is not used: -f/--stepfactor {} multiplies each size (-i adds only "
        "with -f 1)",
        step_bytes, o.step_factor));
  }
  sweep_sizes(o.min_bytes, o.max_bytes, o.step_factor, o.step_bytes);  // throws if empty/endless
  auto& policy = o.policy;
  if (!iters.empty())
    policy.iters = static_cast<int>(parse_integer_flag(iters, "-n/--iters", 1, 1'000'000));
  if (!warmup.empty()) {
    policy.warmup_iters =
        static_cast<int>(parse_integer_flag(warmup, "-w/--warmup_iters", 0, 1'000'000));
  }
  if (!repetitions.empty()) {
    policy.repetitions =
        static_cast<int>(parse_integer_flag(repetitions, "--repetitions", 1, 1'000'000));
  }
  if (check_option->count() > 0) {
    policy.check_rounds =
        check.empty() || check[0].empty()
            ? 1
            : static_cast<int>(parse_integer_flag(check[0], "-c/--check", 0, 100));
  }
  if (!reduction.empty()) {
    // nccl-tests' -a numbers, or their names.
    const std::vector<std::pair<std::string, RankReduction>> forms{
        {"0", RankReduction::kRank0},     {"1", RankReduction::kMean},
        {"2", RankReduction::kMin},       {"3", RankReduction::kMax},
        {"rank0", RankReduction::kRank0}, {"mean", RankReduction::kMean},
        {"min", RankReduction::kMin},     {"max", RankReduction::kMax}};
    const auto it = std::find_if(forms.begin(), forms.end(),
                                 [&](const auto& form) { return form.first == reduction; });
    if (it == forms.end()) {
      throw ConfigError(fmt::format(
          "-a/--average: '{}' is not allowed; allowed: 0 rank0, 1 mean, 2 min, 3 max (nccl-tests' "
          "values, or the names)",
          reduction));
    }
    policy.rank_reduction = it->second;
  }
  if (!root.empty()) o.root = static_cast<int>(parse_integer_flag(root, "-r/--root", -1, 1 << 24));
  if (!window.empty()) o.window = static_cast<int>(parse_integer_flag(window, "--window", 1, 1024));
  const auto seed = exchange_seed.empty()
                        ? 1
                        : parse_integer_flag(exchange_seed, "--exchange-seed", 0, INT64_MAX);
  o.exchange = parse_exchange(exchange, static_cast<std::uint64_t>(seed), "--exchange");
  if (timing == "batch") {
    policy.timing = TimingMode::kBatch;
  } else if (timing == "per-op") {
    policy.timing = TimingMode::kPerOp;
  } else {
    throw ConfigError(
        fmt::format("--timing: '{}' is not a timing mode; allowed: batch per-op", timing));
  }
  apply_nccl_tests_flags(app, nccl_tests_flags, app.count("--timing") > 0, o);
  if (cache == "warm") {
    policy.cache = CacheMode::kWarm;
  } else if (cache == "cold") {
    policy.cache = CacheMode::kCold;
  } else {
    throw ConfigError(fmt::format("--cache: '{}' is not a cache mode; allowed: warm cold", cache));
  }
  if (in_place != "both" && in_place != "only" && in_place != "never") {
    throw ConfigError(fmt::format(
        "--in-place: '{}' is not an in-place mode; allowed: both only never", in_place));
  }
  o.in_place = in_place != "never";
  o.out_of_place = in_place != "only";
  if (!timeout.empty()) {
    double seconds = -1;
    auto [end, ec] = std::from_chars(timeout.data(), timeout.data() + timeout.size(), seconds);
    if (ec != std::errc() || end != timeout.data() + timeout.size() || !(seconds >= 0) ||
        !std::isfinite(seconds)) {
      throw ConfigError(fmt::format(
          "--timeout: '{}' is not allowed; allowed: seconds >= 0 (0 turns the limit off)",
          timeout));
    }
    o.timeout_seconds = seconds;
  }
  policy.sync_timeout = std::chrono::milliseconds(static_cast<long long>(o.timeout_seconds * 1000));
  if (bo.aggregate > 1) {
    if (o.backend == "mpi" || policy.timing != TimingMode::kBatch) {
      throw ConfigError(fmt::format(
          "-m/--agg_iters: {} groups ops into one NCCL launch; allowed: 1, or --backend nccl "
          "with --timing batch",
          bo.aggregate));
    }
    // -n and -w count iterations of -m grouped ops; samples count ops.
    policy.iters *= bo.aggregate;
    policy.warmup_iters *= bo.aggregate;
  }
  o.interleaved = parse_interleave(interleave, interleave_sets);
  if (const std::string kind = interleave_backend(o.interleaved);
      !kind.empty() && kind != o.backend) {
    throw ConfigError(fmt::format(
        "--interleave: {}; allowed: with --backend {}, not {}",
        kind == "mpi" ? "switches Open MPI parameters through MPI_T"
                      : "switches NCCL_ALGO / NCCL_PROTO at each NCCL communicator init",
        kind, o.backend));
  }
  apply_race_options(o, race, race_futility, race_tie, race_min_turns, min_sample_seconds,
                     !iters.empty(), !repetitions.empty());
  if (!o.race_after_path.empty() && !o.policy.race) {
    throw ConfigError(fmt::format(
        "--race-after: {}: races again what that launch left open, and this run does not race; "
        "allowed: with two or more --interleave settings and --race on",
        o.race_after_path));
  }
  if (threads != 1)
    throw ConfigError(
        fmt::format("-t/--nthreads: {}: colltune drives a process's GPUs from one "
                    "thread (grouped NCCL calls); allowed: 1, and -g N for N GPUs "
                    "per process",
                    threads));
  check_nccl_options(app, allocator, o);
  const bool alltoallv =
      std::find(o.colls.begin(), o.colls.end(), CollKind::kAlltoallv) != o.colls.end();
  if (!alltoallv && (app.count("--exchange") > 0 || app.count("--exchange-seed") > 0)) {
    throw ConfigError(fmt::format(
        "--exchange{}: '{}' shapes alltoallv's counts and this run measures no alltoallv; "
        "allowed: with --coll alltoallv",
        app.count("--exchange") > 0 ? "" : "-seed",
        app.count("--exchange") > 0 ? exchange : exchange_seed));
  }
  if (!o.nccl_tests_json_path.empty() && (o.colls.size() > 1 || !o.interleaved.empty())) {
    throw ConfigError(fmt::format(
        "-J/--output_file: nccl-tests' JSON holds one collective and one configuration per file, "
        "and this run measures {}; allowed: one --coll and no --interleave with -J (or --json "
        "FILE for colltune's records, which hold any mix)",
        o.colls.size() > 1 ? fmt::format("{} collectives", o.colls.size())
                           : fmt::format("{} settings", o.interleaved.size())));
  }
  if (buffers != "host" && buffers != "device") {
    throw ConfigError(fmt::format(
        "--buffers: '{}' is not allowed; allowed: host device (where the MPI backend's buffers "
        "live)",
        buffers));
  }
  // NCCL's buffers are always on the GPU: device is what it does anyway, so a sweep can pass
  // one --buffers device to both backends.
  if (o.backend == "nccl" && buffers == "host" && app.count("--buffers") > 0) {
    throw ConfigError(
        "--buffers: host is not possible with --backend nccl (NCCL moves GPU memory); allowed: "
        "device, or --backend mpi");
  }
  bo.device_memory = o.backend == "mpi" && buffers == "device";
  if (split != "none" && split != "host") {
    throw ConfigError(fmt::format("--split: '{}' is not allowed; allowed: none host", split));
  }
  bo.split_by_host = split == "host";
  if (o.backend == "mpi" && bo.gpus != 1) {
    throw ConfigError(fmt::format(
        "-g/--gpus: {} needs a GPU backend; allowed: 1 with --backend mpi, or --backend nccl",
        bo.gpus));
  }
  return o;
}

}  // namespace colltune
