// Building chunk summaries: what every message of a chunk holds in its header, properties and
// application-properties, so that a filtered read can skip a chunk none of whose messages can match
// (chunk_summary_facts.h, selector/chunk_predicate.h) without reading it. The bytes are laid out as
// chunk_summary_format.h writes them; storage keeps them without looking inside.
//
// ChunkSummaryBuilder is the storage::ChunkSummarizer the engine installs: for each message it reads
// every header and properties field as the selector sees it (header defaults applied: by one walk of
// each list when it is plain, as producers write it, and through the MessageFieldSource filters use
// otherwise) and every application property (the first entry of a key, as the field source takes it),
// and keeps per field: counts by value class, number and text bounds, which
// booleans occur, and a set of the texts (exact when small, else a Bloom filter with a false positive
// rate of about 0.1%, bloom_filter.h). At most kMaxSummaryFields fields per chunk are summarized; past
// the cap the summary says it is incomplete, and a field it does not list is then unknown rather than
// absent.
//
// A bulk load validates every message anyway: AddChecked() validates it and reads its fields where the
// validating walk found them (amqp::MessageLayout), so the message is walked once, not twice.
//
// Appending pays for the summary on every message, so the builder repeats a value whose encoding is
// the previous message's (a header byte for byte, a constant property) without decoding it, and keeps
// its per-field tables from one chunk to the next.
//
// Beside the summary, the builder lists the chunk's terms (storage/term_index.h): one per distinct
// text of each summarized field (TextTerm, text_hash.h), complete when the summary is (no field past
// the cap). Storage keeps them by hash partition, so that a query looking for a value reads a sliver
// of them.
#ifndef SIFT_ENGINE_CHUNK_SUMMARY_BUILDER_H_
#define SIFT_ENGINE_CHUNK_SUMMARY_BUILDER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "storage/options.h"

namespace sift::engine {

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

}  // namespace sift::engine

#endif  // SIFT_ENGINE_CHUNK_SUMMARY_BUILDER_H_
