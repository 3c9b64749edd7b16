#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/cpulist.hpp"
#include "core/environment.hpp"
#include "report/analysis.hpp"
#include "report/console_reporter.hpp"
#include "report/escape.hpp"
#include "report/markdown_report.hpp"
#include "report/view.hpp"
#include "store/atomic_file.hpp"
#include "store/record.hpp"

namespace colltune {
namespace {

Measurement sample_measurement() {
  Measurement m;
  m.coll.kind = CollKind::kAllreduce;
  m.coll.count = 262144;
  m.nranks = 4;
  m.bytes = 1 << 20;
  m.samples_seconds = {1e-4, 2e-4, 3e-4};
  m.summary = summarize(m.samples_seconds);
  m.at_median = bandwidth(m.coll, 4, m.summary.median);
  m.wrong = 0;
  m.ops_per_sample = 20;
  return m;
}

TEST(ConsoleRow, TimeInMicrosecondsAndBandwidths) {
  EXPECT_EQ(format_half_row(sample_measurement()), "  200.00    5.24    7.86      0");
  Measurement unchecked = sample_measurement();
  unchecked.wrong.reset();
  EXPECT_EQ(format_half_row(unchecked).substr(25), "   N/A");
  Measurement skipped;
  skipped.skipped = "why";
  EXPECT_EQ(format_half_row(skipped), "      --      --      --   skip");
}

TEST(Record, HoldsSamplesStatsAndContext) {
  RunContext ctx;
  ctx.backend = "mpi";
  ctx.nranks = 4;
  ctx.environment = {{"NCCL_ALGO", "Ring"}};
  const auto j = make_record(sample_measurement(), ctx);
  EXPECT_EQ(j["schema_version"], kSchemaVersion);
  EXPECT_EQ(j["collective"], "allreduce");
  EXPECT_EQ(j["samples_seconds"].size(), 3u);
  EXPECT_DOUBLE_EQ(j["stats_seconds"]["median"].get<double>(), 2e-4);
  EXPECT_DOUBLE_EQ(j["busbw_gbps"].get<double>(), 1.5 * (1 << 20) / 2e-4 / 1e9);
  EXPECT_EQ(j["context"]["environment"]["NCCL_ALGO"], "Ring");
  EXPECT_EQ(j["timing"], "batch");
}

TEST(Environment, AllowListAndRedaction) {
  const char* env[] = {"NCCL_ALGO=Ring",
                       "OMPI_MCA_btl=self,vader",
                       "HOME=/root",
                       "UCX_TLS=rc",
                       "NCCL_IB_API_KEY=hunter2",
                       "AWS_SECRET=x",
                       "COLLTUNE_TOKEN=abc",
                       "PATH=/bin",
                       nullptr};
  const auto kept = allowed_environment(env);
  EXPECT_EQ(kept.size(), 5u);
  EXPECT_EQ(kept.at("NCCL_ALGO"), "Ring");
  EXPECT_EQ(kept.at("NCCL_IB_API_KEY"), "<redacted>");
  EXPECT_EQ(kept.at("COLLTUNE_TOKEN"), "<redacted>");
  EXPECT_EQ(kept.count("HOME"), 0u);
  EXPECT_EQ(kept.count("AWS_SECRET"), 0u);
}

TEST(CpuList, Ranges) {
  EXPECT_EQ(format_cpulist({3, 0, 1, 2, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(format_cpulist({}), "");
  EXPECT_EQ(format_cpulist({5, 5}), "5");
}

TEST(LineFile, AppearsOnlyOnCommit) {
  const auto dir = std::filesystem::temp_directory_path() / "colltune_linefile_test";
  std::filesystem::create_directories(dir);
  const auto path = dir / "out.jsonl";
  std::filesystem::remove(path);
  {
    LineFile file(path.string());
    ASSERT_EQ(file.open_error(), "");
    file.append_line("{}");
    EXPECT_FALSE(std::filesystem::exists(path));
    EXPECT_TRUE(std::filesystem::exists(path.string() + ".partial"));
    file.commit();
  }
  EXPECT_TRUE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(path.string() + ".partial"));
  LineFile bad((dir / "missing" / "x.jsonl").string());
  EXPECT_NE(bad.open_error().find("--json: '"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(ConsoleReporter, HeaderNamesGpusAndBackendSettings) {
  RunContext c;
  c.backend = "nccl";
  c.nranks = 2;
  c.gpus_per_process = 2;
  c.hosts = {"gpu1"};
  c.backend_settings = {{"graph", "true"}, {"min_ctas", "default"}};
  c.placement.push_back(
      {0, "gpu1", "0-7", "", "", 0, "", "0000:1b:00.0", "0", "NVIDIA H200, 143771 MiB, sm_90"});
  c.placement.push_back(
      {1, "gpu1", "0-7", "", "", 0, "", "0000:2b:00.0", "0", "NVIDIA H200, 143771 MiB, sm_90"});
  char* text = nullptr;
  std::size_t size = 0;
  std::FILE* out = open_memstream(&text, &size);
  ConsoleReporter(out).begin(c);
  std::fclose(out);
  const std::string header(text, size);
  std::free(text);
  EXPECT_NE(header.find("| 2 ranks (1 process(es) x 2 GPUs) on 1 host(s)"), std::string::npos)
      << header;
  EXPECT_NE(header.find("# nccl settings: graph true, min_ctas default\n"), std::string::npos);
  EXPECT_NE(
      header.find("rank   1 on gpu1 cpus 0-7 gpu 0000:2b:00.0 NVIDIA H200, 143771 MiB, sm_90"),
      std::string::npos);
}

// The "~" marker: a median whose 95% interval is wider than 10% of it. Ten samples: the
// interval runs from the 1st to the 10th (Le Boudec, by hand: ranks 1 and 10).
std::string table_of(const std::vector<double>& samples) {
  Measurement m = sample_measurement();
  m.samples_seconds = samples;
  m.summary = summarize(samples);
  char* text = nullptr;
  std::size_t size = 0;
  std::FILE* out = open_memstream(&text, &size);
  {
    ConsoleReporter reporter(out);
    RunContext c;
    c.backend = "mpi";
    c.nranks = 4;
    reporter.begin(c);
    reporter.add(m);
    reporter.end();
  }
  std::fclose(out);
  std::string table(text, size);
  std::free(text);
  return table;
}

TEST(ConsoleReporter, NoisyMediansAreMarked) {
  // 1.00 to 1.09 ms: interval width 0.09 of a 1.045 median, under 10%: no mark.
  const std::string quiet = table_of(
      {1.00e-3, 1.01e-3, 1.02e-3, 1.03e-3, 1.04e-3, 1.05e-3, 1.06e-3, 1.07e-3, 1.08e-3, 1.09e-3});
  EXPECT_EQ(quiet.find(" ~"), std::string::npos) << quiet;
  // 1.0 to 1.2 ms: width 0.2 of a 1.1 median: marked, and the footer says why.
  const std::string noisy = table_of(
      {1.00e-3, 1.02e-3, 1.05e-3, 1.08e-3, 1.10e-3, 1.10e-3, 1.12e-3, 1.15e-3, 1.18e-3, 1.20e-3});
  EXPECT_NE(noisy.find(" ~\n"), std::string::npos) << noisy;
  EXPECT_NE(noisy.find("# ~ the median's 95% interval is wider than 10% of it"), std::string::npos);
}

TEST(ReportView, NcclBusbwIsHeldAgainstTheGpuCopyCeiling) {
  Dataset d;
  d.host_ceiling_gbps = 10;
  d.device_ceiling_gbps = 2000;
  d.contexts["gpu-point"] = {{"backend", "nccl"}};
  d.contexts["mpi-point"] = {{"backend", "mpi"}};
  EXPECT_EQ(ceiling_for(d, "gpu-point"), 2000);
  EXPECT_EQ(ceiling_for(d, "mpi-point"), 10);
  EXPECT_EQ(ceiling_for(d, "unknown"), 10);
}

TEST(ReportView, TheInterleavedRowSaysHowEachBackendSwitchedItsSettings) {
  Dataset d;
  d.kind = "sweep";
  d.points = {{"a", "a", {{"backend", "nccl"}, {"NCCL_ALGO", "Ring"}}, false},
              {"b", "b", {{"backend", "nccl"}}, true},
              {"c", "c", {{"backend", "mpi"}}, true}};
  d.launches = {{"a", 1, "done", 0, std::nullopt, {}, {"b"}},
                {"b", 1, "done", 0, std::nullopt, {}, {"a"}},
                {"c", 1, "done", 0, std::nullopt, {}, {}}};
  const ReportView view = make_report_view(d);
  const auto row = std::find_if(view.context.begin(), view.context.end(),
                                [](const auto& entry) { return entry.first == "interleaved"; });
  ASSERT_NE(row, view.context.end());
  EXPECT_EQ(row->second,
            "2 of 3 point-rounds shared a launch, up to 2 points each: NCCL_ALGO / NCCL_PROTO "
            "set at each NCCL communicator init, one communicator each, samples in turns");
}

// report lets go of the records as their samples move into the panels: the same view as the one
// that copies them, with several launches and a sample list joined within one.
TEST(ReportView, TheViewThatTakesTheRecordsIsTheViewThatCopiesThem) {
  Dataset d;
  d.kind = "sweep";
  d.points = {
      {"a", "a", {{"backend", "mpi"}}, true},
      {"b", "b", {{"backend", "mpi"}, {"OMPI_MCA_coll_tuned_allreduce_algorithm", "2"}}, false}};
  for (const char* point : {"a", "b"}) {
    for (int round = 1; round <= 3; ++round) {
      d.launches.push_back({point, round, "done", 0, std::nullopt, {}, {}});
      for (std::uint64_t bytes : {1024u, 4096u}) {
        for (int part = 0; part < 2; ++part) {  // one launch's samples in two records
          Record r;
          r.point_id = point, r.round = round, r.collective = "allreduce", r.dtype = "float";
          r.op = "sum", r.nranks = 2, r.bytes = bytes, r.algbw_bytes = static_cast<double>(bytes);
          r.root = part;  // another record of the cell's launch
          const double base = (point[0] == 'a' ? 1e-5 : 2e-5) * (1 + 0.01 * round) * (1 + part);
          r.samples_seconds = {base, base * 1.01, base * 0.99, base * 1.02, base * 0.98};
          d.records.push_back(r);
        }
      }
    }
  }
  const std::string copied = render_markdown(make_report_view(d));
  Dataset owned = d;
  const std::string taken = render_markdown(make_report_view(std::move(owned)));
  EXPECT_EQ(taken, copied);
  EXPECT_NE(copied.find("| 1K | a |"), std::string::npos) << copied;
  EXPECT_EQ(copied.find("only one configuration"), std::string::npos) << copied;
}

// A placement's warning is listed once with the configurations it concerns, not once each.
TEST(ReportView, WarningsAreGroupedAndCounted) {
  Dataset d;
  d.kind = "sweep";
  d.points = {{"a", "alg=1", {}, false}, {"b", "alg=2", {}, false}, {"c", "alg=3", {}, true}};
  d.warnings = {{"a", "ranks 0 and 2 share core 0"},
                {"b", "ranks 0 and 2 share core 0"},
                {"c", "rank 1 is far from its NIC"},
                {"c", "ranks 0 and 2 share core 0"}};
  const ReportView view = make_report_view(d);
  ASSERT_EQ(view.warnings.size(), 2u);
  EXPECT_EQ(view.warnings[0].text, "ranks 0 and 2 share core 0");
  EXPECT_EQ(view.warnings[0].labels, (std::vector<std::string>{"alg=1", "alg=2", "alg=3"}));
  EXPECT_EQ(view.warnings[1].labels, (std::vector<std::string>{"alg=3"}));
  EXPECT_EQ(first_of({"a", "b", "c", "d", "e"}, 3), "a, b, c and 2 more");
}

// One allreduce record of 1 KiB per point, its settings read from its label ("key=value"
// words): enough for a panel with a line per label.
Dataset labelled(const std::vector<std::string>& labels) {
  Dataset d;
  d.kind = "sweep";
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const std::string id(1, static_cast<char>('a' + i));
    std::map<std::string, std::string> settings;
    std::istringstream words(labels[i]);
    for (std::string w; words >> w;) {
      if (const auto eq = w.find('='); eq != std::string::npos)
        settings[w.substr(0, eq)] = w.substr(eq + 1);
    }
    d.points.push_back({id, labels[i], settings, i == 0});
    d.launches.push_back({id, 1, "done", 0, std::nullopt, {}, {}});
    Record r;
    r.point_id = id;
    r.collective = "allreduce";
    r.dtype = "float";
    r.op = "sum";
    r.nranks = 4;
    r.bytes = 1024;
    r.samples_seconds = {1e-5, 1.1e-5, 1.2e-5};
    d.records.push_back(r);
  }
  return d;
}

std::vector<std::string> series_labels(const PanelView& panel) {
  std::vector<std::string> out;
  for (const auto& s : panel.series) out.push_back(s.label);
  return out;
}

TEST(ReportView, LabelsKeepWhatDiffersAndShortenOpenMpiNames) {
  const ReportView view = make_report_view(
      labelled({"backend=mpi np=4 (no knob set)",
                "backend=mpi np=4 OMPI_MCA_coll_tuned_allreduce_algorithm=4",
                "backend=mpi np=4 OMPI_MCA_coll_tuned_allreduce_algorithm_segmentsize=8192"}));
  ASSERT_EQ(view.panels.size(), 1u);
  EXPECT_EQ(view.panels[0].shared, "backend=mpi np=4");
  EXPECT_EQ(
      series_labels(view.panels[0]),
      (std::vector<std::string>{"(no knob set)", "allreduce_alg=4", "allreduce_alg_seg=8192"}));
  EXPECT_EQ(view.panels[0].key_note,
            "allreduce_alg = OMPI_MCA_coll_tuned_allreduce_algorithm; allreduce_alg_seg = "
            "OMPI_MCA_coll_tuned_allreduce_algorithm_segmentsize");
}

TEST(ReportView, LabelsThatWouldShortenAlikeStayWhole) {
  // Two different parameters whose short names coincide: shortening would make them one line.
  const std::vector<std::string> full{"backend=mpi (no knob set)",
                                      "backend=mpi OMPI_MCA_coll_tuned_allreduce_algorithm=1",
                                      "backend=mpi OMPI_MCA_allreduce_algorithm=1"};
  const ReportView view = make_report_view(labelled(full));
  ASSERT_EQ(view.panels.size(), 1u);
  EXPECT_EQ(series_labels(view.panels[0]), full);
  EXPECT_EQ(view.panels[0].shared, "");
  EXPECT_EQ(view.panels[0].key_note, "");
}

}  // namespace
}  // namespace colltune
