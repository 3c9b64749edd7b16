#include "report/escape.hpp"

namespace colltune {

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

std::string markdown_escape(std::string_view text) {
  std::string out;
  for (char ch : html_escape(text)) {
    if (ch == '\n' || ch == '\r') {
      out += ' ';
    } else if (std::string_view("|`*_[]\\").find(ch) != std::string_view::npos) {
      out += '\\';
      out += ch;
    } else {
      out += ch;
    }
  }
  return out;
}

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char ch : text) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

}  // namespace colltune
