// JSON positions: pointers to line:col of values and keys, escapes inside
// strings, duplicate keys, the depth and number prechecks, parse error reasons.
#include <gtest/gtest.h>

#include <memory>
#include <optional>

#include "frontends/json_doc.h"
#include "frontends/json_locations.h"

namespace mlc {
namespace {

// A document scanned for positions; values are addressed by JSON pointer.
struct Scanned {
  json::Json root;
  std::optional<JsonLocations> locs;

  const json::Json* at(const std::string& pointer) const {
    json::Json::json_pointer p(pointer);
    return root.contains(p) ? &root.at(p) : nullptr;
  }
  Loc value_loc(const std::string& pointer) const { return locs->value_loc(at(pointer)); }
  Loc key_loc(const std::string& pointer) const { return locs->key_loc(at(pointer)); }
  Loc string_loc(const std::string& pointer, size_t offset) const {
    return locs->string_loc(at(pointer), offset);
  }
};

Expected<JsonLocations> scan_text(std::string_view text, const std::string& path, json::Json& root) {
  EXPECT_FALSE(json::parse(text, kModelJsonLimits, root).has_value());
  return JsonLocations::scan(text, path, root);
}

std::unique_ptr<Scanned> scan(std::string_view text) {
  auto s = std::make_unique<Scanned>();
  auto locs = scan_text(text, "f.json", s->root);
  EXPECT_TRUE(locs.ok()) << locs.error().message;
  s->locs.emplace(std::move(locs).value());
  return s;
}

TEST(JsonLocations, ValuesAndKeys) {
  std::string text = "{\n  \"a\": {\"b\": [10, {\"c\": true}]},\n  \"x/y~z\": null, \"\": 3\n}";
  auto l = scan(text);
  EXPECT_EQ(l->value_loc("").str(), "f.json:1:1");
  EXPECT_EQ(l->value_loc("/a").str(), "f.json:2:8");
  EXPECT_EQ(l->key_loc("/a").str(), "f.json:2:3");
  EXPECT_EQ(l->value_loc("/a/b").str(), "f.json:2:14");
  EXPECT_EQ(l->value_loc("/a/b/0").str(), "f.json:2:15");
  EXPECT_EQ(l->key_loc("/a/b/0").str(), "f.json:2:15");  // array elements: the value
  EXPECT_EQ(l->value_loc("/a/b/1/c").str(), "f.json:2:25");
  EXPECT_EQ(l->value_loc("/x~1y~0z").str(), "f.json:3:12");
  EXPECT_EQ(l->value_loc("/").str(), "f.json:3:22");
  EXPECT_FALSE(l->value_loc("/nope").known());
  EXPECT_EQ(l->value_loc("/nope").file, "f.json");
}

TEST(JsonLocations, EscapedKeysAndBom) {
  auto l = scan("\xEF\xBB\xBF{\"k\\u0041\": [ ], \"e\": {}}");
  EXPECT_EQ(l->value_loc("/kA").str(), "f.json:1:16");  // after the 3-byte BOM
  EXPECT_EQ(l->value_loc("/e").str(), "f.json:1:26");
}

TEST(JsonLocations, StringOffsetsSkipEscapes) {
  std::string text = R"({"s": "a\tb\u00e9c\ud83d\ude00d"})";
  auto l = scan(text);
  // Decoded: a(0) \t(1) b(2) é(3,4) c(5) 😀(6..9) d(10)
  EXPECT_EQ(l->string_loc("/s", 0).col, 8);
  EXPECT_EQ(l->string_loc("/s", 1).col, 9);
  EXPECT_EQ(l->string_loc("/s", 2).col, 11);
  EXPECT_EQ(l->string_loc("/s", 3).col, 12);
  EXPECT_EQ(l->string_loc("/s", 4).col, 12);  // inside an escape: its backslash
  EXPECT_EQ(l->string_loc("/s", 5).col, 18);
  EXPECT_EQ(l->string_loc("/s", 6).col, 19);
  EXPECT_EQ(l->string_loc("/s", 10).col, 31);
  EXPECT_EQ(l->string_loc("/s", 99).col, 32);  // past the end: the closing quote
}

TEST(JsonLocations, DuplicateKeysAtAnyDepth) {
  json::Json root;
  auto dup = scan_text("[{\"a\": 1}, {\"b\": {\"a\": 1, \"a\": 2}}]", "d.json", root);
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.error().message, "d.json:1:27: error: duplicate key 'a' (first at line 1, column 19)");
  EXPECT_TRUE(scan_text("[{\"a\": 1}, {\"a\": 1}]", "d.json", root).ok());
}

// Positions are kept per value, not per JSON pointer: memory does not grow
// with key length times the number of values below the key.
TEST(JsonLocations, LongKeysOverManyValues) {
  std::string text = "{\"" + std::string(1 << 20, 'k') + "\": [" ;
  for (int i = 0; i < 100000; ++i) text += i ? ",0" : "0";
  text += "]}";
  auto doc = JsonDoc::parse(text, "k.json");
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  Node arr = doc->root().member(doc->root().json->begin());
  Node last = arr.element(99999);
  EXPECT_EQ(doc->loc(last).col, static_cast<int>(text.size()) - 2);
  EXPECT_EQ(last.key, std::string(64, 'k') + "[99999]");
}

TEST(JsonDoc, DepthLimitIsExact) {
  std::string ok = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  EXPECT_TRUE(JsonDoc::parse(ok, "p.json").ok());
  std::string deep = std::string(kMaxJsonDepth + 1, '[') + std::string(kMaxJsonDepth + 1, ']');
  auto st = JsonDoc::parse(deep, "p.json");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "p.json:1:65: error: invalid JSON: nesting deeper than 64 levels");
  // Brackets inside strings do not count.
  EXPECT_TRUE(JsonDoc::parse("[\"" + std::string(1000, '[') + "\"]", "p.json").ok());
}

