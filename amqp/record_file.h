// Record files (docs/record-format.md): a sequence of records, each a 4-byte big-endian length N
// then N bytes of one encoded AMQP 1.0 message; no file header. A record's index in the file is its
// offset.
//
// RecordFileReader reads a regular file through a read-only memory map, zero-copy: the spans it
// returns point into the map and live as long as the reader. For stdin, pipes and other files that
// cannot be mapped it reads the whole input into a buffer it owns (same lifetime rule). Every record
// length is checked against the configured maximum before its bytes are used; a truncated last record
// or an oversized length is an error naming the record index and the byte position of its length.
// The reader does not check that a record's bytes are a well-formed message: callers run Validate()
// (validate.h) where they need that.
//
// RecordFileWriter appends records to a file descriptor or a file it opens.
#ifndef SIFT_ENGINE_AMQP_RECORD_FILE_H_
#define SIFT_ENGINE_AMQP_RECORD_FILE_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace sift::amqp {

struct RecordFileOptions {
  // The largest record length accepted, in bytes; a longer length prefix is an error (it is almost
  // always a file that is not a record file, and refusing it bounds memory use).
  uint32_t max_record_size = 16u << 20;
};

class RecordFileReader {
 public:
  RecordFileReader() = default;
  ~RecordFileReader();
  RecordFileReader(const RecordFileReader&) = delete;
  RecordFileReader& operator=(const RecordFileReader&) = delete;

  // Opens `path` ("-" is stdin). False on failure, with error() naming the path and the reason.
  bool Open(const std::string& path, const RecordFileOptions& options = {});
  // Reads from an open file descriptor (not closed by the reader), e.g. 0 for stdin. `name` is used
  // in error messages.
  bool OpenFd(int fd, const std::string& name, const RecordFileOptions& options = {});
  // Reads records from bytes the caller owns (which must outlive the reader).
  void OpenBytes(std::span<const uint8_t> bytes, const std::string& name, const RecordFileOptions& options = {});

  // The next record: true and *message set (a view valid while the reader lives); false at the clean
  // end of the file (ok() stays true) or on a bad record (ok() false, error() says which and where).
  bool Next(std::span<const uint8_t>* message);

  bool ok() const { return error_.empty(); }
  // "<name>: record 3 at byte 1042: length 20000000 exceeds the maximum record size 16777216".
  const std::string& error() const { return error_; }
  // Index of the next record to be read (the number read so far).
  uint64_t index() const { return index_; }
  // Byte position of the next record's length prefix.
  uint64_t position() const { return position_; }
  // Every byte of the input (the map, or the buffer read), for callers that cut it into parts.
  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  // Says that bytes [begin, end) of the input will not be read again soon. When the input is a file the
  // reader mapped, the pages wholly inside are unmapped from the process now (a view into them stays
  // valid: reading it maps the file's page again), instead of all of them when the reader closes, which
  // one thread did after the scan, in series with it (bench/DECISIONS.md, "Releasing a record file's
  // pages").
  // Safe from any thread, also while Next() runs; nothing for other inputs.
  void Release(uint64_t begin, uint64_t end) const;

 private:
  void Close();

  RecordFileOptions options_;
  std::string name_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  void* map_ = nullptr;  // mmap'd region, or nullptr
  size_t map_size_ = 0;
  std::vector<uint8_t> buffer_;  // contents of an input that could not be mapped
  uint64_t index_ = 0;
  uint64_t position_ = 0;
  uint64_t prefetched_ = 0;  // the bytes before this offset were asked into the cache (see Next)
  std::string error_;
};

class RecordFileWriter {
 public:
  RecordFileWriter() = default;
  ~RecordFileWriter();
  RecordFileWriter(const RecordFileWriter&) = delete;
  RecordFileWriter& operator=(const RecordFileWriter&) = delete;

  // Creates (or truncates) `path`; "-" writes to stdout. False with error() on failure.
  bool Open(const std::string& path);
  // Writes to an open descriptor, which the writer does not close.
  bool OpenFd(int fd, const std::string& name);
  // Appends one record (buffered). False with error() on failure (also for messages over 4 GiB).
  bool Append(std::span<const uint8_t> message);
  // Writes out buffered records; Close() flushes too. False with error() on failure.
  bool Flush();
  bool Close();

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  uint64_t records() const { return records_; }

 private:
  int fd_ = -1;
  bool owns_fd_ = false;
  std::string name_;
  std::vector<uint8_t> buffer_;
  uint64_t records_ = 0;
  std::string error_;
};

// A guess at a record boundary at or after `from` and before `to`: the first position from which
// `chain` records in a row have lengths within the maximum and within `bytes`, each starting the way
// an encoded message starts (a described section: 0x00, then a descriptor's constructor). It is only
// a guess, since a message's bytes may look like records: a caller that splits a file there confirms
// it by reading from the start of the file and landing on that position. False when nothing fits.
bool GuessRecordBoundary(std::span<const uint8_t> bytes, size_t from, size_t to, const RecordFileOptions& options,
                         int chain, size_t* position);

// Appends one record (length prefix + message) to `out`; for building record files in memory.
void AppendRecord(std::span<const uint8_t> message, std::vector<uint8_t>* out);

}  // namespace sift::amqp

#endif  // SIFT_ENGINE_AMQP_RECORD_FILE_H_
