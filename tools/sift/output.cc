// Output sinks and match writers (see output.h).
#include "tools/sift/output.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "engine/amqp/typed_json.h"
#include "engine/amqp/validate.h"
#include "tools/sift/command.h"

namespace sift::tools {
namespace {
constexpr size_t kBufferBytes = 1 << 20;
}

engine::Status ByteSink::Open(const std::string& path, std::unique_ptr<ByteSink>* out) {
  if (path.empty() || path == "-") {
    out->reset(new ByteSink(stdout, false, "stdout"));
    return engine::Status::OK();
  }
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) return engine::Status::InvalidArgument("cannot write output", path, std::strerror(errno));
  out->reset(new ByteSink(file, true, path));
  return engine::Status::OK();
}

ByteSink::ByteSink(std::FILE* file, bool owned, std::string name)
    : file_(file), owned_(owned), name_(std::move(name)) {
  buffer_.reserve(kBufferBytes);
}

ByteSink::~ByteSink() {
  (void)Flush();
  if (owned_) std::fclose(file_);
}

void ByteSink::Write(std::string_view bytes) {
  if (buffer_.size() + bytes.size() > kBufferBytes) (void)Flush();
  if (bytes.size() >= kBufferBytes) {
    if (error_ == 0 && std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) error_ = errno ? errno : EIO;
    return;
  }
  buffer_.append(bytes);
}

void ByteSink::WriteRecord(std::string_view message) {
  const uint32_t n = static_cast<uint32_t>(message.size());
  const char prefix[4] = {static_cast<char>(n >> 24), static_cast<char>(n >> 16), static_cast<char>(n >> 8),
                          static_cast<char>(n)};
  Write(std::string_view(prefix, 4));
  Write(message);
}

engine::Status ByteSink::Flush() {
  if (!buffer_.empty()) {
    if (error_ == 0 && std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) {
      error_ = errno ? errno : EIO;
    }
    buffer_.clear();
  }
  if (error_ == 0 && std::fflush(file_) != 0) error_ = errno ? errno : EIO;
  if (error_ != 0) return engine::Status::IOError("cannot write output", name_, std::strerror(error_));
  return engine::Status::OK();
}

bool ByteSink::is_terminal() const { return isatty(fileno(file_)) == 1; }

bool ParseOutputFormat(std::string_view text, OutputFormat* out) {
  if (text == "offsets") *out = OutputFormat::kOffsets;
  else if (text == "json") *out = OutputFormat::kJson;
  else if (text == "count") *out = OutputFormat::kCount;
  else if (text == "amqp") *out = OutputFormat::kAmqp;
  else return false;
  return true;
}

int OpenStdout(OutputFormat format, std::string_view command, std::unique_ptr<ByteSink>* sink) {
  engine::Status status = ByteSink::Open("-", sink);
  if (!status.ok()) return ReportError(status);
  if (format == OutputFormat::kAmqp && (*sink)->is_terminal()) {
    PrintError("usage", command, "refusing to write binary records to a terminal; redirect stdout");
    return kExitUsage;
  }
  return 0;
}

engine::Status MatchWriter::Add(uint64_t offset, std::string_view message) {
  if (validate_) {
    const amqp::DecodeError error = amqp::Validate(
        std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(message.data()), message.size()));
    if (!error.ok()) {
      return engine::Status::Malformed("malformed message", "offset " + std::to_string(offset), error.Message());
    }
  }
  ++matched_;
  switch (format_) {
    case OutputFormat::kOffsets: {
      char line[24];
      int n = std::snprintf(line, sizeof line, "%llu\n", static_cast<unsigned long long>(offset));
      sink_->Write(std::string_view(line, static_cast<size_t>(n)));
      break;
    }
    case OutputFormat::kCount:
      break;
    case OutputFormat::kAmqp:
      sink_->WriteRecord(message);
      break;
    case OutputFormat::kJson: {
      amqp::ConversionStatus s = amqp::DecodeToTypedJson(
          std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(message.data()), message.size()), offset, &scratch_);
      if (!s.ok()) return engine::Status::Malformed("cannot decode message", "offset " + std::to_string(offset), s.error());
      scratch_ += '\n';
      sink_->Write(scratch_);
      break;
    }
  }
  return engine::Status::OK();
}

engine::Status MatchWriter::Finish(bool complete) {
  if (complete && format_ == OutputFormat::kCount) {
    std::string line = std::to_string(matched_) + "\n";
    sink_->Write(line);
  }
  return sink_->Flush();
}

}  // namespace sift::tools
