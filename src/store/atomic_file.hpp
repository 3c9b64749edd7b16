#pragma once
// Output that is complete or absent, and never replaces what is not a file of ours: a regular
// file (or a path not there yet) is written beside itself and renamed over; a symlink is followed
// and its target replaced, never the link; a device, FIFO, or anything under /dev or /proc
// (/dev/stdout, /proc/self/fd/1) is written through in place, so a CI job's stdout survives.

#include <cstdio>
#include <functional>
#include <string>
#include <string_view>

namespace colltune {

// What an output path names once checked. Every caller's output path passes here first.
struct OutputTarget {
  std::string path;            // the file to write: a symlink's target, not the link
  bool write_through = false;  // a device or FIFO: opened and written in place, never renamed
  int descriptor = -1;  // /dev/stdout, /proc/self/fd/N: this process's own open descriptor N,
                        // written directly so its offset is shared with whoever else writes it
};

// Checks `path` before any work, as the flag `flag` gave it: a directory, a socket, a missing or
// unwritable parent directory are ConfigError "FLAG: 'PATH' ...; allowed: ..." (exit 2).
OutputTarget check_output_path(std::string_view flag, const std::string& path);

// Checks a directory that output will go into, before any work: an existing one must be a
// writable directory; a missing one must be makeable (its nearest existing ancestor writable).
void check_output_directory(std::string_view flag, const std::string& dir);

// Writes `text` to `path` whole: via "<target>.tmp", fsync and rename (the temporary is removed
// on any failure), or written through for a device. A short write (a full disk, /dev/full)
// throws std::runtime_error naming the path and the system's reason.
void write_file_atomic(const std::string& path, const std::string& text);

// Text as it is made, a piece at a time (a file, stdout).
using TextSink = std::function<void(std::string_view)>;

// The same, for text made a piece at a time: `produce` hands each piece to the sink it is given
// and is not held whole (a 10^6-row CSV). Should `produce` throw, nothing is left behind.
void write_file_atomic(const std::string& path,
                       const std::function<void(const TextSink&)>& produce);

class LineFile {
 public:
  // Opens "<target>.partial" (or the device itself) for writing; open_error() says why it could
  // not, naming `flag`.
  explicit LineFile(std::string path, std::string_view flag = "--json");
  const std::string& open_error() const { return open_error_; }
  // Without commit(), a .partial file holding finished lines stays for inspection; one that
  // holds none is removed, so a run stopped before measuring leaves nothing behind.
  ~LineFile();
  LineFile(const LineFile&) = delete;
  LineFile& operator=(const LineFile&) = delete;

  void append_line(const std::string& line);  // writes line + '\n' and flushes; throws if short
  void commit();                              // fsync, close, rename to the final path

 private:
  OutputTarget target_;
  std::string partial_path_;  // the file written: "<target>.partial", or the device
  std::FILE* file_ = nullptr;
  std::string open_error_;
  std::size_t lines_ = 0;
};

}  // namespace colltune
