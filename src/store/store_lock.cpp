#include "store/store_lock.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/errors.hpp"
#include "core/timestamp.hpp"

namespace colltune {

StoreLock::StoreLock(const std::string& store_dir) {
  const std::string path = store_dir + "/driver.lock";
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    throw ConfigError(fmt::format("store: '{}' cannot be locked ({}); allowed: a writable store",
                                  store_dir, std::strerror(errno)));
  }
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    char holder[512] = {};
    const ssize_t got = ::pread(fd_, holder, sizeof holder - 1, 0);
    ::close(fd_);
    fd_ = -1;
    std::string who = got > 0 ? std::string(holder, static_cast<std::size_t>(got)) : "";
    while (!who.empty() && (who.back() == '\n' || who.back() == ' ')) who.pop_back();
    if (error == EWOULDBLOCK) {
      throw ConfigError(fmt::format(
          "store: '{}' is in use by another colltune sweep ({}); allowed: one driver per store: "
          "wait for it to end, or stop it, then --resume",
          store_dir, who.empty() ? "holder unknown" : who));
    }
    throw ConfigError(
        fmt::format("store: '{}' cannot be locked ({}); allowed: a filesystem with "
                    "flock (local, NFS v4, Lustre with -o flock)",
                    store_dir, std::strerror(error)));
  }
  char host[256] = "unknown";
  ::gethostname(host, sizeof host - 1);
  const std::string who = fmt::format("pid {} on {} since {}\n", ::getpid(), host, utc_timestamp());
  if (::ftruncate(fd_, 0) != 0 ||
      ::pwrite(fd_, who.data(), who.size(), 0) != static_cast<ssize_t>(who.size())) {
    // The lock holds without the note; only a second driver's message loses the holder's name.
  }
}

StoreLock::~StoreLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the lock
}

}  // namespace colltune
