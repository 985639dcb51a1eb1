// Where a command's data goes: a buffered byte sink over stdout or a file, and the match writers of
// the `-f offsets|json|count|amqp` output formats.
//
// Only data is written here (stdout by default); messages for people go to stderr. Writes are buffered
// (1 MiB) and every write error is reported once, as a Status naming the destination.
#ifndef SIFT_TOOLS_SIFT_OUTPUT_H_
#define SIFT_TOOLS_SIFT_OUTPUT_H_

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "amqp/json_text.h"
#include "sift/status.h"

namespace sift::tools {

namespace amqp_client {
class Publisher;
}

// A buffered writer over a FILE* (stdout, or a file it opened and closes).
class ByteSink {
 public:
  // "-" or empty: stdout. Otherwise the file is created or truncated.
  static Status Open(const std::string& path, std::unique_ptr<ByteSink>* out);
  ~ByteSink();

  void Write(std::string_view bytes);
  // A record of a record file (docs/record-format.md): 4-byte big-endian length, then the message.
  void WriteRecord(std::string_view message);
  // Flushes buffered bytes; the first write error since opening, if any, naming the destination.
  Status Flush();

  bool is_terminal() const;
  const std::string& name() const { return name_; }

 private:
  ByteSink(std::FILE* file, bool owned, std::string name);
  std::FILE* file_;
  bool owned_;
  std::string name_;
  std::string buffer_;
  int error_ = 0;  // errno of the first failed write
};

enum class OutputFormat : uint8_t { kOffsets, kJson, kCount, kAmqp };

// Parses "offsets", "json", "count" or "amqp".
bool ParseOutputFormat(std::string_view text, OutputFormat* out);

// Opens stdout for `command`'s output ("sift filter"), refusing binary records (kAmqp) on a
// terminal. Returns 0, or the exit code after printing the error line.
int OpenStdout(OutputFormat format, std::string_view command, std::unique_ptr<ByteSink>* sink);

// Writes matched messages in one output format. Not thread-safe: one thread calls it.
//
// Typed JSON costs a full decode per match, more than finding the match; with `workers` > 1 the
// conversion (and the validation) of kJson output runs on that many threads, in batches of matches
// copied aside (or only pointed at, with `stable_views`: the caller promises that every message passed
// to Add() stays valid until Finish(), as a mapped record file's do), and the text is written in the
// order the matches were added. A failure is reported
// by the Add() or Finish() that reaches it, after the lines of the matches before it.
class MatchWriter {
 public:
  MatchWriter(OutputFormat format, ByteSink* sink, bool validate = false, unsigned workers = 1,
              bool stable_views = false);
  ~MatchWriter();
  MatchWriter(const MatchWriter&) = delete;
  MatchWriter& operator=(const MatchWriter&) = delete;

  // One match: its offset (record index or stream offset) and encoded bytes. For kJson the message is
  // fully decoded into typed JSON; a message that cannot be decoded is an error naming the offset.
  // With `validate`, every match is validated in full first (amqp::Validate), whatever the format.
  Status Add(uint64_t offset, std::string_view message);
  // Writes what the format prints at the end (the count) and flushes. A run that stopped on an error
  // passes complete = false: what was written stays, but no count is printed as if it were the answer.
  Status Finish(bool complete = true);

  uint64_t matched() const { return matched_; }
  // What the run reports (and its exit code counts): the matches, or with SendTo those the broker accepted.
  uint64_t reported() const { return publisher_ != nullptr ? accepted_ : matched_; }

  // Matches go to a broker instead (--to, tools/amqp_client/publisher.h): Add() validates each as it
  // would (with `validate`) and hands it to `publisher`, and what is written is what the broker
  // accepted — the offset lines of kOffsets through Accepted(), the count of kCount. Only kOffsets
  // and kCount. Finish() waits for the broker's last answers first.
  void SendTo(amqp_client::Publisher* publisher) { publisher_ = publisher; }
  // The broker accepted the message at `offset` (called by the publisher's on_accepted).
  void Accepted(uint64_t offset);

 private:
  class Converter;  // the worker threads of a parallel kJson writer

  // What one match writes (a line of typed JSON, or nothing for kCount), appended to *out; the
  // error names the offset. Thread-safe: workers call it.
  static Status Render(OutputFormat format, bool validate, uint64_t offset, std::string_view message,
                       amqp::JsonText* out);

  OutputFormat format_;
  ByteSink* sink_;
  bool validate_;
  uint64_t matched_ = 0;
  amqp::JsonText scratch_;
  std::unique_ptr<Converter> converter_;  // null: every match is rendered by Add()
  amqp_client::Publisher* publisher_ = nullptr;
  uint64_t accepted_ = 0;
};

}  // namespace sift::tools

#endif  // SIFT_TOOLS_SIFT_OUTPUT_H_
