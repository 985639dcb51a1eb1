// CompileFilterSet: a property filter means the same written as JSON or as an AMQP map, its reference
// values follow the message codec's rules, and every failure names the filter and says why.
#include "sift/filter_set.h"

#include <gtest/gtest.h>
#include <proton/codec.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "amqp/typed_json.h"
#include "engine/compiled_filter.h"
#include "sift/filter_spec.h"

namespace sift::engine {
namespace {

// The AMQP encoding of a map whose entries `fill` writes.
std::string AmqpMap(const std::function<void(pn_data_t*)>& fill) {
  pn_data_t* d = pn_data(0);
  pn_data_put_map(d);
  pn_data_enter(d);
  fill(d);
  pn_data_exit(d);
  std::string out(4096, '\0');
  ssize_t n = pn_data_encode(d, out.data(), out.size());
  EXPECT_GT(n, 0);
  out.resize(static_cast<size_t>(n));
  pn_data_free(d);
  return out;
}

void Symbol(pn_data_t* d, const char* s) { pn_data_put_symbol(d, pn_bytes(strlen(s), s)); }
void String(pn_data_t* d, const char* s) { pn_data_put_string(d, pn_bytes(strlen(s), s)); }

Filter Json(FilterKind kind, std::string text) { return {kind, FilterForm::kText, std::move(text), "json"}; }
Filter Amqp(FilterKind kind, std::string bytes) { return {kind, FilterForm::kAmqpMap, std::move(bytes), "amqp"}; }

Status Compile(const Filter& filter, CompiledFilter* out, FilterError* error = nullptr) {
  return CompileFilterSet(std::span<const Filter>(&filter, 1), out, error);
}

TEST(FilterSet, PropertyFilterAsJsonOrAmqpMapCompilesToTheSameSelector) {
  CompiledFilter json, amqp;
  ASSERT_TRUE(
      Compile(Json(FilterKind::kProperties, R"({"subject": "&p:ship", "message_id": {"type": "ulong", "value": 7}})"),
              &json)
          .ok());
  ASSERT_TRUE(Compile(Amqp(FilterKind::kProperties, AmqpMap([](pn_data_t* d) {
                             Symbol(d, "subject");
                             String(d, "&p:ship");
                             Symbol(d, "message-id");
                             pn_data_put_ulong(d, 7);
                           })),
                      &amqp)
                  .ok());
  EXPECT_EQ(json.Explain(), amqp.Explain());

  ASSERT_TRUE(Compile(Json(FilterKind::kApplicationProperties,
                           R"({"tier": {"type": "ubyte", "value": 2}, "big": 18446744073709551615})"),
                      &json)
                  .ok());
  ASSERT_TRUE(Compile(Amqp(FilterKind::kApplicationProperties, AmqpMap([](pn_data_t* d) {
                             String(d, "tier");
                             pn_data_put_ubyte(d, 2);
                             String(d, "big");
                             pn_data_put_ulong(d, UINT64_MAX);
                           })),
                      &amqp)
                  .ok());
  EXPECT_EQ(json.Explain(), amqp.Explain());
}

TEST(FilterSet, ASelectorErrorIsTheSameForBothForms) {
  CompiledFilter json, amqp;
  FilterError json_error, amqp_error;
  Status s = Compile(Json(FilterKind::kApplicationProperties, R"({"region": "&x:eu"})"), &json, &json_error);
  EXPECT_EQ(s.what(), "bad filter");
  EXPECT_EQ(s.where(), "json");
  EXPECT_FALSE(Compile(Amqp(FilterKind::kApplicationProperties, AmqpMap([](pn_data_t* d) {
                              String(d, "region");
                              String(d, "&x:eu");
                            })),
                       &amqp, &amqp_error)
                   .ok());
  EXPECT_FALSE(json.ok());
  EXPECT_FALSE(amqp.ok());
  EXPECT_EQ(json_error.code, "invalid-property-filter");
  EXPECT_EQ(json_error.code, amqp_error.code);
  EXPECT_EQ(json_error.why, amqp_error.why);
  EXPECT_NE(json_error.why.find("'region'"), std::string::npos) << json_error.why;
  EXPECT_EQ(SelectorOf(json).error().ToString(), SelectorOf(amqp).error().ToString());
}

TEST(FilterSet, ErrorsNameTheFilterAndTheKey) {
  Filter filters[] = {
      {FilterKind::kSql, FilterForm::kText, "a > 1", "sql filter 1"},
      {FilterKind::kProperties, FilterForm::kText, R"({"subject": "x", "ttl": [1]})", "properties filter 1"},
  };
  CompiledFilter s;
  FilterError error;
  Status status = CompileFilterSet(filters, &s, &error);
  EXPECT_EQ(status.what(), "bad filter");
  EXPECT_EQ(status.where(), "properties filter 1, byte 17");
  EXPECT_EQ(error.clause, 1u);
  EXPECT_EQ(error.kind, FilterKind::kProperties);
  EXPECT_TRUE(error.code.empty());  // refused before the selector compiler saw it
  EXPECT_EQ(error.why.rfind("'ttl': ", 0), 0u) << error.why;
  EXPECT_FALSE(s.ok());  // a selector that cannot run, not "every message"
  EXPECT_EQ(s.error(), status.ToString());

  status = Compile(Amqp(FilterKind::kProperties, std::string("\xa1\x01"
                                                             "x")),
                   &s, &error);  // str8 "x"
  EXPECT_EQ(error.why, "the filter value must be a map");
  EXPECT_FALSE(s.ok());
  status = Compile({FilterKind::kSql, FilterForm::kText, "a = = 1", "sql filter 1"}, &s, &error);
  EXPECT_EQ(status.what(), "bad selector");
  EXPECT_EQ(status.where(), "sql filter 1, byte 4");
  EXPECT_EQ(error.code, "syntax");
  EXPECT_TRUE(error.has_position);
  EXPECT_EQ(error.position, 4u);
  EXPECT_EQ(s.error().rfind("syntax error at byte 4: ", 0), 0u) << s.error();
}

TEST(FilterSet, AnEmptySetMatchesEverything) {
  CompiledFilter s;
  ASSERT_TRUE(CompileFilterSet({}, &s).ok());
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.error(), "");
  EXPECT_TRUE(CompiledFilter().ok());  // the default filter of ConsumerOptions
  EXPECT_EQ(CompiledFilter().error(), "");
  EXPECT_EQ(s.Explain(), CompiledFilter().Explain());
}

// Whether a typed JSON value is accepted as an application property of a message, and as the
// reference value of an application-properties filter.
bool MessageAccepts(const std::string& value) {
  std::vector<uint8_t> bytes;
  return amqp::EncodeTypedJson(R"({"application_properties": {"k": )" + value + "}}", 0, &bytes).ok();
}
bool FilterAccepts(const std::string& value) {
  FilterSpec spec;
  spec.AddApplicationProperties(R"({"k": )" + value + "}");
  CompiledFilter s;
  return spec.Compile(&s).ok();
}

TEST(FilterSet, ReferenceValuesFollowTheMessageCodecRules) {
  struct Case {
    const char* value;
    bool accepted;
  };
  const Case cases[] = {
      {R"({"type": "binary", "value": "YWJj"})", true},
      {R"({"type": "binary", "value": "YWI"})", true},  // padding is optional
      {R"({"type": "binary", "value": "YWI="})", true},
      {R"({"type": "binary", "value": "YWJ="})", false},  // unused bits of the last group not zero
      {R"({"type": "binary", "value": "-_8="})", true},   // the URL-safe alphabet reads as the standard one
      {R"({"type": "binary", "value": "-_9="})", false},  // ... with the unused bits checked the same way
      {R"({"type": "binary", "value": "Y"})", false},
      {R"({"type": "binary", "value": "0aFF", "encoding": "hex"})", true},
      {R"({"type": "binary", "value": "0aF", "encoding": "hex"})", false},
      {R"({"type": "double", "value": "NaN"})", true},
      {R"({"type": "float", "value": "-Infinity"})", true},
      {R"({"type": "double", "value": "nan"})", false},
      {R"({"type": "float", "value": 1e39})", false},
      {"{\"type\": \"char\", \"value\": \"\xC3\xA9\"}", true},
      {"{\"type\": \"char\", \"value\": \"\xC0\xA9\"}", false},      // overlong
      {"{\"type\": \"char\", \"value\": \"\xE0\x81\x81\"}", false},  // overlong
      {"{\"type\": \"char\", \"value\": \"\xED\xA0\x80\"}", false},  // a surrogate
      {"\"\xC1\xBF\"", false},                                       // an overlong string
      {R"({"type": "char", "value": "ab"})", false},
      {R"({"type": "uuid", "value": "123e4567-e89b-12d3-a456-426614174000"})", true},
      {R"({"type": "uuid", "value": "123e4567e89b12d3a456426614174000"})", false},
      {R"({"type": "decimal32", "value": "0011223"})", false},
      {R"({"type": "decimal64", "value": "00112233445566AA"})", true},
      {"{\"type\": \"symbol\", \"value\": \"caf\xC3\xA9\"}", false},
      {R"({"type": "ubyte", "value": 256})", false},
      {R"({"type": "timestamp", "value": -1})", true},
      {R"({"type": "boolean", "value": true})", true},
      {R"({"type": "null", "value": null})", true},
      {R"({"type": "string", "value": "a", "encoding": "hex"})", false},
      {R"({"type": "unknown", "value": 1})", false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(MessageAccepts(c.value), c.accepted) << "message: " << c.value;
    EXPECT_EQ(FilterAccepts(c.value), c.accepted) << "filter: " << c.value;
  }
}

TEST(FilterSet, ReferenceValuesDifferFromMessageValuesOnlyInShape) {
  // Beyond the long range a plain integer can only be a ulong.
  EXPECT_TRUE(FilterAccepts("18446744073709551615"));
  EXPECT_FALSE(MessageAccepts("18446744073709551615"));
  // A reference value is a single value.
  for (const char* compound :
       {"[1]", R"({"a": 1})", R"({"type": "list", "value": [1]})", R"({"type": "map", "value": []})",
        R"({"type": "array", "element": "int", "value": [1]})",
        R"({"type": "described", "descriptor": 1, "value": 1})"}) {
    EXPECT_FALSE(FilterAccepts(compound)) << compound;
    EXPECT_TRUE(MessageAccepts(compound)) << compound;
  }
}

}  // namespace
}  // namespace sift::engine
