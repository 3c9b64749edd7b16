#!/usr/bin/env python3
"""Do the tests catch a wrong number? Applies one-line mutants to src/ one at a time, rebuilds
incrementally, runs the tests that should notice (a ctest regex), restores the file, and prints
killed / survived for each. A mutant that does not build is "stillborn" (say so: it proves
nothing). Restores every file even when interrupted. Run from a clean tree."""
import argparse
import os
import subprocess
import sys
import time

MUTANTS = [
    # (file, original, mutant, tests, what a user would get)
    ("src/core/stats.cpp", "tie_term / (n * (n - 1))", "0.0 / (n * (n - 1))", "MannWhitney",
     "Mann-Whitney without the tie correction"),
    ("src/core/stats.cpp", "const double lo_rank = std::floor((n - half_width) / 2);",
     "const double lo_rank = std::floor((n - half_width) / 2) + 1;", "Summarize",
     "median interval one rank too narrow"),
    ("src/core/bandwidth.cpp", "    case CollKind::kAlltoall:\n    case CollKind::kAlltoallv:",
     "    case CollKind::kAlltoallv:\n      return 1.0;\n    case CollKind::kAlltoall:", "Bandwidth|RecordCodec|report\\.",
     "alltoall bus factor 1"),
    ("src/core/decision.cpp", "const double diff = mean_of(b) - mean_of(a);",
     "const double diff = mean_of(a) - mean_of(b);", "TestLaunches|GateSimulation",
     "slower and faster swapped"),
    ("src/core/decision.cpp", "static_cast<double>(m) / static_cast<double>(k + 1)",
     "static_cast<double>(m) / static_cast<double>(k + 2)", "BenjaminiHochberg",
     "Benjamini-Hochberg off by one rank"),
    ("src/core/decision.cpp", "const double df = (va + vb) * (va + vb) / (va * va / (na - 1) + vb * vb / (nb - 1));",
     "const double df = na + nb - 2;", "TestLaunches", "Student's df for Welch's test"),
    ("src/core/validation.cpp", "if (k == CollKind::kReduceScatter || k == CollKind::kAlltoall || k == CollKind::kScatter ||",
     "if (k == CollKind::kAlltoall || k == CollKind::kScatter ||", "Validation|validate_all\\.np2",
     "reduce_scatter send buffer one block"),
    ("src/runner/measure.cpp", "seconds_per_launch / 2 : seconds_per_launch",
     "seconds_per_launch : seconds_per_launch", "MeasureTest|delay_rank\\.np2",
     "pingpong reports the whole round trip"),
    ("src/runner/measure.cpp", "    return timer->seconds() / policy.iters;",
     "    return timer->seconds();", "MeasureTest", "batch time not divided by its ops"),
    ("src/runner/measure.cpp", "(policy.cold_footprint_bytes + set_stride_bytes - 1) / set_stride_bytes;",
     "policy.cold_footprint_bytes / set_stride_bytes / 2;", "MeasureTest|Plan", "cold cache half the footprint"),
    ("src/runner/measure.cpp", "  return total / policy.iters;", "  return total;", "MeasureTest",
     "per-op sample is the sum, not the mean"),
    ("src/comm/mpi_world.cpp", ": how == RankReduction::kMax ? MPI_MAX",
     ": how == RankReduction::kMax ? MPI_MIN",
     "delay_rank\\.np2", "the fastest rank defines a collective"),
    ("src/comm/mpi_world.cpp", "MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD",
     "MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD", "corrupt\\.np4", "#wrong not summed over ranks"),
    ("src/store/atomic_file.cpp", 'const std::string file = t.write_through ? t.path : t.path + ".tmp";',
     "const std::string file = t.path;", "AtomicWrite", "manifest rewritten in place"),
    ("src/store/atomic_file.cpp", "t.write_through = !S_ISREG(st.st_mode) || via_descriptor;",
     "t.write_through = false;", "OutputPath|hostile", "/dev/full and FIFOs replaced by files"),
    ("src/store/atomic_file.cpp", "if (!why.empty()) throw refuse(fmt::format(\"cannot be written in",
     "if (false) throw refuse(fmt::format(\"cannot be written in", "hostile",
     "an unwritable directory found only after the work"),
    ("src/store/record.cpp", "if (!std::isfinite(s) || s < kMinSampleSeconds || s > kMaxSampleSeconds) {",
     "if (!std::isfinite(s) || s <= 0) {", "hostile", "a denormal sample believed"),
    ("src/store/record.cpp", "if (!std::isfinite(s) || s < kMinSampleSeconds || s > kMaxSampleSeconds) {",
     "if (!std::isfinite(s)) {", "RecordCodec", "negative samples believed"),
    ("src/store/results.cpp", "if (same_input(earlier, path)) same = &earlier;",
     "if (false) same = &earlier;", "hostile", "one launch given twice counts twice"),
    ("src/apps/gate_options.cpp", "!(value >= kMinAlpha) ||", "!(value > 0) ||",
     "hostile|history_cli", "--alpha 1e-300 accepted: a regression reads ok"),
    ("src/apps/gate_options.cpp", 'if (!number_in("launch_sd_log", 0, kMaxNoiseFloorSdLog, false))',
     'if (!number_in("launch_sd_log", 0, 1e308, false))', "hostile",
     "a noise floor of 1e308 accepted: the gate passes"),
    ("src/sweep/expand.cpp", "if (product > max_points) {", "if (false) {", "Expand",
     "five axes of 50 values exhaust memory"),
    ("src/sweep/expand.cpp", "p.id = point_id(p.shown);", "p.id = point_id(settings);",
     "sweep\\.sweep_secrets", "point ids confirm guessed secrets"),
    ("src/core/environment.cpp", "out.push_back(secret ? word.substr(0, eq + 1) + kRedacted : word);",
     "out.push_back(word);", "sweep\\.sweep_secrets", "launcher_args secrets in the manifest"),
    ("src/report/tune.cpp", "if (!is_env_key(key) || is_secret_variable(key) ||",
     "if (!is_env_key(key) ||", "report\\.tune_agrees", "tune exports a redacted secret"),
    ("src/sweep/sweep_store.cpp", "        damaged.push_back(", "        if (false) damaged.push_back(",
     "sweep\\.sweep_resume_damage", "resume trusts a torn records file"),
    ("src/sweep/fail_fast.cpp", "step.stop = ++alike_ >= kFailFastLaunches;", "step.stop = false;",
     "sweep\\.sweep_fail_fast", "every launch fails alike, the sweep goes on"),
    ("src/sweep/preflight.cpp", "::geteuid() == 0 && !root_consented(spec)) {",
     "::geteuid() == 0 && false) {", "sweep\\.sweep_fail_fast", "root without consent found late"),
    ("src/core/failure_reason.cpp", "if (!contains_any(text, kConsequences) && contains_any(text, kCauses)) return line;",
     "if (false) return line;", "FailureReason|sweep\\.sweep_fail_fast", "mpirun's last line as the cause"),
    ("src/report/svg_chart.cpp", "const int step = std::max(1, (top_decade - bottom_decade + 11) / 12);",
     "const int step = 1;", "ChartAxes", "hundreds of axis ticks"),
    ("src/sweep/spec_parser.hpp", "      if (!fresh) {\n        fail(entry.first, path,",
     "      if (false) {\n        fail(entry.first, path,", "hostile", "duplicate YAML keys accepted"),
    ("src/knobs/interleave.cpp", "    if (!problem) return *value;", "    return *value;", "hostile",
     "--interleave 99 fails mid-run"),
    ("src/report/tune.cpp", "shell_single_quote(unescape_bytes(*best))", "shell_single_quote(*best)",
     "report\\.tune_agrees", "tune exports doubled backslashes"),
    ("src/store/record.cpp", "std::abs(r.bus_factor - expected) > 1e-9 * expected",
     "std::abs(r.bus_factor - expected) > 1e9 * expected", "RecordCodec", "any bus factor believed"),
    ("src/store/results.cpp", "!fresh) {", "false) {", "RecordFiles", "duplicated records accepted"),
    ("src/store/nccl_tests_import.cpp", "static_cast<long long>(devices.size()) * threads * gpus",
     "static_cast<long long>(devices.size())", "RecordFiles", "nccl-tests -g 8 read as one rank"),
    ("src/sweep/expand.cpp", 'key + "=" + value + "\\n"', "key + value", "SweepSpec|Expand|Sweep",
     "point id hashed without separators"),
    ("src/sweep/expand.cpp", "if (seen.insert(s).second) kept.push_back(std::move(s));",
     "kept.push_back(std::move(s));", "Expand", "a combination given twice runs twice"),
    ("src/sweep/expand.cpp", "      if (!seen.count(base)) {", "      if (true) {", "Expand",
     "the baseline added though the product holds it"),
    ("src/sweep/groups.cpp", "if (setting_name(knobs) == wanted)", "if (setting_name(knobs) != wanted)",
     "SweepGroups", "interleaved records given to the wrong point"),
    ("src/report/compare.cpp", "const double tolerated = 1 + o.max_slowdown;",
     "const double tolerated = 1 - o.max_slowdown;",
     "report\\.report_cli", "--max-slowdown ignored"),
    ("src/report/compare.cpp", "return gap && !o.allow_incomplete ? 3 : 0;", "return 0;",
     "report\\.report_cli|GateSimulation", "the gate fails open"),
    ("src/report/analysis.cpp", "    if (settings_affect(p.settings, b ? b->settings : none, panel.key.collective, backend))\n      continue;",
     "    if (true) continue;", "report\\.(golden|report_cli|html_chromium)",
     "knobs that cannot matter become candidates"),
    ("src/report/tune.cpp", "if (algo.empty() || proto.empty() || nodes < 1) {",
     "if (algo.empty() || nodes < 1) {", "report\\.(tuner_file|golden)",
     "tuner row forces an unmeasured protocol"),
    ("src/report/view.cpp", "const bool named = v.significant || !v.runner_up;", "const bool named = true;",
     "report\\.(report_cli|golden)|interleave\\.np2", "a winner named without significance"),
    ("src/report/console_reporter.cpp", "constexpr double kNoisyCiWidth = 0.10;",
     "constexpr double kNoisyCiWidth = 0.50;", "ConsoleReporter", "noisy medians not marked"),
    ("src/knobs/knob_scope.cpp", "      if (nccl_algorithms_of(collective).empty()) return false;",
     "      if (is_point_to_point_name(collective)) return false;", "KnobScope|report\\.golden",
     "NCCL_ALGO believed to change alltoall"),
    # The NCCL path (issue 27): what the unit and MPI tests must notice without a GPU.
    ("src/core/pattern_math.hpp", "e.bound = u * magnitude * (1 + growth)",
     "e.bound = 4 * u * magnitude * (1 + growth)", "Pattern", "nccl: float avg bound 4x loose"),
    ("src/core/pattern_math.hpp", "e.bound = u * magnitude * (1 + growth)",
     "e.bound = u * magnitude * growth", "Pattern", "nccl: avg bound without the products"),
    ("src/core/pattern.cpp", "? 0x80 : 0xFF;", "? 0xFF : 0xFF;", "Pattern",
     "nccl: int8 poison is the legal -1"),
    ("src/backends/nccl/gpu_choice.cpp", "gpus == 1 && local_rank >= visible", "false",
     "GpuChoice", "nccl: two ranks share a GPU"),
    ("src/knobs/knobs.cpp", "if (!first || !list_ok(entry)) return allowed;",
     "if (!list_ok(entry)) return allowed;", "Knobs", "nccl: a bare NCCL_ALGO entry after the first"),
    ("src/knobs/knob_scope.cpp", "if (start == 0) found = entry;", "if (false) found = entry;",
     "KnobScope", "nccl: the mixed NCCL_ALGO form's first entry ignored"),
    ("src/knobs/knob_scope.cpp", "      !nvls_reduces(dtype, op)) {", "      false) {", "KnobScope",
     "nccl: NVLS believed to reduce int8"),
    ("src/runner/measure.cpp", "comm_.prepare(m_.coll, *buffers_, batch ? ops : 1, batch ? 1 : ops);",
     "", "MeasureTest", "nccl: graphs calibrated eagerly"),
    ("src/runner/measure.cpp", "if (world.sum_over_ranks(mine ? 1 : 0) == 0) return std::nullopt;",
     "return mine;", "skip_rank", "a skip one rank takes alone"),
    ("src/apps/run_command.cpp", 'watchdog.arm(watchdog_limit, "creating the communicators (" +',
     'watchdog.arm(std::chrono::milliseconds(0), "creating the communicators (" +', "hang_setup",
     "a rank missing at init hangs the job"),
    ("src/backends/nccl/nccl_config.cpp", "v && (*v == 0 || *v == 1)) {", "false) {", "NcclConfig",
     "nccl: NCCL_COMM_BLOCKING recorded as the flag's value"),
    ("src/core/env_switch.cpp", "policy != nullptr && *policy != '\\0') {", "false) {",
     "NcclEnvSwitch", "nccl: --interleave under NCCL_CTA_POLICY"),
    # colltune's NCCL tuner plugin and verify (issue 28).
    ("src/tuner_plugin/tuned_rules.cpp", "  if (!runnable) return d;", "  if (false) return d;",
     "TunerPlugin", "tuner: a -1 cell chosen"),
    ("src/tuner_plugin/tuned_rules.cpp", "if (!allowed(a, p)) table[a * num_proto + p] = -1.0f;",
     "if (allowed(a, p)) table[a * num_proto + p] = -1.0f;", "TunerPlugin",
     "tuner: the row's own cells ruled out"),
    ("src/tuner_plugin/tuned_rules.cpp", "b.min_bytes <= a.max_bytes) {",
     "b.min_bytes < a.min_bytes) {", "TunerPlugin", "tuner: overlapping rows accepted"),
    ("src/tuner_plugin/plugin.cpp", 'if (set("NCCL_ALGO") || set("NCCL_PROTO")) {',
     'if (set("NCCL_ALGO")) {', "TunerPlugin", "tuner: fights the user's NCCL_PROTO"),
    ("src/tuner_plugin/plugin.cpp", "row.nnodes == nnodes && row.nranks == nranks",
     "row.nnodes == nnodes", "TunerPlugin", "tuner: rows for other rank counts applied"),
    ("src/report/verify.cpp", "  if (slow_rows > 0) {", "  if (false) {", "sweep\\.verify",
     "verify: a slower file passes"),
    # Issue 48: every gate fails closed; nothing colltune reads crashes or hangs it.
    ("src/report/compare.cpp", "    } else if (!(c.ratio_high <= tolerated)) {", "    } else if (false) {",
     "GateClosed|report_cli", "compare: a slowdown the interval does not rule out reads same"),
    ("src/report/compare.cpp", "  if (compared_count(rows) == 0) return 3;", "  if (false) return 3;",
     "GateClosed|hostile", "compare: nothing compared passes with --allow-incomplete"),
    ("src/report/compare.cpp", "  if (compared_count(rows) == 0) {", "  if (false) {",
     "GateClosed|report_cli", "compare --junit: an empty gate is tests=0, green"),
    ("src/report/compare.cpp", "    if (old.wrong > 0 || (now && now->wrong > 0)) {", "    if (false) {",
     "GateClosed|hostile", "compare: wrong results called faster"),
    ("src/report/compare.cpp",
     "    if (old.nranks.size() > 1 || now->nranks.size() > 1 || old.nranks != now->nranks) {",
     "    if (*old.nranks.rbegin() != *now->nranks.rbegin()) {", "GateClosed",
     "compare: only the last record's rank count checked (the verdict follows argument order)"),
    ("src/report/verify.cpp", "  if (!(s.test.ratio_high <= 1 + kVerifyMaxSlowdown)) {", "  if (false) {",
     "VerifyClosed", "verify: [0.005, 514] reads nowhere shown slower"),
    ("src/report/verify.cpp", "  if (s.wrong > 0) return kWrongResults;", "  if (false) return kWrongResults;",
     "VerifyClosed", "verify: wrong results deployable"),
    ("src/report/analysis.cpp", "      return panel.cells.at(id).at(bytes).wrong.value_or(0) > 0;",
     "      return false;", "GateClosed", "report: a setting with wrong results named fastest"),
    ("src/history/history_findings.cpp", "  if (v.back().wrong > 0) {", "  if (false) {", "history_cli",
     "history: wrong results in the newest run pass the gate"),
    ("src/history/history_findings.cpp", '    return changed.empty() ? "outlier" : "slower";',
     '    return "outlier";', "history_cli",
     "history: a slow newest run with a changed context waits a night"),
    ("src/history/history_findings.cpp", "  h.nothing_judged = judged == 0;", "  h.nothing_judged = false;",
     "history_cli|hostile", "history: a gate that judged nothing passes"),
    ("src/history/history_data.cpp", "    if (*when > latest_allowed) {", "    if (false) {",
     "history_cli|hostile", "history: a run stamped 2099 hides every real one"),
    ("src/history/history_data.cpp", "    if (!fresh) {", "    if (false) {", "history_cli",
     "history: one run given twice counts twice"),
    ("src/core/timestamp.cpp", "  if (back.tm_year != given.tm_year || back.tm_mon != given.tm_mon ||",
     "  if (false && back.tm_mon != given.tm_mon &&", "Timestamp|history_cli", "2026-02-29 accepted"),
    ("src/core/json_depth.hpp", "      if (++depth > limit) return false;", "      ++depth;",
     "JsonDepth|TunedRules|hostile|TunerPlugin", "100,000 levels of nesting overflow the stack"),
    ("src/core/regular_file.hpp", "  } else if (!S_ISREG(st.st_mode)) {", "  } else if (false) {",
     "RegularFile|hostile", "a FIFO read as an empty file"),
    ("src/apps/push_command.cpp", 'return !v.empty() && v != "." && v != ".." &&', "return !v.empty() &&",
     "hostile", "push: --job .. pushes into another group"),
    ("src/apps/push_command.cpp", '  return control_escaped(url.substr(0, host_at + 2) + "***@" + url.substr(at + 1));',
     "  return control_escaped(url);", "hostile", "push: the URL's password printed"),
    ("src/apps/push_command.cpp", "  if (!scheme || control || url.size() <= host_at ||",
     "  if (!scheme || url.size() <= host_at ||", "hostile", "push: CR LF in --gateway accepted"),
    ("src/store/record.cpp", "        if (variable_like && is_secret_variable(key) && !value.is_structured() &&",
     "        if (false && !value.is_structured() &&", "RedactedContext|history_cli",
     "a hand-written run file's secret printed by history"),
    ("src/apps/gate_options.cpp", "  if (text.empty() || (text.back() != '%' && text.back() != 'x')) throw refuse();",
     "  if (text.empty()) throw refuse();", "hostile|history_cli", "--min-change 5 read as 500%"),
    ("src/store/nccl_tests_text.cpp", "    if (std::find(fits.begin(), fits.end(), *named) != fits.end()) return *named;",
     "    return *named;", "text_logs", "a log named reduce_perf whose table is allreduce read as reduce"),
    ("src/store/nccl_tests_text.cpp", "        if (s.failed_checks > 0 && r.wrong.value_or(0) == 0) r.wrong = s.failed_checks;",
     "", "text_logs", "nccl-tests' FAILED log compared as fine"),
    ("src/store/nccl_tests_import.cpp", "        if (failed_checks > 0 && r.wrong.value_or(0) == 0) r.wrong = failed_checks;",
     "", "hostile", "nccl-tests -J okay:false compared as fine"),
    ("src/store/nccl_tests_import.cpp", "    if (wide_ranks > kMaxImportedRanks) {", "    if (false) {",
     "hostile", "65536 x 65536 ranks a process wrapped to a small count"),
    ("src/tuner_plugin/tuned_rules.cpp", "  if (!keys.duplicate.empty())", "  if (false)",
     "TunedRules|hostile", "a tuned file's duplicate key read as its last"),
    ("src/report/tuned_read.cpp", "      if (comm_size < 1 || comm_size > INT_MAX) {", "      if (comm_size < 1) {",
     "hostile", "a rules file's comm size 3e9 accepted"),
    ("src/apps/colltune.cpp", "      return 2;\n    }\n    const std::string& step", "      return 1;\n    }\n    const std::string& step",
     "hostile", "a full disk under compare --junit exits 1, 'slower'"),
    ("src/report/escape.cpp", "        out += control_escaped(std::string_view(&ch, 1));",
     "        out += ch;", "HtmlEscape", "a control character breaks the JUnit XML"),
    ("src/sweep/spec.cpp", "  if (spec.name.empty() || spec.name.size() > 200 ||", "  if (spec.name.empty() ||",
     "hostile",
     "a 300-character sweep name fails at the first launch"),
    ("src/apps/health_command.cpp", "    const auto [first, fresh] = seen.emplace(ascii_lower(h), h);",
     "    const auto [first, fresh] = seen.emplace(h, h);", "hostile", "health: node1 and NODE1 both run"),
    ("src/apps/import_command.cpp", "  if (!fs::create_directory(out)) {",
     "  if (!fs::create_directories(out) && false) {", "text_logs",
     "two imports racing for one store both write it"),
    ("src/apps/push_command.cpp", "std::max(1L, static_cast<long>(std::ceil(seconds * 1000)))",
     "static_cast<long>(seconds * 1000)", "pushgateway", "push --timeout 1e-9 waits for ever"),
    ("src/apps/push_command.cpp", "control_escaped(answer.substr(0, 300)).c_str()",
     "answer.substr(0, 300).c_str()", "pushgateway", "a gateway's escape sequences reach the terminal"),
    ("src/apps/verify_command.cpp", "    for (std::size_t at = text.find(spec_path); at != std::string::npos;",
     "    for (std::size_t at = std::string::npos; at != std::string::npos;", "hostile",
     "verify's errors name a temporary spec that is gone"),
    ("src/health/fleet_score.cpp", "const double others = std::max(all_squares - cell_squares[i], 0.0);",
     "const double others = all_squares * static_cast<double>(c.df) / static_cast<double>(s.df);",
     "HealthAlone", "a throttled node's erratic launches hide it from stage 1"),
    ("src/report/size_bound.cpp", "  if (all.size() <= kMaxShownSizes) return all;", "  return all;",
     "SizeBound", "a run of 10^6 sizes writes a 660 MB HTML page"),
    ("src/report/size_bound.cpp", "    kept.insert(at == sizes.end() ? sizes.back() : *at);",
     "    kept.insert(sizes[t * (sizes.size() - 1) / (kMaxShownSizes - 1)]);", "SizeBound",
     "a linear scan's table shows only its largest decade"),
    ("src/report/view.cpp", "    if (shown.count(v.bytes)) view.winners.push_back(std::move(row));",
     "    view.winners.push_back(std::move(row));", "SizeBound",
     "the winners table lists every one of 10^6 sizes"),
    ("src/report/answer.cpp", "  if (open_ && (advice != advice_ || verdict != verdict_)) close();",
     "  if (open_ && advice != advice_) close();", "Answer",
     "a significant and an unsignificant range merge into one answer"),
    ("src/report/size_bound.cpp", "  if (answer.lines.size() <= kMaxAnswerLines) return;", "  return;",
     "SizeBound", "an answer of 10^6 alternating ranges"),
    ("src/knobs/knob_scope.cpp", "  if (!invalid_usage || !algo_or_proto_set) return std::nullopt;",
     "  if (!invalid_usage) return std::nullopt;", "KnobScope",
     "NCCL with nothing to run at its own choice reads as a skipped setting"),
    ("src/knobs/knob_scope.cpp", "      if (nccl_algorithms_of(collective).empty()) return false;",
     "      if (collective == \"alltoall\" || is_point_to_point_name(collective)) return false;",
     "KnobScope", "NCCL_ALGO points on gather, scatter and alltoallv measure the baseline again"),
    ("src/core/validation.cpp", "std::memset(recv, poison_byte(c.dtype), counts.recv * element_bytes(c.dtype));",
     "std::memset(recv, 0xFF, counts.recv * element_bytes(c.dtype));", "Validation",
     "an int output never written passes where -1 was expected"),
    ("src/core/nccl_version.hpp", "inline constexpr int kNcclFloorCode = 22203;",
     "inline constexpr int kNcclFloorCode = 21903;", "NcclVersion",
     "NCCL 2.21 accepted, to die at the first probe with a symbol lookup error"),
    ("src/tuner_plugin/plugin.cpp",
     "__attribute__((visibility(\"default\"))) ncclTuner_v7_t ncclTunerPlugin_v7 = {",
     "static ncclTuner_v7_t ncclTunerPlugin_v7 = {", "TunerPlugin",
     "NCCL 2.32 finds no v7 tuner and falls back a version"),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build", default="build")
    parser.add_argument("--only", help="run the mutants whose description contains this")
    parser.add_argument("--skip", type=int, default=0, help="start after the first N mutants")
    args = parser.parse_args()
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
    os.chdir(root)
    results = []
    for path, original, mutant, tests, what in MUTANTS[args.skip:]:
        if args.only and args.only not in what:
            continue
        text = open(path).read()
        if text.count(original) != 1:
            results.append((what, f"NOT APPLIED ({text.count(original)} matches in {path})"))
            continue
        start = time.monotonic()
        try:
            with open(path, "w") as f:
                f.write(text.replace(original, mutant))
            build = subprocess.run(["cmake", "--build", args.build], capture_output=True, text=True)
            if build.returncode != 0:
                verdict = "stillborn (does not build)"
            else:
                test = subprocess.run(["ctest", "--test-dir", args.build, "-R", tests],
                                      capture_output=True, text=True, timeout=1200)
                ran = "No tests were found" not in test.stdout + test.stderr
                verdict = ("killed" if test.returncode != 0 else "SURVIVED") if ran else \
                    f"NO TESTS match {tests}"
        finally:
            with open(path, "w") as f:
                f.write(text)
        results.append((what, f"{verdict} ({path}, tests {tests}, {time.monotonic() - start:.0f} s)"))
        print(f"{results[-1][0]}: {results[-1][1]}", flush=True)
    subprocess.run(["cmake", "--build", args.build], capture_output=True)
    killed = sum(v.startswith("killed") for _, v in results)
    print(f"\nmutation check: {killed} of {len(results)} killed")
    for what, verdict in results:
        if not verdict.startswith("killed"):
            print(f"  not killed: {what}: {verdict}")
    return 0 if killed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
