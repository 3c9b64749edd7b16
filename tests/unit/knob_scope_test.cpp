#include "knobs/knob_scope.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace colltune {
namespace {

TEST(KnobScope, CollTunedParametersChangeOnlyTheirCollective) {
  EXPECT_FALSE(knob_affects("OMPI_MCA_coll_tuned_alltoall_algorithm", "3", "allreduce", "mpi"));
  EXPECT_TRUE(knob_affects("OMPI_MCA_coll_tuned_alltoall_algorithm", "3", "alltoall", "mpi"));
  EXPECT_TRUE(knob_affects("OMPI_MCA_coll_tuned_bcast_algorithm", "2", "broadcast", "mpi"));
  // colltune's reduce_scatter is MPI_Reduce_scatter_block, which coll/tuned decides with the
  // reduce_scatter_block parameters; reduce_scatter's (MPI_Reduce_scatter's) cannot change it,
  // and neither is reduce's.
  EXPECT_FALSE(knob_affects("OMPI_MCA_coll_tuned_reduce_scatter_algorithm", "2", "reduce", "mpi"));
  EXPECT_FALSE(
      knob_affects("OMPI_MCA_coll_tuned_reduce_scatter_algorithm", "2", "reduce_scatter", "mpi"));
  EXPECT_TRUE(knob_affects("OMPI_MCA_coll_tuned_reduce_scatter_block_algorithm", "2",
                           "reduce_scatter", "mpi"));
  EXPECT_TRUE(knob_affects("OMPI_MCA_coll_tuned_gather_algorithm", "2", "gather", "mpi"));
  EXPECT_FALSE(knob_affects("OMPI_MCA_coll_tuned_gather_algorithm", "2", "scatter", "mpi"));
  EXPECT_TRUE(knob_affects("OMPI_MCA_coll_tuned_alltoallv_algorithm", "2", "alltoallv", "mpi"));
  EXPECT_FALSE(knob_affects("OMPI_MCA_coll_tuned_alltoallv_algorithm", "2", "alltoall", "mpi"));
  EXPECT_TRUE(
      knob_affects("OMPI_MCA_coll_tuned_allreduce_algorithm_segmentsize", "4096", "allreduce", ""));
  // Parameters of the whole component: every collective, no point-to-point.
  EXPECT_TRUE(knob_affects("OMPI_MCA_coll_tuned_use_dynamic_rules", "1", "alltoall", "mpi"));
  EXPECT_FALSE(knob_affects("OMPI_MCA_coll_tuned_use_dynamic_rules", "1", "pingpong", "mpi"));
}

// MPICH's and Intel MPI's algorithm knobs name their collective in MPI's words (bcast,
// reduce_scatter_block), which MPICH's and Intel MPI's documentation map one to one.
TEST(KnobScope, MpichAndIntelAlgorithmKnobsChangeOnlyTheirCollective) {
  EXPECT_TRUE(knob_affects("MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM", "ring", "allreduce", "mpi"));
  EXPECT_FALSE(knob_affects("MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM", "ring", "alltoall", "mpi"));
  EXPECT_TRUE(knob_affects("MPIR_CVAR_BCAST_INTRA_ALGORITHM", "smp", "broadcast", "mpi"));
  EXPECT_TRUE(knob_affects("MPIR_CVAR_REDUCE_SCATTER_BLOCK_INTRA_ALGORITHM", "auto",
                           "reduce_scatter", "mpi"));
  EXPECT_FALSE(
      knob_affects("MPIR_CVAR_REDUCE_SCATTER_INTRA_ALGORITHM", "auto", "reduce_scatter", "mpi"));
  EXPECT_FALSE(knob_affects("MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM", "ring", "allreduce", "nccl"));
  EXPECT_TRUE(knob_affects("I_MPI_ADJUST_ALLREDUCE", "8", "allreduce", "mpi"));
  EXPECT_FALSE(knob_affects("I_MPI_ADJUST_ALLREDUCE", "8", "broadcast", "mpi"));
  EXPECT_FALSE(knob_affects("I_MPI_ADJUST_ALLREDUCE_NODE_KARY_RADIX", "4", "broadcast", "mpi"));
  EXPECT_TRUE(knob_affects("I_MPI_ADJUST_ALLREDUCE_NODE_KARY_RADIX", "4", "allreduce", "mpi"));
  EXPECT_TRUE(knob_affects("MPIR_CVAR_DEVICE_COLLECTIVES", "none", "alltoall", "mpi"));
  EXPECT_EQ(mpi_algorithm_knob_collective("I_MPI_ADJUST_BCAST"), "broadcast");
  EXPECT_EQ(mpi_algorithm_knob_collective("MPIR_CVAR_SCAN_INTRA_ALGORITHM"), "");
  EXPECT_FALSE(mpi_algorithm_knob_collective("I_MPI_ADJUST_ALLREDUCE_LIST"));
  EXPECT_FALSE(mpi_algorithm_knob_collective("MPIR_CVAR_ASYNC_PROGRESS"));
}

TEST(KnobScope, BackendsKeepTheirOwnKnobs) {
  EXPECT_TRUE(knob_affects("OMPI_MCA_btl", "self,tcp", "pingpong", "mpi"));
  EXPECT_FALSE(knob_affects("OMPI_MCA_btl", "self,tcp", "allreduce", "nccl"));
  EXPECT_FALSE(knob_affects("NCCL_P2P_LEVEL", "SYS", "allreduce", "mpi"));
  EXPECT_TRUE(knob_affects("NCCL_P2P_LEVEL", "SYS", "sendrecv", "nccl"));
  EXPECT_TRUE(knob_affects("UCX_TLS", "rc", "allreduce", "nccl"));  // unknown families: anything
}

TEST(KnobScope, NoAlgorithmIsASkipByNcclsCodeWhateverItsWording) {
  // The warning as NCCL 2.28.9/2.29.7, 2.30.3/2.30.7 and 2.32.6 word it (enqueue.cc; the 2.32.6
  // library's strings): ncclInvalidUsage with NCCL_ALGO set is a skip under all three.
  for (const char* warning :
       {"Error : no algorithm/protocol available for function AllGather with datatype "
        "ncclFloat32. NCCL_ALGO was set to Tree.",
        "No algorithm/protocol available for function AllGather with datatype ncclFloat32. "
        "NCCL_ALGO was set to Tree.",
        "No algorithm/protocol nor symKernelId available for function AllGather"}) {
    const auto skip = nccl_simulate_skip(true, true, "invalid usage", warning);
    ASSERT_TRUE(skip.has_value()) << warning;
    EXPECT_EQ(*skip, fmt::format("NCCL cannot run it here (asked with ncclGroupSimulateEnd): "
                                 "invalid usage ({})",
                                 warning));
  }
  // A genuine error stays one: an internal error whatever it says, and "no algorithm" with no
  // knob set (NCCL's own choice has nothing to run: a broken installation, not a setting).
  EXPECT_EQ(nccl_simulate_skip(false, true, "internal error", "Cuda failure 'out of memory'"),
            std::nullopt);
  EXPECT_EQ(nccl_simulate_skip(false, false, "internal error",
                               "No algorithm/protocol available for function AllReduce"),
            std::nullopt);
  EXPECT_EQ(nccl_simulate_skip(true, false, "invalid usage", "no algorithm/protocol available"),
            std::nullopt);
}

TEST(KnobScope, PatNeedsOneGpuPerNodeAndNvlsSimpleByTheShape) {
  // tuning.cc: ncclPatEnable is 0 where nNodes != nRanks unless NCCL_PAT_ENABLE says otherwise;
  // NVLS and NVLSTree skip every protocol but Simple.
  const auto on = [](int gpus, std::string pat = "") {
    NcclShape s;
    s.gpus_per_node = gpus;
    s.pat_enable = std::move(pat);
    return s;
  };
  const auto pat2 = nccl_algo_unusable("PAT", "allgather", "float", "", on(2));
  ASSERT_TRUE(pat2.has_value());
  EXPECT_NE(pat2->find("pat needs one GPU per node, and this communicator has 2 on a node"),
            std::string::npos)
      << *pat2;
  EXPECT_EQ(nccl_algo_unusable("PAT", "allgather", "float", "", on(1)), std::nullopt);
  EXPECT_EQ(nccl_algo_unusable("PAT", "allgather", "float", "", on(2, "1")), std::nullopt);
  EXPECT_NE(nccl_algo_unusable("PAT", "allgather", "float", "", on(1, "0")), std::nullopt);
  EXPECT_EQ(nccl_algo_unusable("PAT,Ring", "allgather", "float", "", on(8)), std::nullopt);

  NcclShape ll;
  ll.proto = "LL";
  const auto nvls_ll = nccl_algo_unusable("NVLS", "allreduce", "float", "sum", ll);
  ASSERT_TRUE(nvls_ll.has_value());
  EXPECT_NE(nvls_ll->find("nvls runs Simple only, which NCCL_PROTO=LL rules out"),
            std::string::npos)
      << *nvls_ll;
  EXPECT_EQ(nccl_algo_unusable("NVLS,Ring", "allreduce", "float", "sum", ll), std::nullopt);
  for (const char* proto : {"Simple", "^LL", "allgather:LL", ""}) {
    NcclShape s;
    s.proto = proto;
    EXPECT_EQ(nccl_algo_unusable("NVLS", "allreduce", "float", "sum", s), std::nullopt) << proto;
  }
  NcclShape no_simple;
  no_simple.proto = "^Simple";
  EXPECT_NE(nccl_algo_unusable("NVLS", "allgather", "", "", no_simple), std::nullopt);

  // Whether NVLS exists here only NCCL knows; a non-blocking communicator cannot ask it.
  NcclShape blind;
  blind.can_probe = false;
  const auto nvls = nccl_algo_unusable("NVLS", "allreduce", "float", "sum", blind);
  ASSERT_TRUE(nvls.has_value());
  EXPECT_NE(nvls->find("--nccl-blocking 1"), std::string::npos) << *nvls;
  EXPECT_EQ(nccl_algo_unusable("NVLS,Ring", "allreduce", "float", "sum", blind), std::nullopt);
  EXPECT_EQ(nccl_algo_unusable("Tree", "allreduce", "float", "sum", blind), std::nullopt);
}

TEST(KnobScope, NcclAlgoReachesCollectivesItNames) {
  EXPECT_TRUE(knob_affects("NCCL_ALGO", "Tree", "allreduce", "nccl"));
  EXPECT_FALSE(knob_affects("NCCL_ALGO", "Tree", "alltoall", "nccl"));
  EXPECT_FALSE(knob_affects("NCCL_ALGO", "Ring", "sendrecv", "nccl"));
  // NCCL builds gather, scatter and alltoallv from send/recv (collectives.cc): NCCL_ALGO is never
  // read for them, so a point setting it there measures the baseline again.
  for (const char* c : {"gather", "scatter", "alltoallv"})
    EXPECT_FALSE(knob_affects("NCCL_ALGO", "Ring", c, "nccl")) << c;
  EXPECT_FALSE(knob_affects("NCCL_ALGO", "allreduce:tree", "broadcast", "nccl"));
  EXPECT_TRUE(knob_affects("NCCL_ALGO", "broadcast:ring;allreduce:tree", "allreduce", "nccl"));
  EXPECT_TRUE(knob_affects("NCCL_PROTO", "LL", "sendrecv", "nccl"));
  EXPECT_TRUE(knob_affects("NCCL_PROTO", "reducescatter:LL", "reduce_scatter", "nccl"));
}

TEST(KnobScope, AnNcclAlgoWithoutAKernelForTheCollectiveIsASkip) {
  // NCCL's src/device/generate.py: Tree exists for allreduce only, PAT not for allreduce.
  EXPECT_EQ(nccl_algo_unusable("Tree", "allreduce"), std::nullopt);
  EXPECT_EQ(nccl_algo_unusable("Tree", "broadcast"),
            "NCCL_ALGO=Tree leaves broadcast no algorithm NCCL can run (it has ring), and NCCL "
            "fails such a call");
  EXPECT_NE(nccl_algo_unusable("Tree", "allgather"), std::nullopt);
  EXPECT_EQ(nccl_algo_unusable("Tree,Ring", "allgather"), std::nullopt);
  EXPECT_NE(nccl_algo_unusable("PAT", "allreduce"), std::nullopt);
  EXPECT_NE(nccl_algo_unusable("^Ring", "reduce"), std::nullopt);  // excludes its only one
  EXPECT_EQ(nccl_algo_unusable("^Tree", "reduce"), std::nullopt);
  // The per-collective form reaches only the collectives it names.
  EXPECT_EQ(nccl_algo_unusable("allreduce:tree", "broadcast"), std::nullopt);
  EXPECT_NE(nccl_algo_unusable("allreduce:ring;broadcast:tree", "broadcast"), std::nullopt);
  // Send/recv-based collectives take no algorithm.
  EXPECT_EQ(nccl_algo_unusable("Tree", "alltoall"), std::nullopt);
  // The mixed form: a first bare list for every collective, then per-collective overrides,
  // applied in order as NCCL's parseList does. "tree;allreduce:ring" leaves broadcast only Tree
  // (no kernel: a skip) and allreduce Ring; a later entry for the same collective wins.
  EXPECT_NE(nccl_algo_unusable("tree;allreduce:ring", "broadcast"), std::nullopt);
  EXPECT_EQ(nccl_algo_unusable("tree;allreduce:ring", "allreduce"), std::nullopt);
  EXPECT_EQ(nccl_algo_unusable("tree;broadcast:ring", "broadcast"), std::nullopt);
  EXPECT_NE(nccl_algo_unusable("broadcast:ring;broadcast:tree", "broadcast"), std::nullopt);
  EXPECT_TRUE(knob_affects("NCCL_ALGO", "tree;allreduce:ring", "allgather", "nccl"));
  EXPECT_FALSE(knob_affects("NCCL_ALGO", "allreduce:ring", "allgather", "nccl"));
  // NVLS kernels by type and op, from NCCL 2.28.9's device.h ncclNvlsSupported: no int8, no
  // prod or avg, float only with sum; allgather moves bytes and has NVLS for every type.
  EXPECT_NE(nccl_algo_unusable("NVLS", "allreduce", "int8", "sum"), std::nullopt);
  EXPECT_NE(nccl_algo_unusable("NVLS,NVLSTree", "allreduce", "half", "prod"), std::nullopt);
  EXPECT_NE(nccl_algo_unusable("NVLS", "reduce_scatter", "float", "max"), std::nullopt);
  EXPECT_NE(nccl_algo_unusable("NVLS", "allreduce", "bfloat16", "avg"), std::nullopt);
  EXPECT_EQ(nccl_algo_unusable("NVLS", "allreduce", "float", "sum"), std::nullopt);
  EXPECT_EQ(nccl_algo_unusable("NVLS", "allreduce", "int64", "min"), std::nullopt);
  EXPECT_EQ(nccl_algo_unusable("NVLS", "allgather", "int8", ""), std::nullopt);
  EXPECT_EQ(nccl_algo_unusable("Ring,NVLS", "allreduce", "int8", "sum"), std::nullopt);
  EXPECT_NE(nccl_algo_unusable("PAT", "reduce_scatter", "float", "avg"), std::nullopt);
  EXPECT_EQ(nccl_algo_unusable("PAT", "reduce_scatter", "float", "sum"), std::nullopt);
  const auto why = nccl_algo_unusable("NVLS", "allreduce", "f8e4m3", "sum");
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("nvls has no f8e4m3 sum kernel"), std::string::npos) << *why;
  EXPECT_EQ(nccl_algo_unusable("Tree", "sendrecv"), std::nullopt);
}

