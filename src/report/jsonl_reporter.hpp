#pragma once
// One JSON record per measurement, one per line; the file appears whole at end().

#include <memory>
#include <string>

#include "report/reporter.hpp"
#include "store/atomic_file.hpp"

namespace colltune {

class JsonlReporter : public Reporter {
 public:
  // Opens "<path>.partial" at once, so an unwritable path fails before anything is measured.
  explicit JsonlReporter(const std::string& path) : file_(path) {}
  const std::string& open_error() const { return file_.open_error(); }
  void begin(const RunContext& context) override { context_ = context; }
  void add(const Measurement& m) override;
  void end() override { file_.commit(); }

 private:
  LineFile file_;
  RunContext context_;
};

}  // namespace colltune
