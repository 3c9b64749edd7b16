// tune --emit nccl-plugin on stores made here: every file it writes loads whole in the plugin's
// own parser (the oracle for "NCCL would take it"), whatever the panels say.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "report/tune.hpp"
#include "store/results.hpp"
#include "tuner_plugin/tuned_rules.hpp"

namespace colltune {
namespace {

// NCCL points on 8 ranks of one node: "base" (no knob) and "tree" (NCCL_ALGO=Tree, plus
// `extra` settings), 3 launches each, allreduce at 1K, 4K, 16K and 64K in float sum and half
// sum. Tree takes half the time where `tree_wins[dtype]` holds the size, else 1.5x.
Dataset store(const std::map<std::string, std::set<std::uint64_t>>& tree_wins,
              const std::map<std::string, std::string>& extra = {}) {
  Dataset d;
  d.kind = "sweep";
  std::map<std::string, std::string> tree_settings{{"backend", "nccl"}, {"NCCL_ALGO", "Tree"}};
  tree_settings.insert(extra.begin(), extra.end());
  d.points.push_back({"base", "base", {{"backend", "nccl"}}, true});
  d.points.push_back({"tree", "tree", tree_settings, false});
  for (const std::string id : {"base", "tree"}) {
    d.contexts[id] = {{"backend", "nccl"}, {"hosts", {"node1"}}};
    for (int round = 1; round <= 3; ++round) {
      d.launches.push_back({id, round, "done", 0, std::nullopt, {}, {}});
      for (const auto& [dtype, wins] : tree_wins) {
        for (const std::uint64_t bytes : {1024, 4096, 16384, 65536}) {
          Record r;
          r.point_id = id;
          r.round = round;
          r.collective = "allreduce";
          r.dtype = dtype;
          r.op = "sum";
          r.nranks = 8;
          r.bytes = bytes;
          r.bus_factor = 1.75;
          const double factor = id == "base" ? 1.0 : (wins.count(bytes) ? 0.5 : 1.5);
          for (int s = 0; s < 5; ++s)
            r.samples_seconds.push_back(1e-4 * factor * (1 + 0.001 * (s + round)));
          d.records.push_back(r);
        }
      }
    }
  }
  return d;
}

TEST(TunePlugin, PanelsThatDisagreeGiveRowsOnlyWhereTheyAgreeAndTheFileLoadsWhole) {
  // float: tree wins at 1K and 4K; half: at 4K and 16K. Per panel that is [1K, 16K) and
  // [4K, 64K): overlapping rows, which the plugin refuses whole (tuning silently off). Merged:
  // only 4K, where both chose tree, so one row [4096, 16383].
  const Dataset d = store({{"float", {1024, 4096}}, {"half", {4096, 16384}}});
  const std::string text = emit_nccl_plugin(d);
  const auto doc = nlohmann::json::parse(text);
  const std::vector<TunedRow> rows = parse_tuned_file(text);
  ASSERT_EQ(rows.size(), doc["rows"].size());
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].min_bytes, 4096u);
  EXPECT_EQ(rows[0].max_bytes, 16383u);
  EXPECT_EQ(rows[0].algorithm, 0);  // NCCL_ALGO_TREE
  EXPECT_EQ(rows[0].nranks, 8u);
  EXPECT_EQ(rows[0].nnodes, 1u);
  EXPECT_EQ(doc["rows"][0]["measured"].size(), 2u);  // 4K in both panels
  // 1K (float tree, half default) and 16K (the other way round) are said, not written.
  std::string notes;
  for (const auto& n : doc["not_written"]) notes += n.get<std::string>() + "\n";
  EXPECT_NE(notes.find("allreduce 1024-4095 B on 8 ranks: the dtype/op panels disagree"),
            std::string::npos)
      << notes;
  EXPECT_NE(notes.find("allreduce 16384-65535 B on 8 ranks: the dtype/op panels disagree"),
            std::string::npos)
      << notes;
}

TEST(TunePlugin, PanelsThatAgreeGiveTheirWholeRange) {
  const Dataset d = store({{"float", {1024, 4096}}, {"half", {1024, 4096}}});
  const std::vector<TunedRow> rows = parse_tuned_file(emit_nccl_plugin(d));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].min_bytes, 1024u);
  EXPECT_EQ(rows[0].max_bytes, 16383u);
  EXPECT_EQ(rows[0].channels, -1);
}

TEST(TunePlugin, ACommunicatorWideChannelLimitIsNeverARowsChannels) {
  // NCCL_MAX_CTAS bounds the whole communicator; NCCL takes a row's nChannels per call as it is,
  // past its reduction by size (enqueue.cc). Such a winner is said, not written.
  const Dataset d = store({{"float", {1024, 4096}}}, {{"NCCL_MAX_CTAS", "4"}});
  const std::string text = emit_nccl_plugin(d);
  EXPECT_TRUE(parse_tuned_file(text).empty());
  EXPECT_NE(text.find("a channel limit for the whole communicator"), std::string::npos) << text;
}

TEST(TunePlugin, NcclsExampleTunerFileCarriesNoCommunicatorWideChannels) {
  // The same rule for NCCL's example plugin's CSV: its channels column is per call.
  Dataset d = store({{"float", {1024, 4096}}}, {{"NCCL_PROTO", "Simple"}});
  std::string text = emit_nccl_tuner(d);
  EXPECT_NE(text.find("allreduce,1024,16383,tree,simple,-1,1,8,-1,-1"), std::string::npos) << text;
  d = store({{"float", {1024, 4096}}}, {{"NCCL_PROTO", "Simple"}, {"NCCL_MAX_CTAS", "4"}});
  text = emit_nccl_tuner(d);
  EXPECT_EQ(text.find("allreduce,1024"), std::string::npos) << text;
  EXPECT_NE(text.find("won with a channel limit for the whole communicator"), std::string::npos)
      << text;
}

TEST(TunePlugin, NodesAsNcclCountsThemWhereThePluginSawThem) {
  // Two hosts that NCCL counted as one node (a multi-node NVLink clique), as the plugin's init
  // recorded it in the winning launches: the row must say 1, or it never applies there.
  Dataset d = store({{"float", {1024, 4096}}});
  for (const std::string id : {"base", "tree"}) {
    d.contexts[id]["hosts"] = {"node1", "node2"};
    d.contexts[id]["backend_settings"] = {
        {"tuner_plugin", R"({"nnodes":1,"nranks":8,"rows":0,"rows_in_file":0})"}};
  }
  auto doc = nlohmann::json::parse(emit_nccl_plugin(d));
  ASSERT_EQ(doc["rows"].size(), 1u);
  EXPECT_EQ(doc["rows"][0]["nnodes"], 1);
  EXPECT_EQ(doc["rows"][0]["nnodes_from"], "nccl");
  EXPECT_TRUE(doc["notes"].empty());
  // Without it: the host count, said where it comes from.
  for (const std::string id : {"base", "tree"}) d.contexts[id].erase("backend_settings");
  doc = nlohmann::json::parse(emit_nccl_plugin(d));
  ASSERT_EQ(doc["rows"].size(), 1u);
  EXPECT_EQ(doc["rows"][0]["nnodes"], 2);
  EXPECT_EQ(doc["rows"][0]["nnodes_from"], "hosts");
  ASSERT_EQ(doc["notes"].size(), 1u);
}

}  // namespace
}  // namespace colltune
