// sift/status.h: the result of every operation that can fail, in the embedding API and in the store
// beneath it (the LevelDB Status model: no exceptions). There is one Status type in the tree:
// `sift::Status`, also spelled
// `sift::storage::Status` (storage/status.h), so a store error reaches the caller with its code
// unchanged instead of being translated between two types.
//
// A Status is ok, or carries a code, a `what` (the operation: "cannot append"), a `where` (a file and
// record index, a stream and offset, a store path, a selector flag and column) and a `why` (one
// sentence, lower case, no trailing period). The three parts map one-to-one onto the error line of the
// `sift` command, `sift: <what>: <where>: <why>` (README.md, "The `sift` command"), and the code
// decides the exit code: input errors (kInvalidArgument, kMalformed, kAlreadyExists) are 2, storage
// errors (kNotFound, kCorruption, kIOError, kBusy, kNotSupported) are 3. Every error of the store has a
// code here, so a caller can tell a locked store from a failing disk. Each function of the API says
// which codes it returns.
//
// The store does not know which operation of the caller it serves, so its errors say only why (the why
// names the place inside the store: stream, chunk, offsets); the engine names the operation and the
// place with `Rewrap`.
//
// Lifetime and thread safety: a Status is a value. An ok Status allocates nothing; a failed one shares
// its immutable text between copies, so copying it is cheap and copies may be read from any threads.
#ifndef SIFT_STATUS_H_
#define SIFT_STATUS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace sift {

class [[nodiscard]] Status {
 public:
  enum class Code : uint8_t {
    kOk,
    kInvalidArgument,  // a bad option, flag, selector, filter value, stream name or oversized or refused
                       // message: the caller's input
    kMalformed,        // bytes that are not a well-formed AMQP message or record
    kNotFound,         // a store or stream that does not exist, or nothing at the requested position
    kCorruption,       // stored data that fails its checksum or structural checks, or cannot be decoded
    kIOError,          // the file system or the store refused an operation
    kAlreadyExists,    // a stream that exists where a new one was asked for
    kBusy,             // the store is locked by another process
    kNotSupported,     // an operation the store cannot do as opened (a write to a read-only store) or
                       // data it cannot read (a format version this build does not know)
  };

  Status() noexcept = default;  // ok

  static Status OK() { return Status(); }

  // A status that says what failed, where and why: the error line of the `sift` command.
  static Status InvalidArgument(std::string_view what, std::string_view where, std::string_view why) {
    return Status(Code::kInvalidArgument, what, where, why);
  }
  static Status Malformed(std::string_view what, std::string_view where, std::string_view why) {
    return Status(Code::kMalformed, what, where, why);
  }
  static Status NotFound(std::string_view what, std::string_view where, std::string_view why) {
    return Status(Code::kNotFound, what, where, why);
  }
  static Status Corruption(std::string_view what, std::string_view where, std::string_view why) {
    return Status(Code::kCorruption, what, where, why);
  }
  static Status IOError(std::string_view what, std::string_view where, std::string_view why) {
    return Status(Code::kIOError, what, where, why);
  }
  static Status AlreadyExists(std::string_view what, std::string_view where, std::string_view why) {
    return Status(Code::kAlreadyExists, what, where, why);
  }
  static Status Busy(std::string_view what, std::string_view where, std::string_view why) {
    return Status(Code::kBusy, what, where, why);
  }
  static Status NotSupported(std::string_view what, std::string_view where, std::string_view why) {
    return Status(Code::kNotSupported, what, where, why);
  }

  // A status that says only why; a caller that knows the operation and the place names them with
  // `Rewrap`. The store's errors are of this kind.
  static Status InvalidArgument(std::string_view why) { return Status(Code::kInvalidArgument, {}, {}, why); }
  static Status Malformed(std::string_view why) { return Status(Code::kMalformed, {}, {}, why); }
  static Status NotFound(std::string_view why) { return Status(Code::kNotFound, {}, {}, why); }
  static Status Corruption(std::string_view why) { return Status(Code::kCorruption, {}, {}, why); }
  static Status IOError(std::string_view why) { return Status(Code::kIOError, {}, {}, why); }
  static Status AlreadyExists(std::string_view why) { return Status(Code::kAlreadyExists, {}, {}, why); }
  static Status Busy(std::string_view why) { return Status(Code::kBusy, {}, {}, why); }
  static Status NotSupported(std::string_view why) { return Status(Code::kNotSupported, {}, {}, why); }

