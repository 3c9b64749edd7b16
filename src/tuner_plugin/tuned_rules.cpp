#include "tuner_plugin/tuned_rules.hpp"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <tuple>

#include "core/json_depth.hpp"
#include "core/nccl_tuned_format.hpp"

namespace colltune {
namespace {

namespace tf = tuned_format;
using nlohmann::json;

[[noreturn]] void bad(int row, std::string_view field, const std::string& value,
                      std::string_view allowed) {
  throw std::runtime_error((row > 0 ? "row " + std::to_string(row) + ": " : std::string()) +
                           std::string(field) + ": " + value +
                           "; allowed: " + std::string(allowed));
}

std::uint64_t unsigned_field(const json& row, int line, const char* field, std::uint64_t low,
                             std::uint64_t high) {
  const auto it = row.find(field);
  if (it == row.end()) bad(line, field, "missing", "an integer");
  if (!it->is_number_unsigned() || it->get<std::uint64_t>() < low ||
      it->get<std::uint64_t>() > high) {
    bad(line, field, it->dump(),
        "an integer from " + std::to_string(low) + " to " + std::to_string(high));
  }
  return it->get<std::uint64_t>();
}

template <std::size_t N>
int name_field(const json& row, int line, const char* field,
               const std::array<std::string_view, N>& names, bool any_allowed) {
  std::string allowed = any_allowed ? std::string(tf::kAny) : std::string();
  for (auto n : names) allowed += (allowed.empty() ? "" : " ") + std::string(n);
  const auto it = row.find(field);
  if (it == row.end() || !it->is_string()) {
    bad(line, field, it == row.end() ? "missing" : it->dump(), allowed);
  }
  const std::string value = it->get<std::string>();
  if (any_allowed && value == tf::kAny) return -1;
  const int id = tf::id_of(names, value);
  if (id < 0) bad(line, field, "'" + value + "'", allowed);
  return id;
}

// Finds the first key given twice in one object; builds no values.
struct DuplicateKeys : json::json_sax_t {
  std::vector<std::vector<std::string>> open;  // the keys of each object being read
  std::string duplicate;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    open.emplace_back();
    return true;
  }
  bool key(string_t& name) override {
    auto& seen = open.back();
    if (duplicate.empty() && std::find(seen.begin(), seen.end(), name) != seen.end())
      duplicate = name;
    seen.push_back(name);
    return true;
  }
  bool end_object() override {
    open.pop_back();
    return true;
  }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;  // the DOM parse says "not JSON"
  }
};

}  // namespace