TEST(KnobScope, SettingsAffectOnlyThroughWhatDiffersFromTheBaseline) {
  const std::map<std::string, std::string> base{{"backend", "mpi"},
                                                {"OMPI_MCA_coll_tuned_use_dynamic_rules", "1"}};
  auto point = base;
  point["OMPI_MCA_coll_tuned_alltoall_algorithm"] = "3";
  EXPECT_FALSE(settings_affect(point, base, "allreduce", "mpi"));
  EXPECT_TRUE(settings_affect(point, base, "alltoall", "mpi"));
  point["np"] = "4";  // placement is the group, not a knob
  EXPECT_FALSE(settings_affect(point, base, "allreduce", "mpi"));
  // Unsetting what the baseline sets is a difference too.
  EXPECT_TRUE(settings_affect({{"backend", "mpi"}}, base, "allreduce", "mpi"));
}

TEST(KnobScope, TunedTableMatchesOpenMpiRulesIds) {
  // Open MPI coll/tuned rules-file ids (COLLTYPE in coll_base_functions.h): allgather 0,
  // allreduce 2, alltoall 3, bcast 7, reduce 11, reduce_scatter_block 13 (colltune's
  // reduce_scatter; REFERENCE.md's 12 is MPI_Reduce_scatter's).
  std::map<std::string, int> ids;
  for (const auto& t : tuned_collectives()) {
    if (t.rules_id >= 0) ids[std::string(t.collective)] = t.rules_id;
  }
  EXPECT_EQ(ids, (std::map<std::string, int>{{"allgather", 0},
                                             {"allreduce", 2},
                                             {"alltoall", 3},
                                             {"broadcast", 7},
                                             {"reduce", 11},
                                             {"reduce_scatter", 13}}));
  EXPECT_EQ(tuned_algorithm_knob("reduce_scatter"),
            "OMPI_MCA_coll_tuned_reduce_scatter_block_algorithm");
  EXPECT_EQ(tuned_algorithm_knob("broadcast"), "OMPI_MCA_coll_tuned_bcast_algorithm");
  EXPECT_TRUE(needs_dynamic_rules("OMPI_MCA_coll_tuned_allreduce_algorithm"));
  EXPECT_TRUE(needs_dynamic_rules("OMPI_MCA_coll_tuned_dynamic_rules_filename"));
  EXPECT_FALSE(needs_dynamic_rules(kDynamicRulesKnob));
  EXPECT_FALSE(needs_dynamic_rules("OMPI_MCA_coll_tuned_priority"));
  EXPECT_FALSE(needs_dynamic_rules("OMPI_MCA_btl"));
  EXPECT_FALSE(tuned_algorithm_knob("sendrecv").has_value());
}

