#include "store/json_text.hpp"

#include <fmt/format.h>

#include "core/errors.hpp"
#include "core/json_depth.hpp"

namespace colltune {
namespace {

// Length of the valid UTF-8 sequence starting at text[i] (RFC 3629: no overlongs, no
// surrogates, nothing above U+10FFFF), or 0 when the byte there does not start one.
std::size_t utf8_sequence(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // the allowed range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (i + length > text.size() || byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (std::size_t k = 2; k < length; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return length;
}

template <typename Json>
Json escaped(const Json& j) {
  if (j.is_string()) return escape_bytes(j.template get_ref<const std::string&>());
  if (j.is_array()) {
    Json out = Json::array();
    for (const auto& item : j) out.push_back(escaped(item));
    return out;
  }
  if (j.is_object()) {
    Json out = Json::object();
    for (auto it = j.begin(); it != j.end(); ++it) out[escape_bytes(it.key())] = escaped(*it);
    return out;
  }
  return j;
}

}  // namespace

std::string escape_bytes(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == '\\') {
      out += "\\\\";
      ++i;
      continue;
    }
    const std::size_t length = utf8_sequence(text, i);
    if (length == 0) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[i]));
      ++i;
      continue;
    }
    out.append(text.substr(i, length));
    i += length;
  }
  return out;
}

std::string unescape_bytes(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == '\\') {
      out += '\\';
      ++i;
    } else if (text[i] == '\\' && i + 3 < text.size() && text[i + 1] == 'x') {
      out += static_cast<char>(std::stoi(std::string(text.substr(i + 2, 2)), nullptr, 16));
      i += 3;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string dump_json_text(const nlohmann::json& j, int indent) { return escaped(j).dump(indent); }

std::string dump_json_text(const nlohmann::ordered_json& j, int indent) {
  return escaped(j).dump(indent);
}

nlohmann::json parse_json_lenient(std::string_view text) {
  if (!json_depth_within(text)) return nlohmann::json(nlohmann::json::value_t::discarded);
  return nlohmann::json::parse(text, nullptr, false);
}

nlohmann::json parse_json_input(std::string_view text, const std::string& where) {
  if (!json_depth_within(text)) {
    throw ConfigError(fmt::format("{}: JSON nests deeper than {} levels; allowed: at most {}",
                                  where, kMaxJsonDepth, kMaxJsonDepth));
  }
  return nlohmann::json::parse(text, nullptr, false);
}

}  // namespace colltune
