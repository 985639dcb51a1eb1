// The C API's store: opening and closing, streams and their retention, appends.
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "capi/internal.h"

namespace sift::capi {
namespace {

// The size of the first release's options: what a caller built against it passes.
constexpr size_t kStoreOptionsSize = sizeof(sift_store_options);

sift_status NullArgument(sift_error** error, const char* function, const char* argument) {
  return Fail(error, SIFT_INVALID_ARGUMENT, std::string(function) + ": " + argument + " is NULL");
}

bool ToEngineOptions(const sift_store_options& in, EngineOptions* out, std::string* why) {
  if (in.struct_size < kStoreOptionsSize) {
    *why =
        "sift_store_options.struct_size is " + std::to_string(in.struct_size) + " (call sift_store_options_init first)";
    return false;
  }
  const int compression = RawEnum(in.compression);
  if (compression != SIFT_COMPRESSION_NONE && compression != SIFT_COMPRESSION_ZSTD) {
    *why = "unknown compression " + std::to_string(compression);
    return false;
  }
  out->store.sync = in.sync != 0;
  out->store.create_if_missing = in.create_if_missing != 0;
  out->store.read_only = in.read_only != 0;
  out->validate = in.validate != 0;
  out->summarize_chunks = in.summarize_chunks != 0;
  out->store.max_chunk_messages = in.max_chunk_messages;
  out->store.max_chunk_bytes = in.max_chunk_bytes;
  out->store.max_message_bytes = in.max_message_bytes;
  out->store.block_cache_bytes = static_cast<size_t>(in.block_cache_bytes);
  out->store.compression.codec =
      compression == SIFT_COMPRESSION_ZSTD ? ChunkCompression::Codec::kZstd : ChunkCompression::Codec::kNone;
  out->store.compression.level = in.compression_level;
  return true;
}

RetentionPolicy ToRetention(const sift_retention* retention) {
  RetentionPolicy out;
  if (retention != nullptr) {
    out.max_bytes = retention->max_bytes;
    out.max_age = std::chrono::milliseconds(retention->max_age_ms);
  }
  return out;
}

}  // namespace
}  // namespace sift::capi

using sift::capi::Fail;
using sift::capi::Guard;
using sift::capi::NullArgument;
using sift::capi::Ok;
using sift::capi::Report;

