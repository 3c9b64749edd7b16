#pragma once

#include <string>
#include <vector>

namespace colltune {

// `colltune topo`: this machine's topology, InfiniBand ports and (with --ceilings) measured
// copy bandwidths; text or JSON. Runs on one host, no MPI.
int topo_command(const std::vector<std::string>& args);

// The measured ceilings of this host as JSON, for a sweep's store.
std::string host_ceilings_json();

}  // namespace colltune
