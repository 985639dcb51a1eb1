// StreamEngine: opening the store, stream management and validated appends (see sift/stream_engine.h).
// Consumers are created in consumer.cc.
#include "sift/stream_engine.h"

#include <sys/stat.h>

#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "base/bytes.h"
#include "amqp/validate.h"
#include "engine/bulk_load.h"
#include "engine/chunk_summary_builder.h"
#include "engine/stream_engine_impl.h"
#include "storage/summary_entry_format.h"

namespace sift {

// The engine's internals behind the API.
using engine::AppendStatus;
using engine::ChunkSummaryBuilder;
using engine::FromStorage;
using engine::IngestBatch;
using engine::NoSuchStream;
using engine::StreamEngineInternals;
using engine::ValidateBatch;
Status StreamEngine::Open(const std::string& path, const EngineOptions& options, std::unique_ptr<StreamEngine>* out) {
  return StreamEngineInternals::Open(path, options, storage::StoreOptions(), out);
}

Status engine::StreamEngineInternals::Open(const std::string& path, const EngineOptions& options,
                                           const storage::StoreOptions& storage_extra,
                                           std::unique_ptr<StreamEngine>* out) {
  if (!options.store.create_if_missing) {
    // "Missing" is checked here, before RocksDB is asked, so a read-only command never creates a store.
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return Status::NotFound("cannot open store", path, "no such directory");
    if (!S_ISDIR(st.st_mode)) return Status::NotFound("cannot open store", path, "not a directory");
    // An empty folder holds no store; answering here leaves it untouched (the store would write its
    // lock and log files before finding out).
    std::error_code ec;
    if (std::filesystem::is_empty(path, ec) && !ec) {
      return Status::NotFound("cannot open store", path, "not a sift store (empty directory)");
    }
  }
  storage::StoreOptions store_options;
  static_cast<StoreOptions&>(store_options) = options.store;  // the settings; the hooks are the engine's:
  store_options.validator = nullptr;  // the engine validates (EngineOptions::validate), naming the byte
  store_options.chunk_summarizer = options.summarize_chunks ? ChunkSummaryBuilder::Factory() : nullptr;
  store_options.env = storage_extra.env;
  auto impl = std::make_unique<StreamEngine::Impl>();
  impl->options = options;
  storage::Status s = storage::StreamStore::Open(path, store_options, &impl->store);
  if (!s.ok()) {
    // A folder that exists but holds no store, opened without create, is "missing" for the caller too.
    if (!options.store.create_if_missing && s.IsInvalidArgument()) {
      return Status::NotFound("cannot open store", path, "not a sift store (" + std::string(s.why()) + ")");
    }
    return FromStorage(s, "cannot open store", path);
  }
  out->reset(new StreamEngine(path, std::move(impl)));
  return Status::OK();
}

StreamEngine::StreamEngine(std::string path, std::unique_ptr<Impl> impl)
    : path_(std::move(path)), impl_(std::move(impl)) {}

StreamEngine::~StreamEngine() = default;

Status StreamEngine::CreateStream(std::string_view name, const RetentionPolicy& retention) {
  storage::StreamOptions options;
  options.retention = retention;
  storage::Status s = impl_->store->CreateStream(name, options);
  if (s.IsAlreadyExists()) return Status::OK();
  return FromStorage(s, "cannot create stream", name);
}

Status StreamEngine::CheckStreamName(std::string_view name) {
  return FromStorage(storage::ValidateStreamName(name), "bad stream name", name);
}

Status StreamEngine::DeleteStream(std::string_view name) {
  return FromStorage(impl_->store->DeleteStream(name), "cannot delete stream", name);
}

Status StreamEngine::ListStreams(std::vector<std::string>* names) const {
  return FromStorage(impl_->store->ListStreams(names), "cannot list streams", path_);
}

Status StreamEngine::GetStreamInfo(std::string_view name, StreamInfo* info) const {
  storage::StreamInfo s;
  storage::Status st = impl_->store->GetStreamInfo(name, &s);
  if (st.IsNotFound()) return NoSuchStream(path_, name);
  if (!st.ok()) return FromStorage(st, "cannot read stream", name);
  info->name = s.name;
  info->first_offset = s.first_offset;
  info->next_offset = s.next_offset;
  info->message_count = s.message_count;
  info->chunk_count = s.chunk_count;
  info->bytes = s.bytes;
  info->first_timestamp_ms = s.first_timestamp_ms;
  info->last_timestamp_ms = s.last_timestamp_ms;
  info->raw_bytes = s.raw_bytes;
  info->retention = s.retention;
  info->compression = s.compression;
  return Status::OK();
}

Status StreamEngine::SetRetention(std::string_view name, const RetentionPolicy& retention) {
  storage::Status s = impl_->store->SetRetention(name, retention);
  if (s.IsNotFound()) return NoSuchStream(path_, name);
  return FromStorage(s, "cannot set retention", name);
}

Status StreamEngine::SetCompression(std::string_view name, const ChunkCompression& compression) {
  storage::Status s = impl_->store->SetCompression(name, compression);
  if (s.IsNotFound()) return NoSuchStream(path_, name);
  return FromStorage(s, "cannot set compression", name);
}

Status StreamEngine::EnforceRetention() {
  return FromStorage(impl_->store->EnforceRetention(), "cannot apply retention", path_);
}

Status StreamEngine::Append(std::string_view stream, std::string_view message, uint64_t* offset) {
  return AppendBatch(stream, std::span<const std::string_view>(&message, 1), offset);
}

Status engine::ValidateBatch(std::span<const std::string_view> messages) {
  for (size_t i = 0; i < messages.size(); ++i) {
    amqp::DecodeError error = amqp::Validate(base::AsBytes(messages[i]));
    if (!error.ok()) {
      std::string where = messages.size() == 1 ? std::string() : "message " + std::to_string(i) + " of the batch, ";
      where += "byte " + std::to_string(error.offset);
      return Status::Malformed("malformed message", where, error.Reason());
    }
  }
  return Status::OK();
}

Status engine::AppendStatus(const std::string& path, std::string_view stream, const storage::Status& s) {
  if (s.IsNotFound()) return NoSuchStream(path, stream);
  return FromStorage(s, "cannot append", stream);
}

Status StreamEngine::AppendBatch(std::string_view stream, std::span<const std::string_view> messages,
                                 uint64_t* first_offset, const AppendOptions& options) {
  if (options.bulk) return IngestBatch(*this, stream, messages, first_offset);
  if (impl_->options.validate) {
    if (Status v = ValidateBatch(messages); !v.ok()) return v;
  }
  return AppendStatus(path_, stream, impl_->store->AppendBatch(stream, messages, first_offset));
}

Status StreamEngine::AppendEach(std::string_view stream, std::span<const std::string_view> messages,
                                std::vector<AppendOutcome>* outcomes) {
  outcomes->assign(messages.size(), AppendOutcome{});
  const uint32_t max_bytes = impl_->options.store.max_message_bytes;
  std::vector<std::string_view> passed;
  passed.reserve(messages.size());
  for (size_t i = 0; i < messages.size(); ++i) {
    const std::string_view m = messages[i];
    if (m.size() > max_bytes) {
      (*outcomes)[i].status =
          Status::InvalidArgument("message too large", stream,
                                  std::to_string(m.size()) + " bytes, more than the maximum message size of " +
                                      std::to_string(max_bytes) + " bytes");
      continue;
    }
    if (impl_->options.validate) {
      amqp::DecodeError error = amqp::Validate(base::AsBytes(m));
      if (!error.ok()) {
        (*outcomes)[i].status =
            Status::Malformed("malformed message", "byte " + std::to_string(error.offset), error.Reason());
        continue;
      }
    }
    passed.push_back(m);
  }
  uint64_t first = 0;
  const Status s = AppendStatus(path_, stream, impl_->store->AppendBatch(stream, passed, &first));
  // The messages that passed are the outcomes still ok, in batch order.
  uint64_t next = first;
  for (AppendOutcome& outcome : *outcomes) {
    if (!outcome.status.ok()) continue;
    if (s.ok()) {
      outcome.offset = next++;
    } else {
      outcome.status = s;
    }
  }
  return s;
}

Status StreamEngine::Flush() { return FromStorage(impl_->store->Flush(), "cannot flush", path_); }

StoreHealth StreamEngine::Health() const {
  const storage::StoreHealth h = impl_->store->Health();
  return StoreHealth{h.writable, h.error, h.failures, h.recoveries, h.needs_reopen, h.reopen_bytes};
}

Status StreamEngine::SummarizeChunks(std::string_view stream, SummarizeCounts* counts) {
  SummarizeCounts local;
  SummarizeCounts& n_chunks = counts != nullptr ? *counts : local;
  n_chunks = SummarizeCounts{};
  std::vector<storage::ChunkInfo> chunks;
  storage::Status s = impl_->store->ListChunks(stream, &chunks);
  if (s.IsNotFound()) return NoSuchStream(path_, stream);
  if (!s.ok()) return FromStorage(s, "cannot summarize chunks", stream);
  std::unique_ptr<storage::StreamReader> reader;
  storage::ReaderOptions reader_options;
  reader_options.fill_cache = false;
  s = impl_->store->NewReader(stream, reader_options, &reader);
  if (!s.ok()) return FromStorage(s, "cannot summarize chunks", stream);
  ChunkSummaryBuilder builder;
  std::string summary;
  std::vector<uint64_t> terms;
  for (const storage::ChunkInfo& chunk : chunks) {
    s = impl_->store->GetChunkSummary(stream, chunk.first_offset, &summary);
    const bool had_summary = s.ok();
    if (had_summary && chunk.terms_complete) {
      ++n_chunks.present;
      continue;
    }
    if (!had_summary && !s.IsNotFound() && !s.IsCorruption()) return FromStorage(s, "cannot summarize chunks", stream);
    // No summary, a damaged one, or no term entries (written before them): build them from the chunk's
    // messages.
    s = reader->Seek(chunk.first_offset);
    if (!s.ok()) return FromStorage(s, "cannot summarize chunks", stream);
    builder.Reset();
    storage::Record record;
    uint32_t n = 0;
    while (n < chunk.count && reader->Next(&record) && record.offset < chunk.first_offset + chunk.count) {
      builder.Add(record.data);
      ++n;
    }
    if (!reader->status().ok()) return FromStorage(reader->status(), "cannot summarize chunks", stream);
    if (n != chunk.count) continue;  // retention deleted the chunk meanwhile
    builder.Finish(&summary);
    const bool terms_complete = builder.FinishTerms(&terms);
    if (had_summary && !terms_complete) {
      ++n_chunks.present;  // its summary stays: it has no complete terms to add (too many fields)
      continue;
    }
    // A chunk summaries cannot describe, or one smaller than its summary: it is always read.
    if (summary.empty() || !storage::SummaryWorthStoring(summary.size(), chunk.bytes)) {
      ++n_chunks.left_without;
      continue;
    }
    s = impl_->store->PutChunkSummary(stream, chunk.first_offset, summary, terms_complete ? &terms : nullptr);
    if (s.IsNotFound()) continue;  // deleted meanwhile
    if (!s.ok()) return FromStorage(s, "cannot summarize chunks", stream);
    ++n_chunks.built;
  }
  return Status::OK();
}

}  // namespace sift
