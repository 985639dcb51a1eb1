// DecodeToTypedJson (one pass from the bytes) against the oracle (Proton's decoder and nlohmann, written
// from docs/typed-json.md: oracle_typed_json.h): the same text for every message the oracle accepts,
// an error for every message it refuses. Messages: the JSON of typed_json_test.cc, Proton-generated messages, the fuzz
// corpora, synthetic orders, random typed messages (Proton-encoded and hand-encoded in the wide
// forms), their mutations, and JSON -> bytes -> JSON round trips.
#include <proton/codec.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "amqp/typed_json.h"
#include "tools/synthetic/synthetic_orders.h"
#include "tests/amqp/proton_test_messages.h"
#include "tests/amqp/oracle_typed_json.h"
#include "tests/amqp/test_messages.h"

namespace sift::amqp {
namespace {

using Bytes = std::vector<uint8_t>;

std::string HexOf(const Bytes& bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  for (uint8_t b : bytes) {
    s.push_back(kHex[b >> 4]);
    s.push_back(kHex[b & 15]);
  }
  return s;
}

struct Tally {
  uint64_t ok = 0;
  uint64_t errors = 0;
  uint64_t same_error_text = 0;
  // Accepted by the reference only through Proton's reading of a compound whose elements end before
  // its declared size (Proton ignores the size and reads on); the new writer refuses these.
  uint64_t short_compounds = 0;
};

// Compares the two writers on `bytes`; false (with a gtest failure) when they disagree.
bool Same(const Bytes& bytes, Tally* tally, const char* what) {
  std::string want, got;
  const sift::testing::oracle::Verdict r = sift::testing::oracle::OracleDecodeToTypedJson(bytes, uint64_t{7}, &want);
  ConversionStatus n = DecodeToTypedJson(bytes, uint64_t{7}, &got);
  if (r.ok() && !n.ok() && n.error().find("bytes before the end of its size") != std::string::npos) {
    ++tally->short_compounds;
    return true;
  }
  if (r.ok()) {
    ++tally->ok;
    EXPECT_TRUE(n.ok()) << what << ": new writer refuses what the reference accepts: " << n.error()
                        << "\nbytes: " << HexOf(bytes) << "\nreference: " << want;
    if (!n.ok()) return false;
    EXPECT_EQ(got, want) << what << "\nbytes: " << HexOf(bytes);
    return got == want;
  }
  ++tally->errors;
  EXPECT_FALSE(n.ok()) << what << ": new writer accepts what the reference refuses (" << r.error()
                       << ")\nbytes: " << HexOf(bytes) << "\nnew: " << got;
  if (n.ok()) return false;
  if (n.error() == r.error()) ++tally->same_error_text;
  return true;
}

void Report(const char* name, const Tally& t) {
  std::printf(
      "%s: %llu accepted (identical text), %llu refused by both (%llu with identical error "
      "text), %llu accepted only by the reference (elements short of a compound's size)\n",
      name, static_cast<unsigned long long>(t.ok), static_cast<unsigned long long>(t.errors),
      static_cast<unsigned long long>(t.same_error_text), static_cast<unsigned long long>(t.short_compounds));
}

// --- random typed messages -----------------------------------------------------------------------

class RandomMessages {
 public:
  explicit RandomMessages(uint64_t seed) : rng_(seed) {}

  uint64_t U(uint64_t n) { return n == 0 ? 0 : rng_() % n; }
  bool Coin(int percent) { return U(100) < static_cast<uint64_t>(percent); }

  std::string Text(bool ascii) {
    static const char* kPieces[] = {"a",
                                    "order",
                                    "\"",
                                    "\\",
                                    "\n",
                                    "\t",
                                    "\x01",
                                    "\x7f",
                                    "é",
                                    "€",
                                    "😀",
                                    "/",
                                    " ",
                                    "map",
                                    "type",
                                    "value",
                                    "12",
                                    "\xff",
                                    "\xc3",
                                    "\xe2\x82",
                                    "\xed\xa0\x80",
                                    "\xf4\x90\x80\x80",
                                    "\xc0\xaf"};
    std::string s;
    const uint64_t n = U(6);
    for (uint64_t i = 0; i < n; ++i) {
      const char* piece = kPieces[U(ascii ? 8 : std::size(kPieces))];
      if (ascii && static_cast<uint8_t>(piece[0]) >= 0x80) piece = "x";
      s += piece;
    }
    if (ascii && Coin(3)) s += "\xc3\xa9";  // a non-ASCII symbol now and then: an error
    return s;
  }

