#include "report/jsonl_reporter.hpp"

#include "store/json_text.hpp"
#include "store/record.hpp"

namespace colltune {

void JsonlReporter::add(const Measurement& m) {
  // Bytes that are not UTF-8 (an environment value, a hostname) are escaped, never fatal.
  file_.append_line(dump_json_text(make_record(m, context_)));
}

}  // namespace colltune
