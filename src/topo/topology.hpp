#pragma once
// This machine's topology through hwloc: packages, NUMA nodes, cores, caches, PCI GPUs and NICs
// with their NUMA locality. HWLOC_XMLFILE, when set, replaces the machine (tests use fixtures).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace colltune {

struct NumaInfo {
  int os_index = 0;
  std::string cpus;  // cpulist of its PUs
  std::uint64_t memory_bytes = 0;
};

struct CacheInfo {
  int level = 0;
  std::uint64_t size_bytes = 0;
  int count = 0;
};

struct PciInfo {
  std::string kind;   // gpu, infiniband, ethernet
  std::string busid;  // 0000:3b:00.0
  std::string names;  // OS devices below it: mlx5_0, eth0, ...
  std::string model;  // vendor and device as hwloc knows them
  int numa = -1;      // OS index of the nearest NUMA node, -1 when hwloc cannot tell
};

struct TopologySummary {
  int packages = 0, numa_nodes = 0, cores = 0, pus = 0;
  std::vector<NumaInfo> numa;
  std::vector<CacheInfo> caches;
  std::vector<PciInfo> gpus;
  std::vector<PciInfo> nics;
};

class Topology {
 public:
  // Loads this machine (or HWLOC_XMLFILE) with PCI devices. Throws std::runtime_error on failure.
  Topology();
  ~Topology();
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;

  TopologySummary summary() const;
  // Physical cores (logical indexes) and NUMA nodes (OS indexes) the given PUs fall in.
  std::vector<int> cores_of(const std::vector<int>& pus) const;
  std::vector<int> numa_of(const std::vector<int>& pus) const;
  int pu_count() const;
  // Binds the calling thread to the NUMA node's PUs and returns `bytes` of memory bound there
  // (freed with free_on_node); nullptr if the node cannot be bound.
  void* alloc_on_node(int numa_os_index, std::size_t bytes);
  void free_on_node(void* p, std::size_t bytes);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace colltune