  double RandomDouble() {
    switch (U(10)) {
      case 0: return std::numeric_limits<double>::quiet_NaN();
      case 1: return Coin(50) ? INFINITY : -INFINITY;
      case 2: return Coin(50) ? 0.0 : -0.0;
      case 3: return std::numeric_limits<double>::denorm_min() * static_cast<double>(U(1000) + 1);
      case 4: return static_cast<double>(static_cast<int64_t>(rng_()));
      case 5: return std::ldexp(static_cast<double>(rng_() >> 11), static_cast<int>(U(2000)) - 1000);
      default: {
        uint64_t bits = rng_();
        double d;
        std::memcpy(&d, &bits, 8);
        return d;
      }
    }
  }

  void PutScalar(pn_data_t* d, int kind) {
    switch (kind) {
      case 0: pn_data_put_null(d); break;
      case 1: pn_data_put_bool(d, Coin(50)); break;
      case 2: pn_data_put_ubyte(d, static_cast<uint8_t>(rng_())); break;
      case 3: pn_data_put_ushort(d, static_cast<uint16_t>(rng_())); break;
      case 4: pn_data_put_uint(d, Coin(30) ? static_cast<uint32_t>(U(3)) : static_cast<uint32_t>(rng_())); break;
      case 5: pn_data_put_ulong(d, Coin(30) ? U(300) : rng_()); break;
      case 6: pn_data_put_byte(d, static_cast<int8_t>(rng_())); break;
      case 7: pn_data_put_short(d, static_cast<int16_t>(rng_())); break;
      case 8: pn_data_put_int(d, Coin(30) ? static_cast<int32_t>(U(256)) - 128 : static_cast<int32_t>(rng_())); break;
      case 9: pn_data_put_long(d, Coin(30) ? static_cast<int64_t>(U(256)) - 128 : static_cast<int64_t>(rng_())); break;
      case 10: {
        uint32_t bits = static_cast<uint32_t>(rng_());
        float f;
        std::memcpy(&f, &bits, 4);
        if (Coin(50)) f = static_cast<float>(RandomDouble());
        pn_data_put_float(d, f);
        break;
      }
      case 11: pn_data_put_double(d, RandomDouble()); break;
      case 12: pn_data_put_decimal32(d, static_cast<uint32_t>(rng_())); break;
      case 13: pn_data_put_decimal64(d, rng_()); break;
      case 14: {
        pn_decimal128_t x;
        for (char& c : x.bytes) c = static_cast<char>(rng_());
        pn_data_put_decimal128(d, x);
        break;
      }
      case 15: {
        static const uint32_t kChars[] = {'a', 0, '\n', '"', 0xe9, 0x20ac, 0x1f600, 0xd800, 0x110000, 0xffffffff};
        pn_data_put_char(d, kChars[U(std::size(kChars))]);
        break;
      }
      case 16: pn_data_put_timestamp(d, static_cast<int64_t>(rng_())); break;
      case 17: {
        pn_uuid_t x;
        for (char& c : x.bytes) c = static_cast<char>(rng_());
        pn_data_put_uuid(d, x);
        break;
      }
      case 18: {
        std::string b(U(20), '\0');
        for (char& c : b) c = static_cast<char>(rng_());
        pn_data_put_binary(d, pn_bytes(b.size(), b.data()));
        break;
      }
      case 19: {
        std::string s = Text(false);
        pn_data_put_string(d, pn_bytes(s.size(), s.data()));
        break;
      }
      default: {
        std::string s = Text(true);
        pn_data_put_symbol(d, pn_bytes(s.size(), s.data()));
        break;
      }
    }
  }

