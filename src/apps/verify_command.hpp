#pragma once
// colltune verify TUNED: the tuned file applied against the defaults, measured in fresh
// launches before anyone deploys it.

#include <string>
#include <vector>

namespace colltune {

// Exit: 0 nowhere shown slower by more than 5%, 1 slower somewhere (naming the rows), 3 could not
// tell, 2 bad input; what a sweep's launches return when they could not all run (3, 130).
int verify_command(const std::vector<std::string>& args);

}  // namespace colltune
