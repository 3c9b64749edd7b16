#pragma once
// "Did you mean": the closest known word to a misspelt one.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colltune {

// The entry of `known` nearest to `word` by edit distance, if it is close enough to be a typo
// (at most a third of the word's length, and at least 1 edit).
std::optional<std::string> nearest_word(std::string_view word,
                                        const std::vector<std::string>& known);

}  // namespace colltune
