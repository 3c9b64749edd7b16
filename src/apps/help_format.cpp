#include "apps/help_format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <sstream>

#include "apps/help_topics.hpp"
#include "core/errors.hpp"

namespace colltune {
namespace {

constexpr std::size_t kWidth = 100;
constexpr std::size_t kDescriptionColumn = 26;  // as run --help

std::string upper(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return text;
}

// Words of `text` filled to kWidth, every line after the first indented to `indent`.
std::string wrap(const std::string& text, std::size_t first_column, std::size_t indent) {
  std::istringstream words(text);
  std::string word, out;
  std::size_t column = first_column;
  bool first = true;
  while (words >> word) {
    if (!first && column + 1 + word.size() > kWidth) {
      out += "\n" + std::string(indent, ' ');
      column = indent;
    } else if (!first) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
    first = false;
  }
  return out;
}

class ColltuneFormatter : public CLI::Formatter {
 public:
  explicit ColltuneFormatter(std::string exit_codes) : exit_codes_(std::move(exit_codes)) {}

  std::string make_help(const CLI::App* app, std::string, CLI::AppFormatMode) const override {
    std::string usage = "usage: " + app->get_name();
    std::string rows;
    const auto add_row = [&](const std::string& left, const std::string& description) {
      std::string row = "  " + left;
      if (row.size() + 2 > kDescriptionColumn) {
        row += "\n" + std::string(kDescriptionColumn, ' ');
      } else {
        row += std::string(kDescriptionColumn - row.size(), ' ');
      }
      rows += row + wrap(description, kDescriptionColumn, kDescriptionColumn) + "\n";
    };
    for (const CLI::Option* option : app->get_options()) {
      if (!option->nonpositional()) {
        std::string name = upper(option->get_name());
        if (option->get_items_expected_max() > 1) name += "...";
        usage += option->get_required() ? " " + name : " [" + name + "]";
        add_row(name, option->get_description());
      }
    }
    usage += " [options]";
    for (const CLI::Option* option : app->get_options()) {
      if (!option->nonpositional() || option->get_group().empty()) continue;
      std::string left = option->get_name(false, true);  // "-h,--help"
      std::replace(left.begin(), left.end(), ',', ' ');
      std::string joined;
      for (std::istringstream names(left); names >> left;) {
        joined += (joined.empty() ? "" : ", ") + left;
      }
      if (!option->get_option_text().empty()) joined += " " + option->get_option_text();
      add_row(joined, option->get_description());
    }
    std::string help = wrap(app->get_description(), 0, 0) + "\n\n" + usage + "\n\n" + rows;
    if (!exit_codes_.empty()) help += "\n" + wrap(exit_codes_, 0, 0) + "\n";
    const std::string name = app->get_name();
    const std::string more = read_more_line(name.substr(name.rfind(' ') + 1));
    if (!more.empty()) help += "\n" + more + "\n";
    return help;
  }

 private:
  std::string exit_codes_;
};

}  // namespace

void use_colltune_help(CLI::App& app, std::string exit_codes) {
  app.formatter(std::make_shared<ColltuneFormatter>(std::move(exit_codes)));
  app.set_help_flag("-h,--help", "print this help and exit");
}

bool parse_or_help(CLI::App& app, const std::vector<std::string>& args,
                   const std::string& command) {
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    std::fputs(app.help().c_str(), stdout);
    return true;
  } catch (const CLI::ParseError& e) {
    throw ConfigError(fmt::format("{}; see colltune {} --help", e.what(), command));
  }
  return false;
}

}  // namespace colltune
