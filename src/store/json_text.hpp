#pragma once
// JSON text that any bytes survive. Strings colltune stores come from outside (environment
// values, hostnames, spec values, log tails) and need not be UTF-8, which JSON text must be.
// Every string and key is written escaped, losslessly: a backslash as \\ (two characters), a
// byte that is not part of valid UTF-8 as \xNN (four characters, NN its hex value); all else as
// it was. Unescaping those two forms gives the original bytes back. Readers show the escaped
// text (docs/jsonl-schema.md).

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace colltune {

std::string escape_bytes(std::string_view text);
std::string unescape_bytes(std::string_view text);  // the inverse of escape_bytes

// j.dump(indent) with every string and key passed through escape_bytes; never throws for bytes.
std::string dump_json_text(const nlohmann::json& j, int indent = -1);
std::string dump_json_text(const nlohmann::ordered_json& j, int indent = -1);

// JSON text from outside: its value, or a discarded value where the text is not JSON or nests
// deeper than kMaxJsonDepth (the parser and the value's copies recurse per level). Never throws.
nlohmann::json parse_json_lenient(std::string_view text);

// The same, but text nesting too deep throws ConfigError "<where>: JSON nests deeper than ..."
// so that the reader's "not JSON" does not misname it. Malformed text: a discarded value.
nlohmann::json parse_json_input(std::string_view text, const std::string& where);

}  // namespace colltune