  static constexpr pn_type_t kArrayTypes[] = {
      PN_NULL,      PN_BOOL, PN_UBYTE,  PN_USHORT, PN_UINT,      PN_ULONG,     PN_BYTE,       PN_SHORT,
      PN_INT,       PN_LONG, PN_FLOAT,  PN_DOUBLE, PN_DECIMAL32, PN_DECIMAL64, PN_DECIMAL128, PN_CHAR,
      PN_TIMESTAMP, PN_UUID, PN_BINARY, PN_STRING, PN_SYMBOL,    PN_LIST,      PN_MAP};

  void PutDescriptor(pn_data_t* d) {
    if (Coin(50)) {
      pn_data_put_ulong(d, U(1000));
    } else {
      std::string s = Coin(50) ? "com.example:thing" : Text(true);
      pn_data_put_symbol(d, pn_bytes(s.size(), s.data()));
    }
  }

  void PutValue(pn_data_t* d, int depth) {
    const int pick = static_cast<int>(U(depth > 3 ? 21 : 27));
    if (pick < 21) return PutScalar(d, pick);
    switch (pick) {
      case 21:
      case 22: {  // list
        pn_data_put_list(d);
        pn_data_enter(d);
        for (uint64_t i = U(5); i > 0; --i) PutValue(d, depth + 1);
        pn_data_exit(d);
        break;
      }
      case 23:
      case 24: {  // map: string keys mostly, others sometimes
        pn_data_put_map(d);
        pn_data_enter(d);
        const bool strings = Coin(70);
        static const char* kKeys[] = {"type", "value", "encoding", "element", "descriptor", "k", "a"};
        for (uint64_t i = U(5); i > 0; --i) {
          if (strings) {
            std::string k = Coin(70) ? kKeys[U(std::size(kKeys))] : Text(false);
            pn_data_put_string(d, pn_bytes(k.size(), k.data()));
          } else {
            PutValue(d, depth + 1);
          }
          if (strings && Coin(20)) {
            std::string v = Coin(50) ? "map" : "x";
            pn_data_put_string(d, pn_bytes(v.size(), v.data()));
          } else {
            PutValue(d, depth + 1);
          }
        }
        pn_data_exit(d);
        break;
      }
      case 25: {  // array of one element type
        const pn_type_t t = kArrayTypes[U(std::size(kArrayTypes))];
        const bool described = Coin(20);
        pn_data_put_array(d, described, t);
        pn_data_enter(d);
        if (described) PutDescriptor(d);
        for (uint64_t i = U(4); i > 0; --i) PutOfType(d, t, depth + 1);
        pn_data_exit(d);
        break;
      }
      default: {  // described
        pn_data_put_described(d);
        pn_data_enter(d);
        PutDescriptor(d);
        PutValue(d, depth + 1);
        pn_data_exit(d);
        break;
      }
    }
  }

  void PutOfType(pn_data_t* d, pn_type_t t, int depth) {
    if (t == PN_LIST) {
      pn_data_put_list(d);
      pn_data_enter(d);
      for (uint64_t i = U(3); i > 0; --i) PutValue(d, depth + 1);
      pn_data_exit(d);
      return;
    }
    if (t == PN_MAP) {
      pn_data_put_map(d);
      pn_data_enter(d);
      for (uint64_t i = U(3); i > 0; --i) {
        PutScalar(d, 19);
        PutValue(d, depth + 1);
      }
      pn_data_exit(d);
      return;
    }
    for (int k = 0; k <= 20; ++k) {
      if (kArrayTypes[k] == t) return PutScalar(d, k);
    }
  }

  // One section encoded by Proton: 0x00 0x53 code, then the value `put` puts.
  template <typename Put>
  void Section(int code, Bytes* out, Put put) {
    ::sift::testing::ProtonData data;
    pn_data_put_described(data.get());
    pn_data_enter(data.get());
    pn_data_put_ulong(data.get(), static_cast<uint64_t>(code));
    put(data.get());
    pn_data_exit(data.get());
    Bytes b = data.Encode();
    out->insert(out->end(), b.begin(), b.end());
  }

