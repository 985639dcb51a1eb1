// Output sinks and match writers (see output.h).
#include "tools/sift/output.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include "base/byte_order.h"
#include "amqp/typed_json.h"
#include "amqp/validate.h"
#include "tools/sift/command.h"
#include "tools/amqp_client/publisher.h"
#include "tools/sift/ordered_batches.h"

namespace sift::tools {
namespace {
constexpr size_t kBufferBytes = 1 << 20;
}

Status ByteSink::Open(const std::string& path, std::unique_ptr<ByteSink>* out) {
  if (path.empty() || path == "-") {
    out->reset(new ByteSink(stdout, false, "stdout"));
    return Status::OK();
  }
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) return Status::InvalidArgument("cannot write output", path, std::strerror(errno));
  out->reset(new ByteSink(file, true, path));
  return Status::OK();
}

ByteSink::ByteSink(std::FILE* file, bool owned, std::string name) : file_(file), owned_(owned), name_(std::move(name)) {
  buffer_.reserve(kBufferBytes);
}

ByteSink::~ByteSink() {
  (void)Flush();
  if (owned_) std::fclose(file_);
}

void ByteSink::Write(std::string_view bytes) {
  if (buffer_.size() + bytes.size() > kBufferBytes) (void)Flush();
  if (bytes.size() >= kBufferBytes / 8) {  // large pieces (a batch of lines) skip the copy into the buffer
    (void)Flush();
    if (error_ == 0 && std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) error_ = errno ? errno : EIO;
    return;
  }
  buffer_.append(bytes);
}

void ByteSink::WriteRecord(std::string_view message) {
  uint8_t prefix[4];
  base::StoreBE32(prefix, static_cast<uint32_t>(message.size()));
  Write(std::string_view(reinterpret_cast<const char*>(prefix), 4));
  Write(message);
}

Status ByteSink::Flush() {
  if (!buffer_.empty()) {
    if (error_ == 0 && std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) {
      error_ = errno ? errno : EIO;
    }
    buffer_.clear();
  }
  if (error_ == 0 && std::fflush(file_) != 0) error_ = errno ? errno : EIO;
  if (error_ != 0) return Status::IOError("cannot write output", name_, std::strerror(error_));
  return Status::OK();
}

bool ByteSink::is_terminal() const { return isatty(fileno(file_)) == 1; }

bool ParseOutputFormat(std::string_view text, OutputFormat* out) {
  if (text == "offsets")
    *out = OutputFormat::kOffsets;
  else if (text == "json")
    *out = OutputFormat::kJson;
  else if (text == "count")
    *out = OutputFormat::kCount;
  else if (text == "amqp")
    *out = OutputFormat::kAmqp;
  else
    return false;
  return true;
}

int OpenStdout(OutputFormat format, std::string_view command, std::unique_ptr<ByteSink>* sink) {
  Status status = ByteSink::Open("-", sink);
  if (!status.ok()) return ReportError(status);
  if (format == OutputFormat::kAmqp && (*sink)->is_terminal()) {
    PrintError("usage", command, "refusing to write binary records to a terminal; redirect stdout");
    return kExitUsage;
  }
  return 0;
}

// Batches of matches converted on worker threads, written in order by the caller's thread.
class MatchWriter::Converter {
 public:
  // False when no thread could be started (the writer then renders every match itself).
  bool Start(OutputFormat format, bool validate, unsigned workers, bool stable_views) {
    stable_views_ = stable_views;
    return batches_.Start(workers, [format, validate](Batch& batch, unsigned) {
      size_t at = 0;
      for (const Item& item : batch.items) {
        const std::string_view message = item.data != nullptr ? std::string_view(item.data, item.size)
                                                              : std::string_view(batch.bytes).substr(at, item.size);
        batch.status = Render(format, validate, item.offset, message, &batch.text);
        if (!batch.status.ok()) break;
        if (item.data == nullptr) at += item.size;
      }
    });
  }

  void Add(uint64_t offset, std::string_view message) {
    if (open_ == nullptr) open_ = Fresh();
    if (stable_views_) {
      open_->items.push_back({offset, message.size(), message.data()});
      open_->viewed += message.size();
    } else {
      open_->bytes.append(message);
      open_->items.push_back({offset, message.size(), nullptr});
    }
    if (open_->items.size() >= kBatchMessages || open_->bytes.size() + open_->viewed >= kBatchBytes)
      batches_.Submit(std::move(open_));
  }

  // Writes the finished batches at the head of the queue, in order; with `all`, waits for every
  // batch (the open one included). The first failure met is returned, after the text before it.
  Status Drain(ByteSink* sink, bool all) {
    if (all && open_ != nullptr) batches_.Submit(std::move(open_));
    for (;;) {
      // Waits when everything must go, or to keep the batches in flight (their memory) bounded.
      const bool wait = all || batches_.pending() >= batches_.max_pending();
      std::unique_ptr<Batch> batch = batches_.Next(wait);
      if (batch == nullptr) return Status::OK();
      sink->Write(batch->text.view());
      if (!batch->status.ok()) return batch->status;
      spare_.push_back(std::move(batch));
    }
  }

