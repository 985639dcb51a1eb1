// ChunkPredicate: "can any message of this chunk make the selector TRUE?", answered from a summary of
// the chunk's field values instead of its messages.
//
// A store keeps, beside each chunk of messages, what is known of each field over all of the chunk's
// messages (how many hold it, are null, hold text / numbers / booleans / other values; the least and
// greatest number and text; which booleans occur; a set of the texts). The predicate evaluates the
// selector's compiled program over those facts in an abstract domain: each sub-expression yields the
// set of truth values it may take on some message of the chunk (a superset: TRUE, FALSE, UNKNOWN), by
// the same rules as evaluation (three-valued logic, comparison classes, JMS vs filter-expression rules
// for unlike types, header defaults, which the facts already include). The chunk can be skipped only
// when TRUE is not in the root's set. The JMS header names that convert a field (JMSTimestamp,
// JMSExpiration, JMSRedelivered, JMSDeliveryMode, JMSMessageID, JMSCorrelationID) get facts derived
// from the field's. Anything the
// predicate cannot reason about (arithmetic, other functions, field paths, sections without facts, a
// comparison of two fields) may take every value, so a skip never changes a result: the differential
// tests check that against every message.
//
// Nothing here knows how a summary is encoded: the caller answers through ChunkFacts. Thread safety:
// a ChunkPredicate is immutable and may be used from many threads; MayMatch allocates nothing.
#ifndef SIFT_SELECTOR_CHUNK_PREDICATE_H_
#define SIFT_SELECTOR_CHUNK_PREDICATE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "selector/compare.h"
#include "selector/field_source.h"
#include "selector/selector.h"

namespace sift::selector {

// What is known of one field over every message of a chunk. Counts are of messages; a message counts
// in at most one of nulls / texts / numbers / booleans / others, and present is their sum.
struct FieldFacts {
  uint32_t messages = 0;  // messages in the chunk
  uint32_t present = 0;   // messages where the field reads as a value (null included)
  uint32_t nulls = 0;
  uint32_t texts = 0;    // string, symbol, char
  uint32_t numbers = 0;  // integers, floats, decimals, timestamps (a NaN included)
  uint32_t booleans = 0;
  uint32_t others = 0;  // binary, uuid, compounds, described values, undecodable decimals
  // Numbers: whether some is NaN, and the least and greatest of the others (valid when has_range).
  bool has_nan = false;
  bool has_number_range = false;
  Number number_min, number_max;
  // Texts (valid when texts > 0): every text t has text_min <= t (by bytes) and, unless
  // text_max_unbounded, t <= text_max. A bound is `exact` when some text equals it (not truncated).
  std::string_view text_min, text_max;
  bool text_min_exact = false, text_max_exact = false, text_max_unbounded = false;
  // Booleans: which values occur.
  bool seen_true = false, seen_false = false;
};

// The facts of one chunk, by the predicate's field slots (ChunkPredicate::fields()).
class ChunkFacts {
 public:
  virtual ~ChunkFacts() = default;
  // True and *facts filled when the chunk's facts for field `slot` are known; false when nothing is
  // known of it (the predicate then assumes every value).
  virtual bool Field(uint32_t slot, FieldFacts* facts) const = 0;
  // False only when no message of the chunk holds text `text` in field `slot` (an exact set of the
  // field's texts, or a Bloom filter: false positives, never false negatives).
  virtual bool MayHoldText(uint32_t slot, std::string_view text) const = 0;
};

class ChunkPredicate {
 public:
  // A predicate that never rules a chunk out.
  ChunkPredicate() = default;
  // The predicate of `selector` (never rules anything out when !selector.ok()).
  static ChunkPredicate For(const Selector& selector);

  // True when some condition of the selector can rule a chunk out: a caller may skip consulting
  // summaries when it is false.
  bool useful() const { return useful_; }
  // The fields ChunkFacts::Field is asked about, by slot (the selector's fields()).
  const std::vector<FieldRef>& fields() const;

  // False when no message of the chunk described by `facts` can make the selector TRUE.
  bool MayMatch(const ChunkFacts& facts) const;

  // The conditions the predicate reasons about, one per line ("application_properties.customer =
  // 'c-1': range, value set"), or a line saying that it cannot rule out any chunk.
  std::string Explain() const;

 private:
  std::shared_ptr<const Program> program_;
  bool useful_ = false;
};

}  // namespace sift::selector

#endif  // SIFT_SELECTOR_CHUNK_PREDICATE_H_
