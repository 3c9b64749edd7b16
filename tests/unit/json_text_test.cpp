// Bytes that are not UTF-8 are kept, escaped, never fatal (store/json_text.hpp).
#include "store/json_text.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace colltune {
namespace {

TEST(JsonText, ValidUtf8IsUntouchedInvalidBytesAndBackslashesEscaped) {
  EXPECT_EQ(escape_bytes("mlx5_0:1 \xc3\xa9t\xc3\xa9"), "mlx5_0:1 \xc3\xa9t\xc3\xa9");
  EXPECT_EQ(escape_bytes("\xff"), "\\xff");
  EXPECT_EQ(escape_bytes("a\\b"), "a\\\\b");
  // A lone continuation byte, an overlong "/", a surrogate, a truncated 3-byte sequence.
  EXPECT_EQ(escape_bytes("\x80"), "\\x80");
  EXPECT_EQ(escape_bytes("\xc0\xaf"), "\\xc0\\xaf");
  EXPECT_EQ(escape_bytes("\xed\xa0\x80"), "\\xed\\xa0\\x80");
  EXPECT_EQ(escape_bytes("\xe2\x82"), "\\xe2\\x82");
}

TEST(JsonText, EscapingIsLossless) {
  for (const std::string& original :
       {std::string("\xff\\xff"), std::string("a\\\\b\xfe"), std::string("\\x41"),
        std::string("\xe2\x82\xac ok"), std::string("tail\\")}) {
    EXPECT_EQ(unescape_bytes(escape_bytes(original)), original) << escape_bytes(original);
  }
}

TEST(JsonText, DumpNeverThrowsOnBytes) {
  const nlohmann::json j = {{"UCX_X", "\xff"}, {"k\xfe", {"a", "\xc3\x28"}}};
  EXPECT_THROW((void)j.dump(), nlohmann::json::type_error);  // what lost every record before
  const auto back = nlohmann::json::parse(dump_json_text(j));
  EXPECT_EQ(back["UCX_X"], "\\xff");
  EXPECT_EQ(back["k\\xfe"][1], "\\xc3(");
}

}  // namespace
}  // namespace colltune
