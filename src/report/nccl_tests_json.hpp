#pragma once
// -J FILE: nccl-tests' JSON document (schema version 3, as nccl-tests 2.19 writes it), so
// dashboards that read nccl-tests keep working. Rewritten whole to "<path>.partial" after every
// row, so a crash keeps a valid document of the finished rows; renamed to <path> at end().
// Rank 0 only. Differences from nccl-tests, by design: "env" holds colltune's allow-listed,
// redacted environment (never secrets); "time" is the median sample (microseconds); pid and
// device index, which colltune does not record, are null; "experiment_name" is the collective.
// With -I 1 each row's half also gets nccl-tests' "<half>_per_iter" object: the statistics of
// its iterations (colltune's samples) and, over several processes, each process's own times.

#include <nlohmann/json.hpp>
#include <string>

#include "report/reporter.hpp"
#include "store/atomic_file.hpp"

namespace colltune {

class NcclTestsJsonReporter : public Reporter {
 public:
  // Checks the path at once (check_output_path); open_error() says why it cannot be written.
  // per_iter_skip: leading iterations (-K) left out of the per-iteration statistics.
  explicit NcclTestsJsonReporter(std::string path, bool per_iter_timing = false,
                                 int per_iter_skip = 0);
  const std::string& open_error() const { return open_error_; }
  void begin(const RunContext& context) override;
  void add(const Measurement& m) override;
  void end() override;

 private:
  void write_partial(bool done = false);

  std::string path_;
  OutputTarget target_;
  std::string open_error_;
  nlohmann::ordered_json doc_;
  std::uint64_t wrong_ = 0;
  double busbw_sum_gbps_ = 0;
  int busbw_rows_ = 0;
  bool cpu_time_ = false;
  bool per_iter_timing_ = false;
  int per_iter_skip_ = 0;
};

}  // namespace colltune
