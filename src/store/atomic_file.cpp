#include "store/atomic_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "core/errors.hpp"

namespace colltune {
namespace {

namespace fs = std::filesystem;

constexpr const char* kAllowed =
    "allowed: a new or regular file in a writable directory, a symlink to one, a device or a FIFO";

bool under(const std::string& path, std::string_view prefix) {
  return path.compare(0, prefix.size(), prefix) == 0;
}

// N when `path` is "/proc/self/fd/N", "/proc/<our pid>/fd/N" or "/dev/fd/N".
int own_descriptor(const std::string& path) {
  for (const std::string& prefix :
       {std::string("/proc/self/fd/"), fmt::format("/proc/{}/fd/", ::getpid()),
        std::string("/dev/fd/")}) {
    if (!under(path, prefix)) continue;
    const std::string digits = path.substr(prefix.size());
    if (digits.empty() || digits.size() > 6 ||
        digits.find_first_not_of("0123456789") != std::string::npos)
      return -1;
    return std::stoi(digits);
  }
  return -1;
}

// Follows `path`'s symlinks by hand (a dangling link's target is where the file will be made).
// Sets `via_descriptor` when a hop runs through /proc or /dev/fd, and `descriptor` when one names
// an open descriptor of ours: /dev/stdout then is the caller's stdout, which may be a regular
// file the shell is still writing.
std::string follow_links(const std::string& path, bool& via_descriptor, int& descriptor) {
  fs::path current = fs::absolute(path).lexically_normal();
  for (int hop = 0; hop < 40; ++hop) {
    const std::string text = current.string();
    via_descriptor = via_descriptor || under(text, "/proc/") || under(text, "/dev/fd/");
    if (descriptor < 0) descriptor = own_descriptor(text);
    std::error_code ec;
    if (!fs::is_symlink(fs::symlink_status(current, ec))) return text;
    const fs::path next = fs::read_symlink(current, ec);
    if (ec) return text;
    current = (next.is_absolute() ? next : current.parent_path() / next).lexically_normal();
  }
  return current.string();
}

OutputTarget resolve_output(const std::string& path) {
  OutputTarget t;
  bool via_descriptor = false;
  int descriptor = -1;
  t.path = follow_links(path, via_descriptor, descriptor);
  struct stat st {};
  // stat() on the given path, not the walked one: /proc/self/fd/1 may name "pipe:[123]".
  if (::stat(path.c_str(), &st) == 0) {
    t.write_through = !S_ISREG(st.st_mode) || via_descriptor;
    if (t.write_through) t.path = path;
    if (t.write_through && descriptor >= 0 && ::fcntl(descriptor, F_GETFD) != -1)
      t.descriptor = descriptor;
  }
  return t;
}

// Creates and removes a file in `dir`: the one test of writability that holds for root, for
// read-only mounts and for ACLs alike.
std::string unwritable_reason(const std::string& dir) {
  std::string probe = (fs::path(dir.empty() ? "." : dir) / ".colltune-probe-XXXXXX").string();
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) return std::strerror(errno);
  ::close(fd);
  ::unlink(probe.c_str());
  return "";
}

// write(2) until done; false with errno set on a short write (ENOSPC on /dev/full).
bool write_all(int fd, std::string_view text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = ENOSPC;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// Why `path` cannot name a file on Linux, or "": a name past NAME_MAX (255 bytes) or a path
// past PATH_MAX. Said up front naming the flag, where the system's "File name too long" would
// come later from inside a library call.
std::string overlong(const std::string& path) {
  if (path.size() >= PATH_MAX)
    return fmt::format("is {} characters long; allowed: paths under {}", path.size(), PATH_MAX);
  for (const auto& part : fs::path(path)) {
    const std::size_t n = part.native().size();
    if (n > NAME_MAX)
      return fmt::format("has a name of {} characters; allowed: names of at most {}", n, NAME_MAX);
  }
  return "";
}

}  // namespace

OutputTarget check_output_path(std::string_view flag, const std::string& path) {
  const auto refuse = [&](const std::string& why) {
    return ConfigError(fmt::format("{}: '{}' {}; {}", flag, path, why, kAllowed));
  };
  if (path.empty()) throw refuse("is empty");
  if (const std::string why = overlong(path); !why.empty())
    throw ConfigError(fmt::format("{}: '{}' {}", flag, path, why));
  const OutputTarget t = resolve_output(path);
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw refuse("is a directory");
    if (S_ISSOCK(st.st_mode)) throw refuse("is a socket");
    if (t.write_through) {
      if (::access(path.c_str(), W_OK) != 0)
        throw refuse(fmt::format("cannot be written ({})", std::strerror(errno)));
      return t;
    }
  } else if (errno != ENOENT) {
    throw refuse(fmt::format("cannot be reached ({})", std::strerror(errno)));
  }
  const std::string dir = fs::path(t.path).parent_path().string();
  std::error_code ec;
  if (!fs::is_directory(dir.empty() ? "." : dir, ec))
    throw refuse(fmt::format("cannot be written (no directory '{}')", dir));
  const std::string why = unwritable_reason(dir);
  if (!why.empty()) throw refuse(fmt::format("cannot be written in '{}' ({})", dir, why));
  return t;
}