// The parser stops at the first bracket too many: a deep document of any
// length costs no more than its first 65 levels.
TEST(JsonDoc, DepthLimitStopsAtTheFirstViolation) {
  std::string deep(50'000'000, '[');
  auto st = JsonDoc::parse(deep, "p.json");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "p.json:1:65: error: invalid JSON: nesting deeper than 64 levels");
}

TEST(JsonDoc, ValueLimit) {
  std::string text = "[0";
  for (int64_t i = 2; i < kMaxJsonValues; ++i) text += ",0";
  EXPECT_TRUE(JsonDoc::parse(text + "]", "v.json").ok());  // the array and 2^20 - 1 zeros
  auto st = JsonDoc::parse(text + ",0]", "v.json");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "v.json:1:" + std::to_string(text.size() + 2) +
                                    ": error: invalid JSON: more than 1048576 values (the limit "
                                    "for a model file)");
}

// Objects are built in linear time: 200,000 keys parse in well under a second
// (nlohmann's own ordered_json parser needs minutes).
TEST(JsonDoc, ManyKeysInOneObject) {
  std::string text = "{";
  for (int i = 0; i < 200000; ++i) text += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":0";
  auto doc = JsonDoc::parse(text + "}", "m.json");
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  EXPECT_EQ(doc->root().json->size(), 200000u);
  auto dup = JsonDoc::parse(text + ",\"k7\":1}", "m.json");
  ASSERT_FALSE(dup.ok());
  EXPECT_NE(dup.error().message.find("duplicate key 'k7' (first at line 1, column 51)"), std::string::npos)
      << dup.error().message;
}

TEST(JsonPrecheck, NumbersOutOfRange) {
  auto st = precheck_numbers("{\"a\":\n -1e400}", "n.json");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "n.json:2:2: error: invalid JSON: number -1e400 is out of range");
  EXPECT_TRUE(precheck_numbers("[1e300, -0.5, 123456789012345678901234567890]", "n.json").ok());
}

TEST(JsonDoc, ParseErrorsAreLocated) {
  auto e1 = JsonDoc::parse("{\n  \"a\": 1,\n", "t.json");
  ASSERT_FALSE(e1.ok());
  EXPECT_EQ(e1.error().message,
            "t.json:3:1: error: invalid JSON: unexpected end of input; expected string literal");
  auto e2 = JsonDoc::parse("{\"a\": tru}", "t.json");
  ASSERT_FALSE(e2.ok());
  EXPECT_EQ(e2.error().message, "t.json:1:10: error: invalid JSON: invalid literal");
  auto e3 = JsonDoc::parse("{} x", "t.json");
  ASSERT_FALSE(e3.ok());
  EXPECT_EQ(e3.error().message, "t.json:1:4: error: invalid JSON: invalid literal; expected end of input");
}

TEST(JsonDoc, TypedFields) {
  auto doc = JsonDoc::parse(R"({"n": 3, "s": "batch", "f": 2.5, "b": true, "big": 18446744073709551615,
                               "neg": -2, "o": {"k": 1}})", "t.json");
  ASSERT_TRUE(doc.ok());
  Fields f(*doc, doc->root(), "the test");
  EXPECT_EQ(*f.positive("n"), 3);
  EXPECT_EQ(*f.positive("absent", 7), 7);
  EXPECT_EQ(f.positive("s").error().message,
            "t.json:1:15: error: 's': the symbol \"batch\" is only allowed as a dim of an input's shape");
  EXPECT_EQ(f.positive("f").error().message, "t.json:1:29: error: 'f': expected an integer, found a number");
  EXPECT_EQ(*f.number("f"), 2.5);
  EXPECT_EQ(*f.number("n"), 3.0);
  EXPECT_TRUE(*f.boolean("b", false));
  EXPECT_EQ(f.integer("big", 0).error().message,
            "t.json:1:52: error: 'big': integer 18446744073709551615 is out of range");
  EXPECT_EQ(f.positive("neg").error().message, "t.json:2:39: error: 'neg': must be positive, found -2");
  EXPECT_EQ(f.require("zzz").error().message, "t.json:1:1: error: the test is missing required field 'zzz'");
  EXPECT_EQ(f.allow({"n", "s", "f", "b", "big", "neg"}).error().message,
            "t.json:2:43: error: unknown field 'o' in the test (expected one of: n, s, f, b, big, neg)");
  EXPECT_EQ(f.choice("s", "x", {"a", "b"}).error().message,
            "t.json:1:15: error: 's': must be one of \"a\", \"b\", found 'batch'");
}

}  // namespace
}  // namespace mlc
