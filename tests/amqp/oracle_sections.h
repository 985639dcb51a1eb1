// Test oracle support: an encoded message cut into its sections by Qpid Proton's own decoder
// (pn_data_decode, an implementation independent of sift's codec), with the message rules of AMQP 1.0
// core part 3, section 3.2 checked here from the spec and the limits of docs/typed-json.md ("Errors
// and limits") checked by a plain byte walk written from core part 1, section 1.
//
// The walk exists because Proton 0.37 cannot be trusted with some inputs: it recurses without a
// bound, it builds one node per claimed element of an array of zero-width elements, it reads a
// compound's count and ignores its size, and after a described value whose value is itself described
// it stays one level too deep. So a section is accepted only when the walk finds it sound by the
// documented rules and Proton consumes exactly the bytes the walk measured.
//
// Shared by oracle_proton_message.h and oracle_typed_json.h; header-only, like every test helper.
#ifndef SIFT_TESTS_AMQP_ORACLE_SECTIONS_H_
#define SIFT_TESTS_AMQP_ORACLE_SECTIONS_H_

#include <proton/codec.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sift::testing::oracle {

// A verdict and, when negative, why; the tests compare verdicts, and print the reasons.
class Verdict {
 public:
  static Verdict Ok() { return Verdict(); }
  static Verdict Bad(std::string why) {
    Verdict v;
    v.bad_ = true;
    v.why_ = std::move(why);
    return v;
  }
  bool ok() const { return !bad_; }
  const std::string& error() const { return why_; }

 private:
  bool bad_ = false;
  std::string why_;
};

// Core part 3, section 3.2: the nine sections in the order a message holds them.
enum Kind {
  kHeader = 0,
  kDeliveryAnnotations,
  kMessageAnnotations,
  kProperties,
  kApplicationProperties,
  kData,
  kAmqpSequence,
  kAmqpValue,
  kFooter,
  kKinds
};

struct KindInfo {
  const char* name;
  uint64_t code;       // the descriptor as a ulong (domain 0x00000000)
  const char* symbol;  // the descriptor as a symbol
  pn_type_t value;     // the type the section's value must have; PN_INVALID: any
};

inline constexpr KindInfo kKindInfo[kKinds] = {
    {"header", 0x70, "amqp:header:list", PN_LIST},
    {"delivery-annotations", 0x71, "amqp:delivery-annotations:map", PN_MAP},
    {"message-annotations", 0x72, "amqp:message-annotations:map", PN_MAP},
    {"properties", 0x73, "amqp:properties:list", PN_LIST},
    {"application-properties", 0x74, "amqp:application-properties:map", PN_MAP},
    {"data", 0x75, "amqp:data:binary", PN_BINARY},
    {"amqp-sequence", 0x76, "amqp:amqp-sequence:list", PN_LIST},
    {"amqp-value", 0x77, "amqp:amqp-value:*", PN_INVALID},
    {"footer", 0x78, "amqp:footer:map", PN_MAP},
};

inline bool IsBodyKind(int k) { return k == kData || k == kAmqpSequence || k == kAmqpValue; }

struct DataDeleter {
  void operator()(pn_data_t* d) const { pn_data_free(d); }
};
using DataPtr = std::unique_ptr<pn_data_t, DataDeleter>;

struct Piece {
  size_t offset = 0;
  size_t size = 0;
};

struct SectionPiece {
  int kind = kHeader;
  size_t offset = 0;         // first byte of the section (its 0x00)
  Piece value;               // the section's value, descriptor excluded
  std::vector<Piece> items;  // a list value's elements, in order
  DataPtr tree;              // Proton's decode of the whole section

  // Proton's tree positioned on the section's value.
  pn_data_t* Value() const {
    pn_data_rewind(tree.get());
    pn_data_next(tree.get());
    pn_data_enter(tree.get());
    pn_data_next(tree.get());
    pn_data_next(tree.get());
    return tree.get();
  }
};

// The byte walk of one value: its extent, and the two rules of docs/typed-json.md Proton needs:
// nesting at most 200 levels, and no count above its compound's size. Compounds are measured by
// their size prefix; whether the elements fill it is left to the comparison with Proton.
class ByteWalk {
 public:
  static constexpr int kDeepest = 200;

  explicit ByteWalk(const uint8_t* base) : base_(base) {}