  void AnnotationMap(pn_data_t* d) {
    pn_data_put_map(d);
    pn_data_enter(d);
    for (uint64_t i = U(4); i > 0; --i) {
      const uint64_t k = U(10);
      if (k < 6) {
        static const char* kKeys[] = {"x-opt-a", "type", "value", "12", "map", "x-opt-a"};
        const char* key = kKeys[U(std::size(kKeys))];
        pn_data_put_symbol(d, pn_bytes(std::strlen(key), key));
      } else if (k < 9) {
        pn_data_put_ulong(d, U(5));
      } else {
        PutValue(d, 3);
      }
      PutValue(d, 1);
    }
    pn_data_exit(d);
  }

  Bytes Message() {
    Bytes out;
    if (Coin(60)) {
      Section(0x70, &out, [&](pn_data_t* d) {
        pn_data_put_list(d);
        pn_data_enter(d);
        const uint64_t n = U(6);
        for (uint64_t i = 0; i < n; ++i) {
          if (Coin(25)) {
            pn_data_put_null(d);
            continue;
          }
          switch (Coin(90) ? i : 99) {
            case 0:
            case 3: pn_data_put_bool(d, Coin(50)); break;
            case 1: pn_data_put_ubyte(d, static_cast<uint8_t>(U(10))); break;
            case 2:
            case 4: pn_data_put_uint(d, static_cast<uint32_t>(rng_())); break;
            default: PutValue(d, 2); break;
          }
        }
        pn_data_exit(d);
      });
    }
    if (Coin(30)) Section(0x71, &out, [&](pn_data_t* d) { AnnotationMap(d); });
    if (Coin(50)) Section(0x72, &out, [&](pn_data_t* d) { AnnotationMap(d); });
    if (Coin(60)) {
      Section(0x73, &out, [&](pn_data_t* d) {
        pn_data_put_list(d);
        pn_data_enter(d);
        const uint64_t n = U(14);
        for (uint64_t i = 0; i < n; ++i) {
          if (Coin(20)) {
            pn_data_put_null(d);
            continue;
          }
          const uint64_t field = Coin(90) ? i : 99;
          if (field == 0 || field == 5) {
            switch (U(4)) {
              case 0: pn_data_put_ulong(d, rng_()); break;
              case 1: PutScalar(d, 17); break;
              case 2: PutScalar(d, 18); break;
              default: PutScalar(d, 19); break;
            }
          } else if (field == 1) {
            PutScalar(d, 18);
          } else if (field == 2 || field == 3 || field == 4 || field == 10 || field == 12) {
            PutScalar(d, 19);
          } else if (field == 6 || field == 7) {
            PutScalar(d, 20);
          } else if (field == 8 || field == 9) {
            PutScalar(d, 16);
          } else if (field == 11) {
            PutScalar(d, 4);
          } else {
            PutValue(d, 2);
          }
        }
        pn_data_exit(d);
      });
    }
    if (Coin(60)) {
      Section(0x74, &out, [&](pn_data_t* d) {
        pn_data_put_map(d);
        pn_data_enter(d);
        for (uint64_t i = U(6); i > 0; --i) {
          if (Coin(95)) {
            PutScalar(d, 19);
          } else {
            PutValue(d, 3);
          }
          PutValue(d, 2);
        }
        pn_data_exit(d);
      });
    }
    switch (U(4)) {
      case 0:
        for (uint64_t i = U(3) + 1; i > 0; --i) Section(0x75, &out, [&](pn_data_t* d) { PutScalar(d, 18); });
        break;
      case 1:
        for (uint64_t i = U(3) + 1; i > 0; --i) {
          Section(0x76, &out, [&](pn_data_t* d) { PutOfType(d, PN_LIST, 0); });
        }
        break;
      case 2: Section(0x77, &out, [&](pn_data_t* d) { PutValue(d, 0); }); break;
      default: break;
    }
    if (Coin(20)) Section(0x78, &out, [&](pn_data_t* d) { AnnotationMap(d); });
    return out;
  }

