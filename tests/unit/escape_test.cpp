#include "report/escape.hpp"

#include <gtest/gtest.h>

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
