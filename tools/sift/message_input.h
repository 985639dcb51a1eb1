// Messages in: a record file (docs/record-format.md) or typed JSON lines (docs/typed-json.md), from
// a file or stdin ("-").
//
// Record framing is always checked. Opened with `validate`, every record is also checked with
// amqp::Validate (strict) before it is handed out (what `sift append` needs before storing); without
// it, the caller checks the records it relies on with Check() (`sift filter`: the ones it delivers and
// the ones its filter read malformed bytes in). JSON lines are encoded by the typed JSON codec, so they
// are well formed. A bad input stops the read with a Malformed status that names the file, the record
// index (or line) and the byte, which the commands turn into exit code 2.
// Views returned by Next() live until the next call (JSON) or as long as the input (records).
#ifndef SIFT_TOOLS_SIFT_MESSAGE_INPUT_H_
#define SIFT_TOOLS_SIFT_MESSAGE_INPUT_H_

#include <cstdint>
#include <cstdio>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "amqp/record_file.h"
#include "sift/status.h"

namespace sift::tools {

enum class InputFormat : uint8_t { kAmqp, kJson };

class MessageInput {
 public:
  // `path`: a file, or "-" / empty for stdin. `validate`: check each record strictly (amqp input).
  static Status Open(const std::string& path, InputFormat format, bool validate, std::unique_ptr<MessageInput>* out);
  ~MessageInput();

  // The next message: true with *message set; false at the end (status() ok) or on a bad input
  // (status() is the error). *index is the record index / 0-based line number of JSON messages.
  bool Next(std::span<const uint8_t>* message, uint64_t* index);
  const Status& status() const { return status_; }
  // Strict validation of `message`, the record the last Next() returned: ok, or the Malformed status
  // naming the file, the record and its byte, as Next() reports with `validate`.
  Status Check(std::span<const uint8_t> message) const { return CheckAt(message, last_record_, last_position_); }
  // The same for a record Next() returned earlier: its index and record_position() then. Thread-safe
  // (it reads nothing that Next() changes), so records can be validated while the next are read.
  Status CheckAt(std::span<const uint8_t> message, uint64_t record, uint64_t position) const;
  // Byte position in the input of the record Next() returned last (its length prefix).
  uint64_t record_position() const { return last_position_; }
  // Byte position of the record Next() returns next.
  uint64_t next_position() const { return records_.position(); }
  // The whole record input when it is held in memory (records; empty for JSON lines), for callers that
  // cut it into parts.
  std::span<const uint8_t> record_bytes() const {
    return format_ == InputFormat::kAmqp ? records_.bytes() : std::span<const uint8_t>();
  }
  // Says that record bytes [begin, end) will not be read again soon (amqp::RecordFileReader::Release:
  // a mapped file's pages are unmapped now rather than all at the end). Thread-safe.
  void ReleaseRecordBytes(uint64_t begin, uint64_t end) const { records_.Release(begin, end); }
  // For a loop that reads on from *released: releases the record bytes it passed, a step at a time
  // and a step behind `position` (views of the records read last, still in use, stay mapped). Called
  // for every record of a scan, so the test that nothing is due is inline.
  void ReleasePassed(uint64_t position, uint64_t* released) const {
    if (position < *released + 2 * kReleaseStep) return;
    const uint64_t upto = position - kReleaseStep;
    records_.Release(*released, upto);
    *released = upto;
  }
  // Whether the views Next() returns stay valid as long as the input (records), rather than only until
  // the next call (JSON lines).
  bool views_stable() const { return format_ == InputFormat::kAmqp; }

  // Fraction of the input consumed, 0..1, or -1 when unknown (a pipe).
  double progress() const;
  const std::string& name() const { return name_; }

 private:
  static constexpr uint64_t kReleaseStep = 64u << 20;

  MessageInput() = default;
  InputFormat format_ = InputFormat::kAmqp;
  bool validate_ = true;
  std::string name_;
  Status status_;
  // kAmqp
  amqp::RecordFileReader records_;
  uint64_t file_size_ = 0;
  uint64_t last_record_ = 0;  // index and byte position of the record Next() returned last
  uint64_t last_position_ = 0;
  // kJson
  std::FILE* file_ = nullptr;
  bool owns_file_ = false;
  std::string line_;
  std::vector<uint8_t> encoded_;
  uint64_t line_number_ = 0;  // lines read so far
  uint64_t messages_ = 0;     // messages produced (blank lines are skipped)
  uint64_t bytes_read_ = 0;
};

}  // namespace sift::tools

#endif  // SIFT_TOOLS_SIFT_MESSAGE_INPUT_H_