  // The end of the value at p, not reading at or past `end`; nullptr with why() set when unsound.
  const uint8_t* Value(const uint8_t* p, const uint8_t* end, int depth) {
    if (depth > kDeepest) return Stop(p, "nested deeper than 200 levels");
    if (p >= end) return Stop(p, "a value runs past the end");
    const uint8_t constructor = *p++;
    if (constructor != 0x00) return Payload(constructor, p, end, depth);
    p = Value(p, end, depth + 1);  // the descriptor
    if (p == nullptr) return nullptr;
    const uint8_t* inner = (p < end && *p == 0x00) ? p : nullptr;
    const uint8_t* after = Value(p, end, depth + 1);
    if (after != nullptr && inner != nullptr && (doubly_described_ == nullptr || after < doubly_described_end_)) {
      doubly_described_ = inner;
      doubly_described_end_ = after;
    }
    return after;
  }

  // A described value directly inside a described value that ends first, if the walk met one.
  const uint8_t* doubly_described() const { return doubly_described_; }
  const uint8_t* doubly_described_end() const { return doubly_described_end_; }
  const std::string& why() const { return why_; }

 private:
  const uint8_t* Stop(const uint8_t* at, const char* what) {
    why_ = "byte " + std::to_string(at - base_) + ": " + what;
    return nullptr;
  }

  static uint32_t BigEndian(const uint8_t* p, int width) {
    uint32_t v = 0;
    for (int i = 0; i < width; ++i) v = (v << 8) | p[i];
    return v;
  }

  // Core part 1, section 1.3: the high nibble of a format code says how its payload is measured.
  const uint8_t* Payload(uint8_t constructor, const uint8_t* p, const uint8_t* end, int depth) {
    const size_t left = static_cast<size_t>(end - p);
    const int nibble = constructor >> 4;
    static constexpr int kFixed[16] = {0, 0, 0, 0, 0, 1, 2, 4, 8, 16, -1, -1, -1, -1, -1, -1};
    if (kFixed[nibble] >= 0) {
      // Codes below 0x40 are no format code at all; Proton refuses them, nothing to measure here.
      if (left < static_cast<size_t>(kFixed[nibble])) return Stop(p, "a value runs past the end");
      return p + kFixed[nibble];
    }
    const int width = (nibble & 1) ? 4 : 1;  // 0xa, 0xc, 0xe: one byte; 0xb, 0xd, 0xf: four
    if (left < static_cast<size_t>(width)) return Stop(p, "a size runs past the end");
    const uint32_t size = BigEndian(p, width);
    p += width;
    if (size > left - width) return Stop(p, "a size runs past the end");
    const uint8_t* stop = p + size;
    if (nibble <= 0xb) return stop;  // binary, string, symbol
    if (size < static_cast<uint32_t>(width)) return Stop(p, "a compound too small for its count");
    const uint32_t count = BigEndian(p, width);
    if (count > size) return Stop(p - width - 1, "a compound's count exceeds its size");
    const uint8_t* q = p + width;
    if (nibble <= 0xd) {  // list, map: `count` whole values
      for (uint32_t i = 0; i < count; ++i) {
        q = Value(q, stop, depth + 1);
        if (q == nullptr) return nullptr;
      }
      return stop;
    }
    // Array: one element constructor (with at most one descriptor), then `count` payloads.
    if (q >= stop) return Stop(q, "an array constructor runs past the end");
    uint8_t element = *q++;
    if (element == 0x00) {
      q = Value(q, stop, depth + 2);
      if (q == nullptr) return nullptr;
      if (q >= stop) return Stop(q, "an array constructor runs past the end");
      element = *q++;
      if (element == 0x00) return Stop(q - 1, "an array element constructor described twice");
    }
    for (uint32_t i = 0; i < count; ++i) {
      q = Payload(element, q, stop, depth + 1);
      if (q == nullptr) return nullptr;
    }
    return stop;
  }

  const uint8_t* base_;
  const uint8_t* doubly_described_ = nullptr;
  const uint8_t* doubly_described_end_ = nullptr;
  std::string why_;
};