  bool ok() const { return rep_ == nullptr; }
  Code code() const { return rep_ ? rep_->code : Code::kOk; }
  bool IsInvalidArgument() const { return code() == Code::kInvalidArgument; }
  bool IsMalformed() const { return code() == Code::kMalformed; }
  bool IsNotFound() const { return code() == Code::kNotFound; }
  bool IsCorruption() const { return code() == Code::kCorruption; }
  bool IsIOError() const { return code() == Code::kIOError; }
  bool IsAlreadyExists() const { return code() == Code::kAlreadyExists; }
  bool IsBusy() const { return code() == Code::kBusy; }
  bool IsNotSupported() const { return code() == Code::kNotSupported; }
  // Input errors are the caller's to fix; the others are the store's.
  bool IsInputError() const { return IsInvalidArgument() || IsMalformed() || IsAlreadyExists(); }

  // What failed ("malformed record"), where ("orders.amqp: record 17, byte 1234") and why.
  std::string_view what() const { return rep_ ? std::string_view(rep_->what) : std::string_view(); }
  std::string_view where() const { return rep_ ? std::string_view(rep_->where) : std::string_view(); }
  std::string_view why() const { return rep_ ? std::string_view(rep_->why) : std::string_view(); }

  // "<what>: <where>: <why>" ("ok" when ok); empty parts are left out, so a status that says only why
  // prints its why alone.
  std::string ToString() const {
    if (ok()) return "ok";
    std::string out(rep_->what);
    for (const std::string* part : {&rep_->where, &rep_->why}) {
      if (part->empty()) continue;
      if (!out.empty()) out += ": ";
      out += *part;
    }
    return out;
  }

  // The same code and why, with a new what and where ("cannot append", "orders"); ok stays ok. How the
  // engine names the operation and the place of an error the store reported with its why alone.
  Status Rewrap(std::string_view what, std::string_view where) const {
    if (ok()) return *this;
    return Status(rep_->code, what, where, rep_->why);
  }

  // A copy whose `where` is prefixed with `context` ("orders.amqp" + "record 3" → "orders.amqp: record 3").
  Status WithContext(std::string_view context) const {
    if (ok() || context.empty()) return *this;
    std::string where(context);
    if (!rep_->where.empty()) {
      where += ": ";
      where += rep_->where;
    }
    return Status(rep_->code, rep_->what, where, rep_->why);
  }

  // The name of a code ("OK", "NotFound", "Corruption", "IOError", ...), for diagnostics that print a
  // status without its what, where a bare why would not say which error it is.
  static std::string_view CodeName(Code code) {
    switch (code) {
      case Code::kOk: return "OK";
      case Code::kInvalidArgument: return "InvalidArgument";
      case Code::kMalformed: return "Malformed";
      case Code::kNotFound: return "NotFound";
      case Code::kCorruption: return "Corruption";
      case Code::kIOError: return "IOError";
      case Code::kAlreadyExists: return "AlreadyExists";
      case Code::kBusy: return "Busy";
      case Code::kNotSupported: return "NotSupported";
    }
    return "Unknown";  // a value outside the enumeration
  }

 private:
  struct Rep {
    Code code;
    std::string what, where, why;
  };
  Status(Code code, std::string_view what, std::string_view where, std::string_view why)
      : rep_(std::make_shared<const Rep>(Rep{code, std::string(what), std::string(where), std::string(why)})) {}

  std::shared_ptr<const Rep> rep_;  // null when ok; shared so copies are cheap and immutable
};

}  // namespace sift

#endif  // SIFT_STATUS_H_