std::vector<TunedRow> parse_tuned_file(std::string_view text) {
  // Too deep a nesting would overflow the stack of NCCL's process (the parser recurses per
  // level): refused before parsing.
  if (!json_depth_within(text)) {
    bad(0, "file", "nests deeper than " + std::to_string(kMaxJsonDepth) + " levels",
        "a colltune tuned file (JSON)");
  }
  // A key given twice in one object: the JSON library keeps the last silently, so the file
  // would mean something other than what its first reading shows. A SAX pass that keeps only
  // the keys (a parse callback copies every value and made 100,000 rows 5x slower to load).
  DuplicateKeys keys;
  json::sax_parse(text, &keys, json::input_format_t::json, false);
  const json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded()) bad(0, "file", "not JSON", "a colltune tuned file (JSON)");
  if (!keys.duplicate.empty())
    bad(0, "key", "'" + keys.duplicate + "' given twice in one object", "each key once");
  if (!doc.is_object() || doc.value("format", json()) != tf::kFormat) {
    bad(0, "format",
        doc.is_object() ? doc.value("format", json()).dump() : doc.dump().substr(0, 40),
        std::string(tf::kFormat) + " (from colltune tune --emit nccl-plugin)");
  }
  if (doc.value("version", json()) != tf::kVersion) {
    bad(0, "version", doc.value("version", json()).dump(), std::to_string(tf::kVersion));
  }
  const auto rows = doc.find("rows");
  if (rows == doc.end() || !rows->is_array()) bad(0, "rows", "missing", "a list of rows");
  std::vector<TunedRow> out;
  out.reserve(rows->size());
  int line = 0;
  for (const json& r : *rows) {
    ++line;
    if (!r.is_object()) bad(line, "row", r.dump().substr(0, 40), "an object");
    TunedRow row;
    row.line = line;
    row.collective = name_field(r, line, "collective", tf::kCollectives, false);
    row.min_bytes = unsigned_field(r, line, "min_bytes", 0, UINT64_MAX);
    row.max_bytes = unsigned_field(r, line, "max_bytes", 0, UINT64_MAX);
    if (row.min_bytes > row.max_bytes) {
      bad(line, "min_bytes", std::to_string(row.min_bytes), "at most max_bytes");
    }
    row.nnodes = unsigned_field(r, line, "nnodes", 1, 1u << 20);
    row.nranks = unsigned_field(r, line, "nranks", 1, 1u << 24);
    row.algorithm = name_field(r, line, "algorithm", tf::kAlgorithms, true);
    row.protocol = name_field(r, line, "protocol", tf::kProtocols, true);
    const auto channels = r.find("channels");
    if (channels != r.end() && !(channels->is_string() && *channels == tf::kAny)) {
      row.channels = static_cast<int>(unsigned_field(r, line, "channels", 1, 64));
    }
    out.push_back(row);
  }
  // Two rows for one call would make the answer depend on their order.
  std::vector<const TunedRow*> sorted;
  for (const TunedRow& r : out) sorted.push_back(&r);
  std::sort(sorted.begin(), sorted.end(), [](const TunedRow* a, const TunedRow* b) {
    return std::tie(a->collective, a->nnodes, a->nranks, a->min_bytes) <
           std::tie(b->collective, b->nnodes, b->nranks, b->min_bytes);
  });
  for (std::size_t i = 1; i < sorted.size(); ++i) {
    const TunedRow& a = *sorted[i - 1];
    const TunedRow& b = *sorted[i];
    if (a.collective == b.collective && a.nnodes == b.nnodes && a.nranks == b.nranks &&
        b.min_bytes <= a.max_bytes) {
      bad(b.line, "min_bytes",
          std::to_string(b.min_bytes) + " overlaps row " + std::to_string(a.line) + " (" +
              std::to_string(a.min_bytes) + "-" + std::to_string(a.max_bytes) + ")",
          "byte ranges apart for one collective, nnodes and nranks");
    }
  }
  return out;
}

TunedDecision apply_rows(const TunedRow* rows, std::size_t n_rows, int collective,
                         std::size_t bytes, float* table, int num_algo, int num_proto,
                         int* n_channels) noexcept {
  TunedDecision d;
  for (std::size_t i = 0; i < n_rows; ++i) {
    if (rows[i].collective == collective && rows[i].min_bytes <= bytes &&
        bytes <= rows[i].max_bytes) {
      d.row = static_cast<int>(i);
      break;
    }
  }
  if (d.row < 0 || table == nullptr) return d;
  const TunedRow& row = rows[d.row];
  const auto allowed = [&](int a, int p) {
    return (row.algorithm < 0 || row.algorithm == a) && (row.protocol < 0 || row.protocol == p);
  };
  // The table is contiguous, float[num_algo][num_proto], though NCCL passes it as float**.
  bool runnable = false;
  for (int a = 0; a < num_algo; ++a) {
    for (int p = 0; p < num_proto; ++p) runnable |= allowed(a, p) && table[a * num_proto + p] >= 0;
  }
  if (!runnable) return d;  // what it names cannot run here: NCCL's own choice stands
  for (int a = 0; a < num_algo; ++a) {
    for (int p = 0; p < num_proto; ++p) {
      if (!allowed(a, p)) table[a * num_proto + p] = -1.0f;
    }
  }
  if (row.channels > 0 && n_channels != nullptr) *n_channels = row.channels;
  d.applied = true;
  return d;
}

std::string describe_row(const TunedRow& row) {
  namespace tf = tuned_format;
  const std::string algorithm =
      row.algorithm < 0 ? std::string(tf::kAny) : std::string(tf::kAlgorithms.at(row.algorithm));
  const std::string protocol =
      row.protocol < 0 ? std::string(tf::kAny) : std::string(tf::kProtocols.at(row.protocol));
  return std::string(tf::kCollectives.at(row.collective)) + " " + std::to_string(row.min_bytes) +
         "-" + std::to_string(row.max_bytes) + " B: " + algorithm + "/" + protocol + ", " +
         (row.channels > 0 ? std::to_string(row.channels) + " channels" : "NCCL's channels");
}

}  // namespace colltune