void check_output_directory(std::string_view flag, const std::string& dir) {
  if (const std::string why = overlong(dir); !why.empty())
    throw ConfigError(fmt::format("{}: '{}' {}", flag, dir, why));
  const fs::path wanted = fs::absolute(dir.empty() ? "." : dir).lexically_normal();
  fs::path existing = wanted;
  std::error_code ec;
  while (!fs::exists(existing, ec) && existing != existing.parent_path())
    existing = existing.parent_path();
  if (!fs::is_directory(existing, ec)) {
    throw ConfigError(fmt::format(
        "{}: '{}' is not a directory and cannot be one{}; allowed: a directory (made when "
        "missing) that can be written",
        flag, dir, existing == wanted ? "" : " (under " + existing.string() + ")"));
  }
  const std::string why = unwritable_reason(existing.string());
  if (!why.empty()) {
    throw ConfigError(fmt::format(
        "{}: '{}' cannot be written ({} in '{}'); allowed: a directory that can be written", flag,
        dir, why, existing.string()));
  }
}

void write_file_atomic(const std::string& path, const std::string& text) {
  write_file_atomic(path, [&](const TextSink& out) { out(text); });
}

void write_file_atomic(const std::string& path,
                       const std::function<void(const TextSink&)>& produce) {
  const OutputTarget t = resolve_output(path);
  // Pieces are gathered to about a megabyte before each write: a row at a time would be a
  // system call per row.
  constexpr std::size_t kChunkBytes = std::size_t{1} << 20;
  std::string pending;
  bool ok = true;
  int reason = 0;
  const auto run = [&](int fd) {
    const auto flush = [&] {
      if (ok && !write_all(fd, pending)) ok = false, reason = errno;
      pending.clear();
    };
    produce([&](std::string_view piece) {
      pending += piece;
      if (pending.size() >= kChunkBytes) flush();
    });
    flush();
  };
  if (t.descriptor >= 0) {
    run(t.descriptor);
    if (!ok)
      throw std::runtime_error(fmt::format("writing {} failed: {}", path, std::strerror(reason)));
    return;
  }
  const std::string file = t.write_through ? t.path : t.path + ".tmp";
  const int fd = t.write_through ? ::open(file.c_str(), O_WRONLY | O_APPEND)
                                 : ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0)
    throw std::runtime_error(fmt::format("cannot write {}: {}", file, std::strerror(errno)));
  try {
    run(fd);
  } catch (...) {
    ::close(fd);
    if (!t.write_through) ::unlink(file.c_str());  // a producer that failed leaves nothing
    throw;
  }
  if (ok && !t.write_through && ::fsync(fd) != 0) ok = false, reason = errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    reason = errno;
  }
  if (!ok) {
    if (!t.write_through) ::unlink(file.c_str());  // nothing half-written stays behind
    throw std::runtime_error(fmt::format("writing {} failed: {}", file, std::strerror(reason)));
  }
  if (!t.write_through && std::rename(file.c_str(), t.path.c_str()) != 0) {
    const int rename_error = errno;
    ::unlink(file.c_str());
    throw std::runtime_error(
        fmt::format("renaming {} failed: {}", file, std::strerror(rename_error)));
  }
}

LineFile::LineFile(std::string path, std::string_view flag) {
  try {
    target_ = check_output_path(flag, path);
  } catch (const ConfigError& e) {
    open_error_ = e.what();
    return;
  }
  partial_path_ = target_.write_through ? target_.path : target_.path + ".partial";
  if (target_.descriptor >= 0) {
    const int copy = ::dup(target_.descriptor);  // shares the offset; closing it leaves ours
    file_ = copy < 0 ? nullptr : ::fdopen(copy, "a");
  } else {
    file_ = std::fopen(partial_path_.c_str(), target_.write_through ? "a" : "w");
  }
  if (file_ == nullptr) {
    open_error_ = fmt::format("{}: '{}' cannot be written ({}); {}", flag, path,
                              std::strerror(errno), kAllowed);
  }
}

LineFile::~LineFile() {
  if (file_ == nullptr) return;
  std::fclose(file_);
  if (lines_ == 0 && !target_.write_through) std::remove(partial_path_.c_str());
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
  bool ok = std::fflush(file_) == 0 && (target_.write_through || ::fsync(::fileno(file_)) == 0);
  int reason = ok ? 0 : errno;
  if (std::fclose(file_) != 0 && ok) {
    ok = false;
    reason = errno;
  }
  file_ = nullptr;
  if (!ok) {
    throw std::runtime_error(
        fmt::format("writing {} failed: {}", partial_path_, std::strerror(reason)));
  }
  if (target_.write_through) return;
  if (std::rename(partial_path_.c_str(), target_.path.c_str()) != 0) {
    throw std::runtime_error(fmt::format("renaming {} to {} failed: {}", partial_path_,
                                         target_.path, std::strerror(errno)));
  }
}

}  // namespace colltune
