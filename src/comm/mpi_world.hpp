#pragma once
// MPI bootstrap and the few world-wide operations the runner needs; mpi.h stays in the .cpp.

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/measurement.hpp"

namespace colltune {

// When the MPI tool interface (MPI_T) opens: on demand, or before MPI_Init, where Open MPI 4.1
// sets it up alongside MPI in ~0.01 s instead of ~0.2 s on first use after.
enum class ToolInterface { kOnDemand, kBeforeInit };

class MpiWorld {
 public:
  // Calls MPI_Init_thread; the one MpiWorld of a process lives for the whole run. The destructor
  // finalizes only on a normal exit: while an exception unwinds, peers may sit in a collective,
  // so the catch site aborts the job instead.
  // With use_mpi false (a GPU backend started without mpirun or srun) the world is this one
  // process and MPI is never initialised, so a GPU host without an MPI launcher still works.
  MpiWorld(int* argc, char*** argv, bool use_mpi = true,
           ToolInterface tool = ToolInterface::kOnDemand);
  ~MpiWorld();
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }
  const std::string& host() const { return host_; }

  // Collective calls: every rank calls them in the same order.
  void barrier() const;
  std::vector<std::string> all_gather(const std::string& mine) const;
  std::uint64_t sum_over_ranks(std::uint64_t mine) const;
  // Rank 0's `bytes` bytes at `data` replace every other rank's.
  void broadcast_bytes(void* data, std::size_t bytes) const;
  // Element-wise maximum over ranks, in place; every rank passes the same length.
  void max_over_ranks(std::vector<double>& values) const;
  // Every process's `values` (the same length on each), in rank order, on rank 0; other ranks
  // get an empty list.
  std::vector<std::vector<double>> gather_to_root(const std::vector<double>& values) const;
  // Element-wise rank 0's value, mean, minimum or maximum over ranks, in place (-a).
  void reduce_over_ranks(std::vector<double>& values, RankReduction how) const;

  // MPI_Get_library_version, one line.
  static std::string library_version();
  // Ends every rank of the job with `code`; used when a rank cannot go on.
  [[noreturn]] static void abort(int code);
  // True between MPI_Init and MPI_Finalize.
  static bool active();
  // MPI_Finalize after an error every rank saw alike (bad input), so all exit cleanly.
  static void finalize();

 private:
  int rank_ = 0;
  int size_ = 1;
  int local_rank_ = 0;
  std::string host_;
  bool solo_ = false;
};

// The job's processes grouped by host name, hosts in order of first appearance.
struct HostGroups {
  int host = 0;          // this process's host: an index into ranks_per_host
  int rank_in_host = 0;  // this process among its host's, in world rank order
  std::vector<int> ranks_per_host;
  std::vector<int> first_rank_of_host;  // the world rank of each host's first process
};

// `hosts`: every world rank's host name, in rank order; `rank`: this process's world rank.
inline HostGroups group_by_host(const std::vector<std::string>& hosts, int rank) {
  std::vector<std::string> seen;
  HostGroups g;
  for (std::size_t r = 0; r < hosts.size(); ++r) {
    auto it = std::find(seen.begin(), seen.end(), hosts[r]);
    if (it == seen.end()) {
      seen.push_back(hosts[r]);
      g.ranks_per_host.push_back(0);
      g.first_rank_of_host.push_back(static_cast<int>(r));
      it = seen.end() - 1;
    }
    const int index = static_cast<int>(it - seen.begin());
    if (static_cast<int>(r) == rank) {
      g.host = index;
      g.rank_in_host = g.ranks_per_host[static_cast<std::size_t>(index)];
    }
    ++g.ranks_per_host[static_cast<std::size_t>(index)];
  }
  return g;
}

// Collective: every rank calls it. The same host names as the records' placement, so a split by
// host and health's reading of it agree on what a node is.
inline HostGroups host_groups(const MpiWorld& world) {
  return group_by_host(world.all_gather(world.host()), world.rank());
}

}  // namespace colltune
