// Chunk summaries: what every message of a chunk holds in its header, properties and
// application-properties, so that a filtered read can skip a chunk none of whose messages can match
// (selector/chunk_predicate.h) without reading it. The format is specified in docs/store-format.md
// ("Chunk summaries"); storage keeps the bytes without looking inside.
//
// ChunkSummaryBuilder is the storage::ChunkSummarizer the engine installs: for each message it reads
// every header and properties field as the selector sees it (header defaults applied: by one walk of
// each list when it is plain, as producers write it, and through the MessageFieldSource filters use
// otherwise) and every application property (the first entry of a key, as the field source takes it),
// and keeps per field: counts by value class, number and text bounds, which
// booleans occur, and a set of the texts (exact when small, else a Bloom filter with a false positive
// rate of about 0.1%). At most kMaxSummaryFields fields per chunk are summarized; past the cap the
// summary says it is incomplete, and a field it does not list is then unknown rather than absent.
//
// A bulk load validates every message anyway: AddChecked() validates it and reads its fields where the
// validating walk found them (amqp::MessageLayout), so the message is walked once, not twice.
//
// Appending pays for the summary on every message, so the builder repeats a value whose encoding is
// the previous message's (a header byte for byte, a constant property) without decoding it, and keeps
// its per-field tables from one chunk to the next.
//
// Beside the summary, the builder lists the chunk's terms (storage/term_index.h): one per distinct
// text of each summarized field (TextTerm), complete when the summary is (no field past the cap).
// Storage keeps them by hash partition, so that a query looking for a value reads a sliver of them.
//
// ChunkSummaryFacts answers a ChunkPredicate's questions from summary bytes without allocating.
// ChunkSkipper joins the two for a reader's chunk filter, and answers the same predicate from a
// chunk's terms alone for the reader's term filter: every fact unknown except which texts a field may
// hold, so that `customer = 'c-1'` rules out a chunk whose terms lack it without its summary being read.
#ifndef SIFT_ENGINE_CHUNK_SUMMARY_H_
#define SIFT_ENGINE_CHUNK_SUMMARY_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "selector/chunk_predicate.h"
#include "selector/field_source.h"
#include "selector/selector.h"
#include "storage/options.h"

namespace sift::engine {

inline constexpr uint8_t kSummaryVersion = 1;
inline constexpr size_t kMaxSummaryFields = 64;
// Texts longer than this are summarized by a bound of this length (a prefix, or the smallest string
// above every text with that prefix).
inline constexpr size_t kMaxSummaryTextBound = 128;

// Builds summaries (see the file comment). Not thread-safe: one per appending thread.
class ChunkSummaryBuilder final : public storage::ChunkSummarizer {
 public:
  ChunkSummaryBuilder();
  ~ChunkSummaryBuilder() override;

  void Reset() override;
  void Add(std::string_view message) override;
  // Add() after strict validation (amqp::Validate's rules), whose walk also finds the fields: cheaper
  // than validating first and then adding. False, for a malformed message (the chunk then gets no
  // summary).
  bool AddChecked(std::string_view message) override;
  void Finish(std::string* summary) override;
  bool FinishTerms(std::vector<uint64_t>* terms) override;

  // A factory for storage::StoreOptions::chunk_summarizer.
  static storage::ChunkSummarizerFactory Factory();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The facts of one summary for the fields of a predicate (by slot). Reset() allocates nothing.
class ChunkSummaryFacts final : public selector::ChunkFacts {
 public:
  explicit ChunkSummaryFacts(std::span<const selector::FieldRef> fields);
  ~ChunkSummaryFacts() override;

  // Points at another summary (which must outlive the questions). False when the summary cannot be
  // read (another version, damaged): nothing is known then.
  bool Reset(std::string_view summary);

  bool Field(uint32_t slot, selector::FieldFacts* facts) const override;
  bool MayHoldText(uint32_t slot, std::string_view text) const override;

 private:
  struct Slot;
  bool ReadField(uint32_t slot, selector::FieldFacts* facts, std::string_view* set) const;
  std::vector<Slot> slots_;
  uint32_t messages_ = 0;
  bool complete_ = false;
  bool readable_ = false;
};

// The term of text `text` in the field `name` of `section`: what the builder lists for each distinct
// text of a summarized field, and what a term filter looks for (docs/store-format.md, "Term index").
uint64_t TextTerm(selector::Section section, std::string_view name, std::string_view text);

// The facts a chunk's terms give (ChunkSkipper::MayMatchTerms): of a summarized field, every value may
// occur but texts whose term the chunk lacks.
class ChunkTermFacts final : public selector::ChunkFacts {
 public:
  explicit ChunkTermFacts(std::span<const selector::FieldRef> fields);
  ~ChunkTermFacts() override;
  // The terms to answer from (null: every text may occur); they must outlive the questions.
  void Reset(const storage::ChunkTermLookup* lookup) { lookup_ = lookup; }

  bool Field(uint32_t slot, selector::FieldFacts* facts) const override;
  bool MayHoldText(uint32_t slot, std::string_view text) const override;

 private:
  struct Slot {
    bool summarized = false;
    selector::Section section{};
    std::string name;
  };
  std::vector<Slot> slots_;
  const storage::ChunkTermLookup* lookup_ = nullptr;
};

// A reader's chunk filter: the selector's chunk predicate over summaries, and over terms. Not
// thread-safe.
class ChunkSkipper {
 public:
  explicit ChunkSkipper(const selector::Selector& selector);
  // False when no message of the summarized chunk can match.
  bool MayMatch(std::string_view summary);
  bool useful() const { return predicate_.useful(); }

  // The terms whose absence can rule a chunk out for this selector (the texts it compares fields with),
  // or none when terms cannot help it (then no term filter is worth setting). Few: a selector that
  // would look in more than kMaxTermPartitions partitions gets none, for it would read most of them.
  const std::vector<uint64_t>& terms() const { return terms_; }
  static constexpr size_t kMaxTermPartitions = 8;
  // False when no message of the chunk whose terms `lookup` gives can match.
  bool MayMatchTerms(const storage::ChunkTermLookup& lookup);

 private:
  selector::ChunkPredicate predicate_;
  ChunkSummaryFacts facts_;
  ChunkTermFacts term_facts_;
  std::vector<uint64_t> terms_;
};

}  // namespace sift::engine

#endif  // SIFT_ENGINE_CHUNK_SUMMARY_H_
