#pragma once
// The docs pages behind `colltune --help`, `colltune help TOPIC` and the last line of every
// subcommand's --help: one table of topics, each command's page among them.

#include <string>
#include <vector>

namespace colltune {

struct HelpTopic {
  const char* name;  // what `colltune help NAME` takes
  const char* page;  // the page, relative to the source tree's root: "docs/measuring.md"
  const char* what;  // one line: the task or the reference it answers
};

// Every topic: the task pages first, then the reference.
const std::vector<HelpTopic>& help_topics();

// "Read more: docs/measuring.md" for `command` ("run", "sweep" ...), with the page's path on this
// machine where one is found (an install's share/doc/colltune, else the source tree built from).
std::string read_more_line(const std::string& command);

// Every topic with its page, a line each ("  measuring    docs/measuring.md  measure ..."), as
// `colltune --help` and `colltune help` print them.
std::string topics_table();

// colltune help [TOPIC|COMMAND]: the topics and their pages, or one topic's page and what it
// covers. Exit 0, or 2 naming the topics allowed.
int help_command(const std::vector<std::string>& args);

}  // namespace colltune
