#pragma once
// What the text-log readers (nccl-tests, OSU) share: splitting a line, reading a number whole,
// and the Dataset a log becomes before its records.

#include <charconv>
#include <optional>
#include <string>
#include <vector>

#include "store/results.hpp"

namespace colltune {

// The log's lines in order (line k at index k - 1), a trailing \r dropped (logs that passed
// through Windows).
std::vector<std::string> text_log_lines(const std::string& text);

std::vector<std::string> text_log_words(const std::string& line);

// The whole word as a number, or nullopt ("12x", "N/A", "").
template <typename T>
std::optional<T> text_log_number(const std::string& text) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// One point `point_id` (the baseline, labelled `label`), one launch; kind "<point_id>-log"; the
// start time from the file's modification time (logs carry no date) and the notes that say so
// and that a logged figure has no interval within its launch.
Dataset text_log_dataset(const std::string& path, const std::string& point_id,
                         const std::string& label);

}  // namespace colltune
