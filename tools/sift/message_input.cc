// MessageInput: record files and typed JSON lines (see message_input.h).
#include "tools/sift/message_input.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "amqp/typed_json.h"
#include "amqp/validate.h"

namespace sift::tools {

Status MessageInput::Open(const std::string& path, InputFormat format, bool validate,
                          std::unique_ptr<MessageInput>* out) {
  std::unique_ptr<MessageInput> input(new MessageInput());
  input->format_ = format;
  input->validate_ = validate;
  const bool is_stdin = path.empty() || path == "-";
  input->name_ = is_stdin ? "stdin" : path;
  if (!is_stdin) {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return Status::InvalidArgument("cannot read input", path, std::strerror(errno));
    if (S_ISDIR(st.st_mode)) return Status::InvalidArgument("cannot read input", path, "is a directory");
    if (S_ISREG(st.st_mode)) input->file_size_ = static_cast<uint64_t>(st.st_size);
  }
  if (format == InputFormat::kAmqp) {
    const bool opened = is_stdin ? input->records_.OpenFd(0, "stdin") : input->records_.Open(path);
    if (!opened) return Status::InvalidArgument("cannot read input", input->name_, input->records_.error());
  } else {
    if (is_stdin) {
      input->file_ = stdin;
    } else {
      input->file_ = std::fopen(path.c_str(), "rb");
      if (input->file_ == nullptr) return Status::InvalidArgument("cannot read input", path, std::strerror(errno));
      input->owns_file_ = true;
    }
  }
  *out = std::move(input);
  return Status::OK();
}

MessageInput::~MessageInput() {
  if (owns_file_) std::fclose(file_);
}

bool MessageInput::Next(std::span<const uint8_t>* message, uint64_t* index) {
  if (!status_.ok()) return false;
  if (format_ == InputFormat::kAmqp) {
    const uint64_t position = records_.position();
    const uint64_t record = records_.index();
    if (!records_.Next(message)) {
      if (!records_.ok()) {
        // The reader's text is "<name>: record N at byte B: <why>".
        std::string text = records_.error();
        std::string where = name_ + ": record " + std::to_string(record) + " at byte " + std::to_string(position);
        std::string why = text;
        if (text.rfind(where, 0) == 0 && text.size() > where.size() + 2) why = text.substr(where.size() + 2);
        status_ = Status::Malformed("malformed record", where, why);
      }
      return false;
    }
    last_record_ = record;
    last_position_ = position;
    if (validate_) {
      status_ = Check(*message);
      if (!status_.ok()) return false;
    }
    *index = record;
    return true;
  }
  // JSON lines: one message per non-blank line; the message's index counts messages.
  for (;;) {
    line_.clear();
    int c;
    bool any = false;
    while ((c = std::getc(file_)) != EOF) {
      any = true;
      if (c == '\n') break;
      line_.push_back(static_cast<char>(c));
    }
    if (!any) {
      if (std::ferror(file_)) status_ = Status::InvalidArgument("cannot read input", name_, std::strerror(errno));
      return false;
    }
    ++line_number_;
    bytes_read_ += line_.size() + 1;
    if (line_.find_first_not_of(" \t\r") == std::string::npos) continue;
    encoded_.clear();
    amqp::ConversionStatus s = amqp::EncodeTypedJson(line_, line_number_, &encoded_);
    if (!s.ok()) {
      std::string why = s.error();
      const std::string prefix = "line " + std::to_string(line_number_) + ": ";
      if (why.rfind(prefix, 0) == 0) why = why.substr(prefix.size());
      status_ = Status::Malformed("malformed JSON message", name_ + ": line " + std::to_string(line_number_), why);
      return false;
    }
    *message = std::span<const uint8_t>(encoded_.data(), encoded_.size());
    *index = messages_++;
    return true;
  }
}

Status MessageInput::CheckAt(std::span<const uint8_t> message, uint64_t record, uint64_t position) const {
  if (format_ != InputFormat::kAmqp) return Status::OK();  // encoded by the JSON codec
  const amqp::DecodeError error = amqp::Validate(message);
  if (error.ok()) return Status::OK();
  // The byte is counted from the start of the file: record start + 4-byte length + offset.
  return Status::Malformed(
      "malformed record",
      name_ + ": record " + std::to_string(record) + " at byte " + std::to_string(position + 4 + error.offset),
      error.Reason() + " (byte " + std::to_string(error.offset) + " of the message)");
}

double MessageInput::progress() const {
  if (file_size_ == 0) return -1;
  const uint64_t done = format_ == InputFormat::kAmqp ? records_.position() : bytes_read_;
  return static_cast<double>(done) / static_cast<double>(file_size_);
}

}  // namespace sift::tools
