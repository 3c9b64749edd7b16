#pragma once
// colltune health [SPEC]: names the slow or failed node or link of a cluster, with evidence.

#include <string>
#include <vector>

namespace colltune {

// Exit: 0 all ok, 1 some node or link slow or failed, 3 could not check, 2 bad input (before
// any launch).
int health_command(const std::vector<std::string>& args);

}  // namespace colltune