TEST(KnobScope, AForcedTunedAlgorithmIsMootWhereAnotherComponentServes) {
  // As Open MPI's table said with coll_sm_priority 40 (tests/mpi/coll_component.py).
  const std::map<std::string, std::string> served{
      {"allreduce", "sm"}, {"alltoall", "tuned"}, {"bcast", "han"}};
  const auto warnings = moot_tuned_algorithm_warnings(
      served, {"OMPI_MCA_coll_tuned_allreduce_algorithm", "OMPI_MCA_coll_tuned_alltoall_algorithm",
               "OMPI_MCA_coll_tuned_use_dynamic_rules", "OMPI_MCA_coll_tuned_bcast_algorithm",
               "OMPI_MCA_coll_tuned_barrier_algorithm"});
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_NE(warnings[0].find("allreduce is served by Open MPI's coll/sm here, not coll/tuned"),
            std::string::npos)
      << warnings[0];
  EXPECT_NE(warnings[0].find("allowed: OMPI_MCA_coll=^sm"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[1].find("bcast is served by Open MPI's coll/han"), std::string::npos);
  EXPECT_NE(warnings[1].find("han runs coll/tuned on its own sub-communicators"),
            std::string::npos);
  // Nothing known of barrier's server, nothing forced for a served one: no word.
  EXPECT_TRUE(
      moot_tuned_algorithm_warnings({}, {"OMPI_MCA_coll_tuned_allreduce_algorithm"}).empty());
  EXPECT_TRUE(moot_tuned_algorithm_warnings(served, {"OMPI_MCA_btl"}).empty());
  // A rules file stands for each collective the run measures: moot for allreduce, which sm
  // serves; no word for alltoall, which tuned serves, nor for bcast, which is not measured.
  const auto by_file = moot_tuned_algorithm_warnings(
      served, {"OMPI_MCA_coll_tuned_dynamic_rules_filename"}, {"allreduce", "alltoall"});
  ASSERT_EQ(by_file.size(), 1u);
  EXPECT_NE(by_file[0].find("allreduce is served by Open MPI's coll/sm here, not coll/tuned"),
            std::string::npos)
      << by_file[0];
  EXPECT_NE(by_file[0].find("the rules file (OMPI_MCA_coll_tuned_dynamic_rules_filename) does "
                            "not choose what runs"),
            std::string::npos)
      << by_file[0];
}

}  // namespace
}  // namespace colltune
