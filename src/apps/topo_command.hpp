#pragma once

#include <string>
#include <vector>

namespace colltune {

// `colltune topo`: this machine's topology, InfiniBand ports and (with --ceilings) measured
// copy bandwidths; with --list-algorithms, the MPI's algorithm knobs (MPI_T). Text or JSON. One
// host, no launch.
int topo_command(const std::vector<std::string>& args);

// The measured ceilings of this host as JSON, for a sweep's store.
std::string host_ceilings_json();

}  // namespace colltune
