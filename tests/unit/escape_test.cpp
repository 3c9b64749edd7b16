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
  EXPECT_EQ(markdown_escape("a|b\nc_d <i>"), "a\\|b c\\_d &lt;i&gt;");
}

TEST(Escape, Csv) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
}

}  // namespace
}  // namespace colltune
