#pragma once
// The one interface every backend implements (DESIGN.md section 2).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/collective.hpp"
#include "core/pattern.hpp"

namespace colltune {

// Memory for one Collective, owned by the backend that allocated it (RAII).
class Buffers {
 public:
  virtual ~Buffers() = default;
};

// Wall time of a stretch of launches as the backend sees it (MPI_Wtime, CUDA events).
class Timer {
 public:
  virtual ~Timer() = default;
  virtual void start() = 0;      // right before the launch
  virtual void stop() = 0;       // right after launch() returns, before synchronize()
  virtual double seconds() = 0;  // after synchronize(): seconds from start to stop
};

// Backend settings from the command line; each backend reads what concerns it.
struct BackendOptions {
  bool device_memory = false;  // --buffers device: MPI's buffers on the rank's GPU
  int gpus = 1;                // -g: GPUs this process drives, one communicator rank each
  int device = -1;             // first GPU to use; -1: local rank x gpus, modulo the visible GPUs
  bool graph = false;          // -G: capture each batch in a CUDA graph and replay it
  int aggregate = 1;           // -m: ops issued as one NCCL group (nccl-tests' agg_iters)
  int nccl_blocking = 1;       // ncclConfig_t fields; -1 leaves NCCL's default
  int cga_cluster_size = -1;
  int min_ctas = -1;
  int max_ctas = -1;
  std::string net_name;
  // NCCL: measured buffers from ncclMemAlloc (cuMem, as nccl-tests allocates: NCCL can register
  // them for NVLS and zero-copy paths, under -G too), or cudaMalloc (--allocator cudamalloc).
  bool nccl_mem_alloc = true;
  // --interleave: knobs (environment name -> value or "default") in force while this
  // communicator is created, one communicator per setting. MPI: OMPI_MCA_ parameters written
  // through MPI_T before it is created, MPIR_CVAR_ ones (MPICH) before each of its calls; NCCL:
  // NCCL_ALGO / NCCL_PROTO set in the environment around the init.
  std::map<std::string, std::string> in_process_knobs;
  // --split host: one communicator per host, of that host's ranks, every host measuring alone at
  // the same time (colltune health's stage 1 in one launch). MPI only.
  bool split_by_host = false;
};

struct DeviceInfo {
  std::string bus_id;  // PCI bus id, "0000:3b:00.0"
  std::string model;   // name, memory and compute capability: "NVIDIA H200, 143771 MiB, sm_90"
};

class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual std::string backend() const = 0;
  // Library name -> version text, for the run context. Called on every rank.
  virtual std::map<std::string, std::string> library_versions() const = 0;
  // Ranks of the measured communicator: the processes times the GPUs each drives (-g).
  virtual int nranks() const = 0;
  // The GPUs this process drives, in communicator-rank order; empty for host-only backends.
  virtual std::vector<DeviceInfo> devices() const { return {}; }
  // The backend's settings in effect, for the run context (NCCL: -G and the ncclConfig_t
  // fields); empty where there are none.
  virtual std::map<std::string, std::string> settings() const { return {}; }
  // Why `c` cannot run here (a skip, not an error), or nullopt: from what this rank knows alone.
  virtual std::optional<std::string> unsupported(const Collective& c) const = 0;
  // Why the library itself says it cannot run `c` here, asked without running it; nullopt where
  // it can or cannot be asked. Collective: every rank calls it for the same `c`, after no rank's
  // unsupported(c) gave a reason.
  virtual std::optional<std::string> probe(const Collective&) { return std::nullopt; }
  // Untimed, once per launch before the first allocate(): room for any allocate() of up to
  // `bytes` per rank (a GPU's share under -g), so that every size runs in one allocation at one
  // address, as in nccl-tests. Collective: all ranks call it with the same `bytes`.
  virtual void reserve(std::uint64_t bytes) { (void)bytes; }
  // `sets` buffer sets, rotated through by launch() so a set is cold when used again.
  virtual std::unique_ptr<Buffers> allocate(const Collective& c, std::size_t sets) = 0;
  // Whether another communicator of this backend may use buffers this one allocated (plain
  // host memory, no per-communicator state such as captured graphs).
  virtual bool buffers_shareable() const { return false; }
  // Untimed, before timing: readies the next `batches` calls of launch(c, buffers, n) so that
  // they only launch (NCCL -G: captures and instantiates their graphs; until then launch() runs
  // eagerly, as warm-up does). All ranks call it.
  virtual void prepare(const Collective& c, Buffers& buffers, int n, int batches) {
    (void)c, (void)buffers, (void)n, (void)batches;
  }
  // Untimed, before each timed batch: puts in force the settings this communicator's calls read
  // at every call (MPICH's algorithm variables under --interleave). All ranks call it.
  virtual void activate() {}
  // Issues `n` ops back to back, each on the next buffer set. All ranks call it.
  virtual void launch(const Collective& c, Buffers& buffers, int n) = 0;
  // Waits for launched work; throws TimeoutError past `timeout`.
  virtual void synchronize(std::chrono::milliseconds timeout) = 0;
  virtual std::unique_ptr<Timer> timer() = 0;
  // Writes the inputs into the first buffer set and makes it the next one launch() uses.
  virtual void fill(const Collective& c, Buffers& buffers, const Pattern& p) = 0;
  // Wrong elements of this rank's output in the first set. `corrupt_one` flips one output
  // element first (test-only: proves the check can fail).
  virtual std::uint64_t check(const Collective& c, Buffers& buffers, const Pattern& p,
                              bool corrupt_one) = 0;
};

}  // namespace colltune
