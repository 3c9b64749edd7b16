#include "report/jsonl_reporter.hpp"

#include "store/record.hpp"

namespace colltune {

void JsonlReporter::add(const Measurement& m) {
  file_.append_line(make_record(m, context_).dump());
}

}  // namespace colltune
