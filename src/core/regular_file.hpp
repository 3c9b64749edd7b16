#pragma once
// Reading an input file that someone else may have named: only a regular file, only up to a cap.
// A FIFO, a terminal or /dev/zero given as a run, a log, a hostfile or COLLTUNE_TUNER_FILE would
// otherwise block the reader forever or fill its memory. Header-only, POSIX, no exceptions, so
// that the tuner plugin (inside NCCL's process, linking no colltune library) reads the same way.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <string>

namespace colltune {

// Larger than any input colltune reads whole (a 10^6-record run file is about 600 MB and is read
// a line at a time; tuned files, manifests and hostfiles are kilobytes to megabytes).
inline constexpr std::size_t kMaxInputFileBytes = std::size_t{1} << 30;

// Why `path` (links followed) is not a regular file to read, or empty when it is one: for
// readers that stream a file line by line. Never throws except std::bad_alloc.
inline std::string not_regular_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::string("cannot be read: ") + std::strerror(errno);
  if (S_ISREG(st.st_mode)) return {};
  if (S_ISDIR(st.st_mode)) return "is a directory; allowed: a regular file";
  return std::string("is ") +
         (S_ISFIFO(st.st_mode)   ? "a FIFO"
          : S_ISCHR(st.st_mode)  ? "a character device"
          : S_ISSOCK(st.st_mode) ? "a socket"
                                 : "not a plain file") +
         "; allowed: a regular file";
}

// Reads `path` into `text` when it is a regular file of at most `max_bytes`. Otherwise returns
// false with `problem` saying why ("is a FIFO, not a regular file", "is 2 GiB; allowed: ...",
// "cannot be read: <errno text>"). Opened non-blocking, so that a FIFO without a writer never
// blocks. Never throws except std::bad_alloc; any thread.
inline bool read_regular_file(const std::string& path, std::size_t max_bytes, std::string& text,
                              std::string& problem) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    problem = std::string("cannot be read: ") + std::strerror(errno);
    return false;
  }
  struct stat st {};
  bool ok = ::fstat(fd, &st) == 0;
  if (!ok) {
    problem = std::string("cannot be read: ") + std::strerror(errno);
  } else if (!S_ISREG(st.st_mode)) {
    problem = not_regular_file(path);
    ok = false;
  } else if (static_cast<unsigned long long>(st.st_size) > max_bytes) {
    problem = "is " + std::to_string(st.st_size) + " bytes; allowed: at most " +
              std::to_string(max_bytes);
    ok = false;
  }
  text.clear();
  char buffer[1 << 16];
  while (ok) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      problem = std::string("cannot be read: ") + std::strerror(errno);
      ok = false;
    } else if (n == 0) {
      break;
    } else if (text.size() + static_cast<std::size_t>(n) > max_bytes) {
      problem = "grew past " + std::to_string(max_bytes) + " bytes while read";
      ok = false;
    } else {
      text.append(buffer, static_cast<std::size_t>(n));
    }
  }
  ::close(fd);
  return ok;
}

}  // namespace colltune
