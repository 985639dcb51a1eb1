// ParseLinkFilter: filter-sets as clients encode them (built with Proton's codec) become a selector
// and a start position; every bad entry is an error naming the key and the reason.
#include "tools/serve/link_filter.h"

#include <gtest/gtest.h>
#include <proton/codec.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace sift::tools {
namespace {

// Encodes a filter-set map whose entries `fill` writes.
std::vector<uint8_t> FilterSet(const std::function<void(pn_data_t*)>& fill) {
  pn_data_t* d = pn_data(0);
  pn_data_put_map(d);
  pn_data_enter(d);
  fill(d);
  pn_data_exit(d);
  std::vector<uint8_t> out(4096);
  ssize_t n = pn_data_encode(d, reinterpret_cast<char*>(out.data()), out.size());
  EXPECT_GT(n, 0);
  out.resize(static_cast<size_t>(n));
  pn_data_free(d);
  return out;
}

void Symbol(pn_data_t* d, const char* s) { pn_data_put_symbol(d, pn_bytes(strlen(s), s)); }
void String(pn_data_t* d, const char* s) { pn_data_put_string(d, pn_bytes(strlen(s), s)); }

void Described(pn_data_t* d, const char* key, const char* descriptor, uint64_t code, const char* expression) {
  Symbol(d, key);
  pn_data_put_described(d);
  pn_data_enter(d);
  if (descriptor != nullptr)
    Symbol(d, descriptor);
  else
    pn_data_put_ulong(d, code);
  String(d, expression);
  pn_data_exit(d);
}

TEST(LinkFilter, EmptyFilterSetMatchesEverythingFromFirst) {
  LinkFilter f;
  std::string error;
  ASSERT_TRUE(ParseLinkFilter({}, &f, &error)) << error;
  EXPECT_TRUE(f.filter.ok());
  EXPECT_EQ(f.filter_count, 0);
  EXPECT_EQ(f.start.kind, StartPosition::Kind::kFirst);
}

TEST(LinkFilter, SqlAndJmsBySymbolAndUlongAreAnded) {
  auto bytes = FilterSet([](pn_data_t* d) {
    Described(d, "sql-filter", "amqp:sql-filter", 0, "a > 1");
    Described(d, "jms-selector", nullptr, 0x0000468C00000004ull, "JMSPriority > 3");
    Described(d, "other", nullptr, 0x120, "b = 'x'");
  });
  LinkFilter f;
  std::string error;
  ASSERT_TRUE(ParseLinkFilter(bytes, &f, &error)) << error;
  EXPECT_EQ(f.filter_count, 3);
  EXPECT_TRUE(f.filter.ok());
}

TEST(LinkFilter, OffsetSpecForms) {
  struct Case {
    std::function<void(pn_data_t*)> value;
    StartPosition::Kind kind;
    uint64_t offset;
    int64_t ms;
  };
  std::vector<Case> cases = {
      {[](pn_data_t* d) { Symbol(d, "last"); }, StartPosition::Kind::kLast, 0, 0},
      {[](pn_data_t* d) { String(d, "next"); }, StartPosition::Kind::kNext, 0, 0},
      {[](pn_data_t* d) { pn_data_put_ulong(d, 17); }, StartPosition::Kind::kOffset, 17, 0},
      {[](pn_data_t* d) { pn_data_put_long(d, 5); }, StartPosition::Kind::kOffset, 5, 0},
      {[](pn_data_t* d) { pn_data_put_timestamp(d, 1764460800000); }, StartPosition::Kind::kTimestamp, 0,
       1764460800000},
  };
  for (const Case& c : cases) {
    auto bytes = FilterSet([&](pn_data_t* d) {
      Symbol(d, "rabbitmq:stream-offset-spec");
      c.value(d);
    });
    LinkFilter f;
    std::string error;
    ASSERT_TRUE(ParseLinkFilter(bytes, &f, &error)) << error;
    EXPECT_EQ(f.start.kind, c.kind);
    EXPECT_EQ(f.start.offset, c.offset);
    EXPECT_EQ(f.start.timestamp_ms, c.ms);
  }
}

std::string ErrorOf(const std::function<void(pn_data_t*)>& fill) {
  LinkFilter f;
  std::string error;
  EXPECT_FALSE(ParseLinkFilter(FilterSet(fill), &f, &error));
  return error;
}

TEST(LinkFilter, BadSqlNamesKeyPositionAndReason) {
  std::string e = ErrorOf([](pn_data_t* d) { Described(d, "sql-filter", "amqp:sql-filter", 0, "a = = 1"); });
  EXPECT_NE(e.find("'sql-filter'"), std::string::npos) << e;
  EXPECT_NE(e.find("byte 4"), std::string::npos) << e;
}

TEST(LinkFilter, UnknownDescriptorIsAnError) {
  std::string e = ErrorOf([](pn_data_t* d) { Described(d, "x", "example:filter", 0, "a"); });
  EXPECT_NE(e.find("unsupported filter type example:filter"), std::string::npos) << e;
  e = ErrorOf([](pn_data_t* d) { Described(d, "x", nullptr, 0x999, "a"); });
  EXPECT_NE(e.find("0x0000000000000999"), std::string::npos) << e;
}

TEST(LinkFilter, UndescribedValueIsAnError) {
  std::string e = ErrorOf([](pn_data_t* d) {
    Symbol(d, "sql-filter");
    String(d, "a = 1");
  });
  EXPECT_NE(e.find("not a described filter"), std::string::npos) << e;
}

TEST(LinkFilter, BadOffsetSpecIsAnError) {
  std::string e = ErrorOf([](pn_data_t* d) {
    Symbol(d, "rabbitmq:stream-offset-spec");
    pn_data_put_long(d, -3);
  });
  EXPECT_NE(e.find("negative"), std::string::npos) << e;
  e = ErrorOf([](pn_data_t* d) {
    Symbol(d, "rabbitmq:stream-offset-spec");
    pn_data_put_double(d, 1.5);
  });
  EXPECT_NE(e.find("offset spec"), std::string::npos) << e;
}

TEST(LinkFilter, PropertyFilterMustBeAMapOfSimpleValues) {
  std::string e = ErrorOf([](pn_data_t* d) { Described(d, "p", "amqp:properties-filter", 0, "subject"); });
  EXPECT_NE(e.find("must be a map"), std::string::npos) << e;
  e = ErrorOf([](pn_data_t* d) {
    Symbol(d, "a");
    pn_data_put_described(d);
    pn_data_enter(d);
    pn_data_put_ulong(d, 0x174);
    pn_data_put_map(d);
    pn_data_enter(d);
    String(d, "region");
    pn_data_put_list(d);
    pn_data_exit(d);
    pn_data_exit(d);
  });
  EXPECT_NE(e.find("not a simple value"), std::string::npos) << e;
}

TEST(LinkFilter, PropertyFilterWithBadModifierIsAnError) {
  std::string e = ErrorOf([](pn_data_t* d) {
    Symbol(d, "p");
    pn_data_put_described(d);
    pn_data_enter(d);
    Symbol(d, "amqp:properties-filter");
    pn_data_put_map(d);
    pn_data_enter(d);
    Symbol(d, "subject");
    String(d, "&x:abc");
    pn_data_exit(d);
    pn_data_exit(d);
  });
  EXPECT_NE(e.find("'p'"), std::string::npos) << e;
}

}  // namespace
}  // namespace sift::tools
