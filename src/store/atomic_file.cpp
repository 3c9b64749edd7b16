#include "store/atomic_file.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace colltune {

LineFile::LineFile(std::string path) : path_(std::move(path)), partial_path_(path_ + ".partial") {
  file_ = std::fopen(partial_path_.c_str(), "w");
  if (file_ == nullptr) {
    open_error_ = fmt::format(
        "--json: '{}' cannot be written ({}); allowed: a path in a "
        "writable directory",
        path_, std::strerror(errno));
  }
}

LineFile::~LineFile() {
  if (file_ == nullptr) return;
  std::fclose(file_);
  if (lines_ == 0) std::remove(partial_path_.c_str());
}

void LineFile::append_line(const std::string& line) {
  ++lines_;
  if (std::fputs(line.c_str(), file_) < 0 || std::fputc('\n', file_) == EOF ||
      std::fflush(file_) != 0) {
    throw std::runtime_error(
        fmt::format("writing {} failed: {}", partial_path_, std::strerror(errno)));
  }
}

void LineFile::commit() {
  ::fsync(::fileno(file_));
  std::fclose(file_);
  file_ = nullptr;
  if (std::rename(partial_path_.c_str(), path_.c_str()) != 0) {
    throw std::runtime_error(
        fmt::format("renaming {} to {} failed: {}", partial_path_, path_, std::strerror(errno)));
  }
}

}  // namespace colltune