// The extents of a list's elements (the list at `p` already walked soundly); empty for list0.
inline std::vector<Piece> ListItems(const uint8_t* base, const uint8_t* p, const uint8_t* end) {
  std::vector<Piece> items;
  const uint8_t c = *p;
  if (c != 0xc0 && c != 0xd0) return items;
  const int width = c == 0xc0 ? 1 : 4;
  uint32_t count = 0;
  for (int i = 0; i < width; ++i) count = (count << 8) | p[1 + width + i];
  const uint8_t* q = p + 1 + 2 * width;
  ByteWalk walk(base);
  for (uint32_t i = 0; i < count && q != nullptr && q < end; ++i) {
    const uint8_t* next = walk.Value(q, end, 0);
    if (next == nullptr) break;
    items.push_back(Piece{static_cast<size_t>(q - base), static_cast<size_t>(next - q)});
    q = next;
  }
  return items;
}

// Cuts `bytes` into sections, each decoded by Proton, checking section order and types (core part 3,
// section 3.2). A message with no bytes has no sections.
inline Verdict CutSections(std::span<const uint8_t> bytes, std::vector<SectionPiece>* out) {
  out->clear();
  const uint8_t* base = bytes.data();
  const uint8_t* end = base + bytes.size();
  size_t at = 0;
  int last_kind = -1;
  auto fail = [&](const std::string& why) { return Verdict::Bad("byte " + std::to_string(at) + ": " + why); };
  while (at < bytes.size()) {
    ByteWalk walk(base);
    const uint8_t* stop = walk.Value(base + at, end, 0);
    if (stop == nullptr) return Verdict::Bad(walk.why());
    if (walk.doubly_described() != nullptr && walk.doubly_described_end() != stop) {
      return Verdict::Bad("byte " + std::to_string(walk.doubly_described() - base) +
                          ": a described value inside a described value, followed by more values");
    }
    const size_t measured = static_cast<size_t>(stop - (base + at));
    SectionPiece s;
    s.offset = at;
    s.tree.reset(pn_data(0));
    const ssize_t used = pn_data_decode(s.tree.get(), reinterpret_cast<const char*>(base + at), bytes.size() - at);
    if (used <= 0) return fail("Proton cannot decode the section");
    if (static_cast<size_t>(used) != measured) {
      return fail("Proton decoded " + std::to_string(used) + " bytes of " + std::to_string(measured));
    }
    pn_data_t* t = s.tree.get();
    pn_data_rewind(t);
    pn_data_next(t);
    if (pn_data_type(t) != PN_DESCRIBED) return fail("not a described value");
    pn_data_enter(t);
    pn_data_next(t);
    int kind = -1;
    for (int k = 0; k < kKinds && kind < 0; ++k) {
      if (pn_data_type(t) == PN_ULONG && pn_data_get_ulong(t) == kKindInfo[k].code) kind = k;
      if (pn_data_type(t) == PN_SYMBOL) {
        const pn_bytes_t sym = pn_data_get_symbol(t);
        if (std::string_view(sym.start, sym.size) == kKindInfo[k].symbol) kind = k;
      }
    }
    if (kind < 0) return fail("no section descriptor");
    pn_data_next(t);
    if (kKindInfo[kind].value != PN_INVALID && pn_data_type(t) != kKindInfo[kind].value) {
      return fail(std::string(kKindInfo[kind].name) + " section of the wrong type");
    }
    if (last_kind >= 0) {
      const bool both_body = IsBodyKind(kind) && IsBodyKind(last_kind);
      if (both_body) {
        if (kind != last_kind || kind == kAmqpValue) return fail("a body of more than one kind");
      } else if (kind == last_kind) {
        return fail(std::string("second ") + kKindInfo[kind].name + " section");
      } else if (kind < last_kind) {
        return fail(std::string(kKindInfo[kind].name) + " section out of order");
      }
    }
    s.kind = kind;
    // The value follows the descriptor, whose extent the walk gives again.
    ByteWalk descriptor(base);
    const uint8_t* value = descriptor.Value(base + at + 1, stop, 1);
    s.value = Piece{static_cast<size_t>(value - base), static_cast<size_t>(stop - value)};
    s.items = ListItems(base, value, stop);
    out->push_back(std::move(s));
    last_kind = kind;
    at += measured;
  }
  return Verdict::Ok();
}

}  // namespace sift::testing::oracle

#endif  // SIFT_TESTS_AMQP_ORACLE_SECTIONS_H_
