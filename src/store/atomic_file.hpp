#pragma once
// Output that is complete or absent: lines go to "<path>.partial", flushed one by one so a crash
// keeps every finished line there; commit() renames it to <path>.

#include <cstdio>
#include <string>

namespace colltune {

class LineFile {
 public:
  // Opens "<path>.partial" for writing; open_error() says why when it could not.
  explicit LineFile(std::string path);
  const std::string& open_error() const { return open_error_; }
  // Without commit(), a .partial file holding finished lines stays for inspection; one that
  // holds none is removed, so a run stopped before measuring leaves nothing behind.
  ~LineFile();
  LineFile(const LineFile&) = delete;
  LineFile& operator=(const LineFile&) = delete;

  void append_line(const std::string& line);  // writes line + '\n' and flushes
  void commit();                              // fsync, close, rename to the final path

 private:
  std::string path_;
  std::string partial_path_;
  std::FILE* file_ = nullptr;
  std::string open_error_;
  std::size_t lines_ = 0;
};

}  // namespace colltune