  // A hand-encoded message in the wide forms Proton never writes: symbol section descriptors, str32,
  // sym32, vbin32, list32, map32, array32.
  Bytes WideMessage() {
    Bytes out;
    auto u32 = [&](Bytes* b, uint32_t v) {
      for (int i = 3; i >= 0; --i) b->push_back(static_cast<uint8_t>(v >> (8 * i)));
    };
    auto var32 = [&](Bytes* b, uint8_t code, std::string_view s) {
      b->push_back(code);
      u32(b, static_cast<uint32_t>(s.size()));
      b->insert(b->end(), s.begin(), s.end());
    };
    auto section = [&](std::string_view symbol, const Bytes& value) {
      out.push_back(0x00);
      if (Coin(50)) {
        var32(&out, 0xb3, symbol);
      } else {
        out.push_back(0xa3);
        out.push_back(static_cast<uint8_t>(symbol.size()));
        out.insert(out.end(), symbol.begin(), symbol.end());
      }
      out.insert(out.end(), value.begin(), value.end());
    };
    auto compound32 = [&](uint8_t code, uint32_t count, const Bytes& items) {
      Bytes b{code};
      u32(&b, static_cast<uint32_t>(items.size() + 4));
      u32(&b, count);
      b.insert(b.end(), items.begin(), items.end());
      return b;
    };
    if (Coin(50)) {
      Bytes items{0x41, 0x50, 0x04};
      section("amqp:header:list", compound32(0xd0, 2, items));
    }
    if (Coin(50)) {
      Bytes items;
      var32(&items, 0xb3, "x-opt-key");
      var32(&items, 0xb1, Text(false));
      section("amqp:message-annotations:map", compound32(0xd1, 2, items));
    }
    if (Coin(50)) {
      Bytes items;
      var32(&items, 0xb1, "k");
      Bytes array{0xf0};
      Bytes elems{0x00, 0xa3, 0x01, 'd', 0xb1};
      const uint32_t n = static_cast<uint32_t>(U(3));
      Bytes payload;
      u32(&payload, n);
      payload.insert(payload.end(), elems.begin(), elems.end());
      for (uint32_t i = 0; i < n; ++i) {
        std::string s = Text(false);
        u32(&payload, static_cast<uint32_t>(s.size()));
        payload.insert(payload.end(), s.begin(), s.end());
      }
      u32(&array, static_cast<uint32_t>(payload.size()));
      array.insert(array.end(), payload.begin(), payload.end());
      items.insert(items.end(), array.begin(), array.end());
      section("amqp:application-properties:map", compound32(0xd1, 2, items));
    }
    Bytes body;
    var32(&body, 0xb0, "bin");
    if (Coin(50)) {
      section("amqp:data:binary", body);
    } else {
      Bytes items;
      var32(&items, 0xb1, Text(false));
      items.insert(items.end(), {0x00, 0xa3, 0x03, 'f', 'o', 'o', 0x45});
      section("amqp:amqp-value:*", compound32(0xd0, 2, items));
    }
    return out;
  }

