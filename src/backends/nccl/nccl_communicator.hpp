#pragma once
// The NCCL backend: one or more GPUs per process (-g), one communicator rank per GPU; device
// buffers, CUDA events for timing, optional CUDA graphs, validation kernels on the device, and a
// watchdog-friendly synchronize that aborts the communicator instead of hanging.

#include <memory>

#include "comm/communicator.hpp"
#include "comm/mpi_world.hpp"

namespace colltune {

class NcclCommunicator : public Communicator {
 public:
  // Collective over `world`: picks options.gpus GPUs, shares the ncclUniqueId over MPI (none
  // needed without it), creates one communicator rank per GPU. Throws ConfigError on every rank
  // alike when a rank has too few GPUs.
  NcclCommunicator(MpiWorld& world, const BackendOptions& options);
  ~NcclCommunicator() override;

  std::string backend() const override { return "nccl"; }
  std::map<std::string, std::string> library_versions() const override;
  int nranks() const override;
  std::vector<DeviceInfo> devices() const override;
  std::map<std::string, std::string> settings() const override;
  std::optional<std::string> unsupported(const Collective& c) const override;
  std::optional<std::string> probe(const Collective& c) override;
  void reserve(std::uint64_t bytes) override;
  std::unique_ptr<Buffers> allocate(const Collective& c, std::size_t sets) override;
  void prepare(const Collective& c, Buffers& buffers, int n, int batches) override;
  void launch(const Collective& c, Buffers& buffers, int n) override;
  void synchronize(std::chrono::milliseconds timeout) override;
  std::unique_ptr<Timer> timer() override;
  void fill(const Collective& c, Buffers& buffers, const Pattern& p) override;
  std::uint64_t check(const Collective& c, Buffers& buffers, const Pattern& p,
                      bool corrupt_one) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace colltune
