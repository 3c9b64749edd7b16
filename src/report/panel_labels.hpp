#pragma once
// The names a report gives its configurations: a point's label, and within one panel the short
// labels that say only what sets each configuration apart. Pure functions of the dataset.

#include <map>
#include <string>

#include "report/analysis.hpp"

namespace colltune {

// The point's label from the dataset (its sweep settings), or its id where it has none.
std::string label_of(const Dataset& d, const std::string& id);

// Labels within one panel say only what sets a configuration apart: the words ("key=value") every
// configuration of the panel shares go to `shared` once, and Open MPI's long parameter names are
// shortened (`key_note` says to what). Empty where two would come out alike: keep the full ones.
std::map<std::string, std::string> short_labels(const Panel& panel, const Dataset& d,
                                                std::string& shared, std::string& key_note);

}  // namespace colltune