 private:
  static constexpr size_t kBatchMessages = 1024;
  static constexpr size_t kBatchBytes = 1u << 20;
  struct Item {
    uint64_t offset;
    size_t size;
    const char* data;  // the caller's bytes (stable views), or null: the next `size` bytes of `bytes`
  };
  struct Batch {
    std::string bytes;  // the copied matches back to back
    size_t viewed = 0;  // bytes of the matches only pointed at
    std::vector<Item> items;
    amqp::JsonText text;  // what they write, up to any failure
    Status status;
  };

  // An empty batch: a written one when there is one. Its buffers keep their capacity: a batch's text
  // grown from nothing was copied over and over as it doubled (a tenth of `replay -f json`'s time).
  std::unique_ptr<Batch> Fresh() {
    if (spare_.empty()) {
      auto batch = std::make_unique<Batch>();
      batch->text.Room(2 * kBatchBytes);  // typed JSON takes about 1.75 bytes per byte of AMQP
      return batch;
    }
    std::unique_ptr<Batch> batch = std::move(spare_.back());
    spare_.pop_back();
    batch->bytes.clear();
    batch->viewed = 0;
    batch->items.clear();
    batch->text.clear();
    batch->status = Status::OK();
    return batch;
  }

  bool stable_views_ = false;
  std::unique_ptr<Batch> open_;                // filled by Add()
  std::vector<std::unique_ptr<Batch>> spare_;  // written batches, for Fresh()
  OrderedBatches<Batch> batches_;
};

MatchWriter::MatchWriter(OutputFormat format, ByteSink* sink, bool validate, unsigned workers, bool stable_views)
    : format_(format), sink_(sink), validate_(validate) {
  if (format == OutputFormat::kJson && workers > 1) {
    converter_ = std::make_unique<Converter>();
    if (!converter_->Start(format, validate, workers, stable_views)) converter_.reset();
  }
}

MatchWriter::~MatchWriter() = default;

Status MatchWriter::Render(OutputFormat format, bool validate, uint64_t offset, std::string_view message,
                           amqp::JsonText* out) {
  const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(message.data()), message.size());
  if (validate) {
    const amqp::DecodeError error = amqp::Validate(bytes);
    if (!error.ok()) {
      return Status::Malformed("malformed message", "offset " + std::to_string(offset), error.Message());
    }
  }
  switch (format) {
    case OutputFormat::kOffsets: {
      char line[24];
      int n = std::snprintf(line, sizeof line, "%llu\n", static_cast<unsigned long long>(offset));
      out->append(line, static_cast<size_t>(n));
      break;
    }
    case OutputFormat::kCount: break;
    case OutputFormat::kAmqp: {
      uint8_t prefix[4];
      base::StoreBE32(prefix, static_cast<uint32_t>(message.size()));
      out->append(reinterpret_cast<const char*>(prefix), 4);
      out->append(message);
      break;
    }
    case OutputFormat::kJson: {
      amqp::ConversionStatus s = amqp::AppendTypedJson(bytes, offset, out);
      if (!s.ok()) return Status::Malformed("cannot decode message", "offset " + std::to_string(offset), s.error());
      out->push_back('\n');
      break;
    }
  }
  return Status::OK();
}

void MatchWriter::Accepted(uint64_t offset) {
  ++accepted_;
  if (format_ == OutputFormat::kOffsets) {
    scratch_.clear();
    (void)Render(format_, /*validate=*/false, offset, {}, &scratch_);
    sink_->Write(scratch_.view());
  }
}

Status MatchWriter::Add(uint64_t offset, std::string_view message) {
  if (publisher_ != nullptr) {
    scratch_.clear();
    Status s = Render(OutputFormat::kCount, validate_, offset, message, &scratch_);  // validates only
    if (!s.ok()) return s;
    ++matched_;
    return publisher_->Send(offset, message);
  }
  if (converter_ != nullptr) {
    ++matched_;
    converter_->Add(offset, message);
    return converter_->Drain(sink_, /*all=*/false);
  }
  scratch_.clear();
  Status s = Render(format_, validate_, offset, message, &scratch_);
  if (!s.ok()) return s;
  ++matched_;
  sink_->Write(scratch_.view());
  return Status::OK();
}

Status MatchWriter::Finish(bool complete) {
  if (publisher_ != nullptr) {
    Status s = publisher_->Finish();
    if (complete && s.ok() && format_ == OutputFormat::kCount) sink_->Write(std::to_string(accepted_) + "\n");
    Status flushed = sink_->Flush();
    return s.ok() ? flushed : s;
  }
  if (converter_ != nullptr) {
    Status s = converter_->Drain(sink_, /*all=*/true);
    if (!s.ok()) {
      (void)sink_->Flush();  // the lines before the failure stay written
      return s;
    }
  }
  if (complete && format_ == OutputFormat::kCount) {
    std::string line = std::to_string(matched_) + "\n";
    sink_->Write(line);
  }
  return sink_->Flush();
}

}  // namespace sift::tools
