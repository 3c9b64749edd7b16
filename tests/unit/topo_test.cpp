#include <gtest/gtest.h>

#include <cstdlib>

#include "core/cpulist.hpp"
#include "core/placement_check.hpp"
#include "topo/infiniband.hpp"
#include "topo/topo_report.hpp"
#include "topo/topology.hpp"

namespace colltune {
namespace {

const std::string kData = COLLTUNE_TEST_DATA_DIR;

// hwloc reads HWLOC_XMLFILE at load: the fixture stands in for the machine.
class FixtureTopology : public ::testing::Test {
 protected:
  void SetUp() override { setenv("HWLOC_XMLFILE", (kData + "/topo/two-socket-ib.xml").c_str(), 1); }
  void TearDown() override { unsetenv("HWLOC_XMLFILE"); }
};

TEST_F(FixtureTopology, SummaryFromXml) {
  const Topology topo;
  const TopologySummary s = topo.summary();
  EXPECT_EQ(s.packages, 2);
  EXPECT_EQ(s.numa_nodes, 2);
  EXPECT_EQ(s.cores, 4);
  EXPECT_EQ(s.pus, 8);
  ASSERT_EQ(s.numa.size(), 2u);
  EXPECT_EQ(s.numa[1].cpus, "4-7");
  ASSERT_EQ(s.nics.size(), 1u);
  EXPECT_EQ(s.nics[0].kind, "infiniband");
  EXPECT_EQ(s.nics[0].names, "mlx5_0");
  EXPECT_EQ(s.nics[0].busid, "0000:3b:00.0");
  EXPECT_EQ(s.nics[0].numa, 1);
  ASSERT_EQ(s.gpus.size(), 1u);
  EXPECT_EQ(s.gpus[0].numa, 1);
}

TEST_F(FixtureTopology, CoresAndNumaOfCpus) {
  const Topology topo;
  EXPECT_EQ(topo.cores_of({0, 1}), std::vector<int>{0});  // two hyperthreads of core 0
  EXPECT_EQ(topo.cores_of({0, 2}), (std::vector<int>{0, 1}));
  EXPECT_EQ(topo.numa_of({4, 5}), std::vector<int>{1});
  EXPECT_EQ(topo.numa_of({3, 4}), (std::vector<int>{0, 1}));
}

TEST(InfiniBand, PortsFromSysfs) {
  const auto ports = read_ib_ports(kData + "/topo/sysfs");
  ASSERT_EQ(ports.size(), 2u);
  EXPECT_EQ(ports[0].device, "mlx5_0");
  EXPECT_TRUE(ports[0].active());
  EXPECT_EQ(ports[0].rate, "200 Gb/sec (4X HDR)");
  EXPECT_FALSE(ports[1].active());
  EXPECT_TRUE(read_ib_ports(kData + "/topo/no-such-dir").empty());
}

TEST(TopoReport, SaysWhatIsAbsent) {
  TopoReport r;
  r.host = "h";
  r.gpu_links.why = "no NVIDIA driver";
  const std::string text = to_text(r);
  EXPECT_NE(text.find("GPUs (PCI): none found"), std::string::npos);
  EXPECT_NE(text.find("InfiniBand ports: none"), std::string::npos);
  EXPECT_EQ(to_json(r)["ib_ports"].size(), 0u);
}

TEST(CpuList, ParseRoundTrips) {
  EXPECT_EQ(parse_cpulist("0-3,8,10-11"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(format_cpulist(parse_cpulist("0-3,8,10-11")), "0-3,8,10-11");
  EXPECT_TRUE(parse_cpulist("3-1").empty());
  EXPECT_TRUE(parse_cpulist("x").empty());
}

RankPlacement site(int rank, const std::string& host, const std::string& cpus,
                   const std::string& cores, const std::string& numa = "0", int host_pus = 8,
                   const std::string& nic_numa = "") {
  return {rank, host, cpus, cores, numa, host_pus, nic_numa, "", "", ""};
}

TEST(PlacementCheck, CleanPlacementHasNoWarnings) {
  EXPECT_TRUE(
      placement_warnings({site(0, "a", "0", "0"), site(1, "a", "2", "1")}, {"core", 0}).empty());
  EXPECT_TRUE(
      placement_warnings({site(0, "a", "0-7", "0-3"), site(1, "a", "0-7", "0-3")}, {"none", 0})
          .empty());
}

TEST(PlacementCheck, SharedCoreWrongBindingUnbalancedAndFarFromNic) {
  EXPECT_EQ(placement_warnings({site(0, "a", "0", "0"), site(1, "a", "1", "0")}, {"", 0}),
            std::vector<std::string>{"ranks 0 and 1 on a share core(s) 0 and 0"});
  EXPECT_EQ(placement_warnings({site(0, "a", "0-3", "0-1")}, {"core", 0}),
            std::vector<std::string>{
                "rank 0 on a may run on cores 0-1, not one core as bind_to core asked"});
  EXPECT_EQ(placement_warnings({site(0, "a", "0", "0")}, {"none", 0}),
            std::vector<std::string>{
                "rank 0 on a is bound to cpus 0 although bind_to none asked for no binding"});
  EXPECT_EQ(
      placement_warnings({site(0, "a", "0", "0"), site(1, "a", "2", "1"), site(2, "b", "0", "0")},
                         {"core", 0}),
      std::vector<std::string>{"unbalanced: 2 ranks on a but 1 on b"});
  EXPECT_EQ(placement_warnings({site(0, "a", "0", "0"), site(1, "b", "0", "0")}, {"", 2}),
            (std::vector<std::string>{"1 ranks on a, not 2 as ranks_per_node asked",
                                      "1 ranks on b, not 2 as ranks_per_node asked"}));
  EXPECT_EQ(placement_warnings({site(0, "a", "0", "0", "0", 8, "1")}, {"", 0}),
            std::vector<std::string>{
                "rank 0 on a runs on NUMA 0 but the host's InfiniBand NICs are on NUMA 1"});
  RankPlacement far_from_gpu = site(0, "a", "0", "0", "0");
  far_from_gpu.gpu = "0000:3c:00.0";
  far_from_gpu.gpu_numa = "1";
  EXPECT_EQ(
      placement_warnings({far_from_gpu}, {"", 0}),
      std::vector<std::string>{"rank 0 on a runs on NUMA 0 but its GPU 0000:3c:00.0 is on NUMA 1"});
  // Oversubscription the user allowed is not a surprise.
  EXPECT_TRUE(placement_warnings({site(0, "a", "0", "0"), site(1, "a", "0", "0")},
                                 {"core:overload-allowed", 0})
                  .empty());
}

}  // namespace
}  // namespace colltune
