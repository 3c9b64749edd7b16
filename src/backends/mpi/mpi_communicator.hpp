#pragma once
// The MPI backend: host buffers (or GPU buffers with a CUDA-aware MPI), blocking MPI
// collectives, MPI_Wtime.

#include "comm/communicator.hpp"
#include "comm/device_memory.hpp"
#include "comm/mpi_world.hpp"

namespace colltune {

class MpiCommunicator : public Communicator {
 public:
  // Duplicates MPI_COMM_WORLD so measured traffic never mixes with the runner's own, after
  // writing options.in_process_knobs (--interleave) so that the duplicate uses them. With
  // options.device_memory, first checks that MPI is CUDA-aware and opens the rank's GPU through
  // `open_device` (empty in a build without CUDA); ConfigError alike on every rank if not.
  // Collective.
  MpiCommunicator(const MpiWorld& world, const BackendOptions& options,
                  const DeviceMemoryOpener& open_device = {});
  ~MpiCommunicator() override;

  std::string backend() const override { return "mpi"; }
  int nranks() const override { return size_; }
  std::map<std::string, std::string> library_versions() const override;
  std::vector<DeviceInfo> devices() const override;              // the GPU under --buffers device
  std::map<std::string, std::string> settings() const override;  // memory: host or device
  std::optional<std::string> unsupported(const Collective& c) const override;
  std::unique_ptr<Buffers> allocate(const Collective& c, std::size_t sets) override;
  // Host memory serves any MPI_Comm; device memory belongs to this communicator's GPU handle.
  bool buffers_shareable() const override;
  void activate() override;
  void launch(const Collective& c, Buffers& buffers, int n) override;
  void synchronize(std::chrono::milliseconds) override {}  // MPI calls here are blocking
  std::unique_ptr<Timer> timer() override;
  void fill(const Collective& c, Buffers& buffers, const Pattern& p) override;
  std::uint64_t check(const Collective& c, Buffers& buffers, const Pattern& p,
                      bool corrupt_one) override;

 private:
  struct Impl;
  void run_one(const Collective& c, void* send, void* recv);
  void run_p2p(const Collective& c, void* send, void* recv);
  std::unique_ptr<Impl> impl_;  // holds the MPI_Comm, so this header needs no mpi.h
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace colltune
