#include "store/text_log_parts.hpp"

#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <sstream>

namespace colltune {

std::vector<std::string> text_log_lines(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    out.push_back(std::move(line));
  }
  return out;
}

std::vector<std::string> text_log_words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

Dataset text_log_dataset(const std::string& path, const std::string& point_id,
                         const std::string& label) {
  Dataset d;
  d.source = path;
  d.kind = point_id + "-log";
  d.name = label;
  d.points.push_back({point_id, label, {}, true});
  std::error_code ec;
  const auto mtime = std::filesystem::last_write_time(path, ec);
  if (!ec) {
    const std::time_t when =
        std::chrono::system_clock::to_time_t(std::chrono::file_clock::to_sys(mtime));
    std::tm tm{};
    gmtime_r(&when, &tm);
    char text[32];
    std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &tm);
    d.started_utc = text;
    d.launch_starts_utc.push_back(d.started_utc);
    d.notes.push_back(
        fmt::format("{}: start time {} is the file's modification time (the log carries no date)",
                    path, d.started_utc));
  }
  d.notes.push_back(fmt::format(
      "{}: read from a text log: one logged figure per size, no raw samples, so no interval "
      "within the launch",
      path));
  return d;
}

}  // namespace colltune
