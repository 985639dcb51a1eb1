// storage::Status: the outcome of a storage operation (the LevelDB model).
//
// A Status is either ok() or carries a code and a message that names what failed and where (stream,
// chunk first offset, offset range, RocksDB file). No storage API throws; every fallible call returns
// a Status and fills its out-parameters only on success. Status is a small value type (one pointer-sized
// member when ok), cheap to copy and to return.
#ifndef SIFT_STORAGE_STATUS_H_
#define SIFT_STORAGE_STATUS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace sift::storage {

class [[nodiscard]] Status {
 public:
  enum class Code : uint8_t {
    kOk = 0,
    kNotFound,         // no such stream / nothing at the requested position
    kCorruption,       // stored bytes fail their checksum or structural checks
    kIOError,          // the file system or RocksDB failed (disk full, permission, damaged files)
    kInvalidArgument,  // the caller passed something unacceptable (bad name, oversized or refused message)
    kAlreadyExists,    // CreateStream of an existing name
    kBusy,             // the store folder is locked by another process
    kNotSupported,     // a feature the stored data needs that this build does not have (format version)
  };

  Status() noexcept = default;  // ok

  static Status OK() { return Status(); }
  static Status NotFound(std::string_view message) { return Status(Code::kNotFound, message); }
  static Status Corruption(std::string_view message) { return Status(Code::kCorruption, message); }
  static Status IOError(std::string_view message) { return Status(Code::kIOError, message); }
  static Status InvalidArgument(std::string_view message) { return Status(Code::kInvalidArgument, message); }
  static Status AlreadyExists(std::string_view message) { return Status(Code::kAlreadyExists, message); }
  static Status Busy(std::string_view message) { return Status(Code::kBusy, message); }
  static Status NotSupported(std::string_view message) { return Status(Code::kNotSupported, message); }

  bool ok() const { return state_ == nullptr; }
  Code code() const { return state_ == nullptr ? Code::kOk : state_->code; }
  bool IsNotFound() const { return code() == Code::kNotFound; }
  bool IsCorruption() const { return code() == Code::kCorruption; }
  bool IsIOError() const { return code() == Code::kIOError; }
  bool IsInvalidArgument() const { return code() == Code::kInvalidArgument; }
  bool IsAlreadyExists() const { return code() == Code::kAlreadyExists; }
  bool IsBusy() const { return code() == Code::kBusy; }
  bool IsNotSupported() const { return code() == Code::kNotSupported; }

  // The message alone (empty when ok), e.g. "stream 'orders': chunk at offset 4096 (offsets
  // 4096..5119): payload checksum mismatch".
  std::string_view message() const { return state_ == nullptr ? std::string_view() : state_->message; }

  // "OK", or the code's name, ": " and the message, e.g. "Corruption: stream 'orders': ...".
  std::string ToString() const;

  // The name of a code: "OK", "NotFound", "Corruption", "IOError", "InvalidArgument", ...
  static std::string_view CodeName(Code code);

 private:
  struct State {
    Code code;
    std::string message;
  };
  Status(Code code, std::string_view message)
      : state_(std::make_shared<const State>(State{code, std::string(message)})) {}

  std::shared_ptr<const State> state_;  // null when ok; immutable, so copies may share it
};

}  // namespace sift::storage

#endif  // SIFT_STORAGE_STATUS_H_