 private:
  std::mt19937_64 rng_;
};

// --- the tests -----------------------------------------------------------------------------------

TEST(TypedJsonDifferential, JsonOfTheTypedJsonTests) {
  // Every raw string literal of typed_json_test.cc that is a valid typed JSON message.
  std::string source = testing::ReadWholeFile(std::string(SIFT_SOURCE_DIR) + "/tests/amqp/typed_json_test.cc");
  Tally tally;
  size_t at = 0;
  int candidates = 0;
  while ((at = source.find("R\"(", at)) != std::string::npos) {
    size_t end = source.find(")\"", at + 3);
    if (end == std::string::npos) break;
    std::string json = source.substr(at + 3, end - at - 3);
    at = end + 2;
    ++candidates;
    for (const std::string& candidate : {json, R"({"body": {"value": )" + json + "}}"}) {
      Bytes bytes;
      if (EncodeTypedJson(candidate, 0, &bytes).ok()) Same(bytes, &tally, candidate.c_str());
    }
  }
  EXPECT_GT(tally.ok, 50u);
  Report("typed_json_test.cc JSON", tally);
}

TEST(TypedJsonDifferential, TestMessages) {
  Tally tally;
  for (int n = 0; n < 200; ++n) Same(::sift::testing::RichMessage(n), &tally, "RichMessage");
  testing::GeneratedMessages generated = testing::Generate(20240611, 3000);
  ASSERT_TRUE(generated.error.empty()) << generated.error;
  for (const Bytes& m : generated.messages) Same(m, &tally, "generated");
  Report("test messages", tally);
}

TEST(TypedJsonDifferential, FuzzCorpora) {
  Tally tally;
  for (const auto& dir : std::filesystem::directory_iterator(std::string(SIFT_SOURCE_DIR) + "/tests/fuzz/corpus")) {
    for (const auto& file : std::filesystem::directory_iterator(dir.path())) {
      std::string data = testing::ReadWholeFile(file.path().string());
      Bytes bytes(data.begin(), data.end());
      Same(bytes, &tally, file.path().c_str());
      // The message_view corpus is length-prefixed records for some targets: try the tail too.
      if (bytes.size() > 4) Same(Bytes(bytes.begin() + 4, bytes.end()), &tally, file.path().c_str());
    }
  }
  EXPECT_GT(tally.ok + tally.errors, 10u);
  Report("fuzz corpora", tally);
}

TEST(TypedJsonDifferential, SyntheticOrders) {
  Tally tally;
  for (std::string_view profile : synthetic::SyntheticOrders::Profiles()) {
    synthetic::SyntheticOrdersOptions options;
    options.profile = std::string(profile);
    std::unique_ptr<synthetic::SyntheticOrders> orders;
    ASSERT_TRUE(synthetic::SyntheticOrders::Create(options, &orders).ok());
    std::string encoded;
    for (uint64_t i = 0; i < 2000; ++i) {
      ASSERT_TRUE(orders->Encode(i, &encoded).ok());
      Same(Bytes(encoded.begin(), encoded.end()), &tally, "synthetic");
    }
  }
  EXPECT_EQ(tally.errors, 0u);
  Report("synthetic orders", tally);
}

TEST(TypedJsonDifferential, RandomMessages) {
  RandomMessages random(42);
  Tally tally;
  int failures = 0;
  for (int i = 0; i < 100000 && failures < 5; ++i) {
    Bytes m = random.Message();
    if (!Same(m, &tally, "random")) ++failures;
  }
  for (int i = 0; i < 20000 && failures < 5; ++i) {
    Bytes m = random.WideMessage();
    if (!Same(m, &tally, "random wide")) ++failures;
  }
  EXPECT_GT(tally.ok, 90000u);
  Report("random messages", tally);
}

TEST(TypedJsonDifferential, Mutations) {
  RandomMessages random(7);
  Tally tally;
  int failures = 0;
  for (int i = 0; i < 20000 && failures < 5; ++i) {
    Bytes m = i % 5 == 0 ? random.WideMessage() : random.Message();
    if (m.empty()) continue;
    for (int k = 0; k < 8; ++k) {
      Bytes x = m;
      switch (random.U(5)) {
        case 0: x[random.U(x.size())] = static_cast<uint8_t>(random.U(256)); break;
        case 1: x[random.U(x.size())] ^= static_cast<uint8_t>(1u << random.U(8)); break;
        case 2: x.resize(random.U(x.size())); break;
        case 3:
          x.insert(x.begin() + static_cast<long>(random.U(x.size() + 1)), static_cast<uint8_t>(random.U(256)));
          break;
        default: x.erase(x.begin() + static_cast<long>(random.U(x.size()))); break;
      }
      if (!Same(x, &tally, "mutation")) ++failures;
    }
  }
  Report("mutations", tally);
}

TEST(TypedJsonDifferential, JsonRoundTrip) {
  RandomMessages random(99);
  uint64_t checked = 0;
  for (int i = 0; i < 20000; ++i) {
    Bytes m = random.Message();
    std::string json;
    if (!sift::testing::oracle::OracleDecodeToTypedJson(m, std::nullopt, &json).ok()) continue;
    Bytes again;
    // Text with invalid UTF-8 may not come back (two bad keys both written as U+FFFD collide).
    if (!EncodeTypedJson(json, 0, &again).ok()) continue;
    std::string back;
    ASSERT_TRUE(DecodeToTypedJson(again, std::nullopt, &back).ok());
    EXPECT_EQ(back, json);
    ++checked;
  }
  EXPECT_GT(checked, 15000u);
  std::printf("round trips: %llu\n", static_cast<unsigned long long>(checked));
}

}  // namespace
}  // namespace sift::amqp