extern "C" {

void sift_store_options_init(sift_store_options* options) {
  if (options == nullptr) return;
  const sift::EngineOptions defaults;
  std::memset(options, 0, sizeof(*options));
  options->struct_size = sizeof(*options);
  options->sync = defaults.store.sync ? 1 : 0;
  options->create_if_missing = defaults.store.create_if_missing ? 1 : 0;
  options->read_only = defaults.store.read_only ? 1 : 0;
  options->validate = defaults.validate ? 1 : 0;
  options->summarize_chunks = defaults.summarize_chunks ? 1 : 0;
  options->max_chunk_messages = defaults.store.max_chunk_messages;
  options->max_chunk_bytes = defaults.store.max_chunk_bytes;
  options->max_message_bytes = defaults.store.max_message_bytes;
  options->block_cache_bytes = defaults.store.block_cache_bytes;
  options->compression = SIFT_COMPRESSION_NONE;
  options->compression_level = defaults.store.compression.level;
}

sift_status sift_store_open(const char* path, const sift_store_options* options, sift_store** store,
                            sift_error** error) {
  return Guard(error, [&]() -> sift_status {
    if (store == nullptr) return NullArgument(error, "sift_store_open", "store");
    *store = nullptr;
    if (path == nullptr) return NullArgument(error, "sift_store_open", "path");
    sift::EngineOptions engine_options;
    if (options != nullptr) {
      std::string why;
      if (!sift::capi::ToEngineOptions(*options, &engine_options, &why)) {
        return Fail(error, SIFT_INVALID_ARGUMENT, std::string("cannot open store: ") + path + ": " + why);
      }
    }
    std::unique_ptr<sift::StreamEngine> engine;
    sift::Status s = sift::StreamEngine::Open(path, engine_options, &engine);
    if (!s.ok()) return Report(error, s);
    auto made = std::make_unique<sift_store>();
    made->engine = std::move(engine);
    *store = made.release();
    return Ok(error);
  });
}

void sift_store_close(sift_store* store) { delete store; }

sift_status sift_store_flush(sift_store* store, sift_error** error) {
  return Guard(error, [&]() -> sift_status {
    if (store == nullptr) return NullArgument(error, "sift_store_flush", "store");
    return Report(error, store->engine->Flush());
  });
}

sift_status sift_stream_create(sift_store* store, const char* name, const sift_retention* retention,
                               sift_error** error) {
  return Guard(error, [&]() -> sift_status {
    if (store == nullptr) return NullArgument(error, "sift_stream_create", "store");
    if (name == nullptr) return NullArgument(error, "sift_stream_create", "name");
    return Report(error, store->engine->CreateStream(name, sift::capi::ToRetention(retention)));
  });
}

sift_status sift_stream_delete(sift_store* store, const char* name, sift_error** error) {
  return Guard(error, [&]() -> sift_status {
    if (store == nullptr) return NullArgument(error, "sift_stream_delete", "store");
    if (name == nullptr) return NullArgument(error, "sift_stream_delete", "name");
    return Report(error, store->engine->DeleteStream(name));
  });
}

sift_status sift_stream_list(sift_store* store, char*** names, sift_error** error) {
  return Guard(error, [&]() -> sift_status {
    if (names == nullptr) return NullArgument(error, "sift_stream_list", "names");
    *names = nullptr;
    if (store == nullptr) return NullArgument(error, "sift_stream_list", "store");
    std::vector<std::string> list;
    sift::Status s = store->engine->ListStreams(&list);
    if (!s.ok()) return Report(error, s);
    // One block: the pointer array (NULL-terminated), then the strings, so one sift_free frees it all.
    size_t bytes = (list.size() + 1) * sizeof(char*);
    for (const std::string& name : list) bytes += name.size() + 1;
    char** block = static_cast<char**>(std::malloc(bytes));
    if (block == nullptr) return Fail(error, SIFT_NO_MEMORY, "sift_stream_list: out of memory");
    char* text = reinterpret_cast<char*>(block + list.size() + 1);
    for (size_t i = 0; i < list.size(); ++i) {
      block[i] = text;
      std::memcpy(text, list[i].c_str(), list[i].size() + 1);
      text += list[i].size() + 1;
    }
    block[list.size()] = nullptr;
    *names = block;
    return Ok(error);
  });
}

sift_status sift_stream_info_get(sift_store* store, const char* name, sift_stream_info* info, sift_error** error) {
  return Guard(error, [&]() -> sift_status {
    if (store == nullptr) return NullArgument(error, "sift_stream_info_get", "store");
    if (name == nullptr) return NullArgument(error, "sift_stream_info_get", "name");
    if (info == nullptr) return NullArgument(error, "sift_stream_info_get", "info");
    sift::StreamInfo in;
    sift::Status s = store->engine->GetStreamInfo(name, &in);
    if (!s.ok()) return Report(error, s);
    info->first_offset = in.first_offset;
    info->next_offset = in.next_offset;
    info->message_count = in.message_count;
    info->chunk_count = in.chunk_count;
    info->bytes = in.bytes;
    info->raw_bytes = in.raw_bytes;
    info->first_timestamp_ms = in.first_timestamp_ms;
    info->last_timestamp_ms = in.last_timestamp_ms;
    info->retention.max_bytes = in.retention.max_bytes;
    info->retention.max_age_ms = in.retention.max_age.count();
    return Ok(error);
  });
}

sift_status sift_stream_set_retention(sift_store* store, const char* name, const sift_retention* retention,
                                      sift_error** error) {
  return Guard(error, [&]() -> sift_status {
    if (store == nullptr) return NullArgument(error, "sift_stream_set_retention", "store");
    if (name == nullptr) return NullArgument(error, "sift_stream_set_retention", "name");
    if (retention == nullptr) return NullArgument(error, "sift_stream_set_retention", "retention");
    return Report(error, store->engine->SetRetention(name, sift::capi::ToRetention(retention)));
  });
}

sift_status sift_store_enforce_retention(sift_store* store, sift_error** error) {
  return Guard(error, [&]() -> sift_status {
    if (store == nullptr) return NullArgument(error, "sift_store_enforce_retention", "store");
    return Report(error, store->engine->EnforceRetention());
  });
}

sift_status sift_append(sift_store* store, const char* stream, const void* data, size_t size, uint64_t* offset,
                        sift_error** error) {
  return Guard(error, [&]() -> sift_status {
    if (store == nullptr) return NullArgument(error, "sift_append", "store");
    if (stream == nullptr) return NullArgument(error, "sift_append", "stream");
    if (data == nullptr && size != 0) return NullArgument(error, "sift_append", "data");
    std::string_view message(static_cast<const char*>(data), data == nullptr ? 0 : size);
    return Report(error, store->engine->Append(stream, message, offset));
  });
}

sift_status sift_append_batch(sift_store* store, const char* stream, const sift_bytes* messages, size_t count,
                              sift_append_outcome* outcomes, sift_error** error) {
  return Guard(error, [&]() -> sift_status {
    if (store == nullptr) return NullArgument(error, "sift_append_batch", "store");
    if (stream == nullptr) return NullArgument(error, "sift_append_batch", "stream");
    if (count != 0 && messages == nullptr) return NullArgument(error, "sift_append_batch", "messages");
    if (count != 0 && outcomes == nullptr) return NullArgument(error, "sift_append_batch", "outcomes");
    std::vector<std::string_view> views(count);
    for (size_t i = 0; i < count; ++i) {
      if (messages[i].data == nullptr && messages[i].size != 0) {
        return Fail(error, SIFT_INVALID_ARGUMENT,
                    "sift_append_batch: messages[" + std::to_string(i) + "].data is NULL");
      }
      views[i] = std::string_view(static_cast<const char*>(messages[i].data),
                                  messages[i].data == nullptr ? 0 : messages[i].size);
    }
    std::vector<sift::AppendOutcome> results;
    sift::Status s = store->engine->AppendEach(stream, views, &results);
    for (size_t i = 0; i < count; ++i) {
      const sift::Status& one = i < results.size() ? results[i].status : s;
      outcomes[i].status = sift::capi::CodeOf(one);
      outcomes[i].offset = i < results.size() && one.ok() ? results[i].offset : 0;
      outcomes[i].error = nullptr;
      if (!one.ok()) (void)Report(&outcomes[i].error, one);
    }
    return Report(error, s);
  });
}

}  // extern "C"
