#include "report/escape.hpp"

#include <gtest/gtest.h>

#include "report/markdown_report.hpp"
#include "report/view.hpp"

namespace colltune {
namespace {

TEST(Escape, Html) {
  EXPECT_EQ(html_escape("<script>alert('x')</script>&\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&quot;");
  EXPECT_EQ(html_escape("plain"), "plain");
}

TEST(Escape, MarkdownTableCellsStayCells) {
  EXPECT_EQ(markdown_escape("a|b\nc_d <i>"), "a\\|b c\\_d \\<i>");
}

// Every cell of the winners table comes from the store one way or another: a race's verdict
// names the labels it eliminated, and a label may hold anything a spec's value held.
TEST(Escape, EveryWinnersCellIsEscapedInMarkdown) {
  ReportView view;
  PanelView panel;
  WinnerRow row;
  row.size = "1K";
  row.winner = "no significant difference";
  row.significance = "race undecided; eliminated: X=a|b<i> (turn 8)";
  row.tied = "Y=c|d";
  panel.winners.push_back(row);
  view.panels.push_back(panel);
  const std::string md = render_markdown(view);
  EXPECT_NE(md.find("eliminated: X=a\\|b\\<i> (turn 8) | Y=c\\|d |"), std::string::npos) << md;
}

// Plain text in the .md: no HTML entities, yet no tag or entity can form.
TEST(Escape, MarkdownHasNoHtmlEntities) {
  EXPECT_EQ(markdown_escape("{\"vm\":2} A -> B 'x'"), "{\"vm\":2} A -> B 'x'");
  EXPECT_EQ(markdown_escape("<script>&amp;"), "\\<script>\\&amp;");
  EXPECT_EQ(markdown_escape("> quoted"), "\\> quoted");
}

TEST(Escape, Counted) {
  EXPECT_EQ(counted(1, "rank"), "1 rank");
  EXPECT_EQ(counted(0, "record"), "0 records");
  EXPECT_EQ(counted(4, "configuration"), "4 configurations");
}

TEST(Escape, Csv) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
}

}  // namespace
}  // namespace colltune
