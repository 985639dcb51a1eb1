// storage::Status text forms.
#include "storage/status.h"

namespace sift::storage {

std::string_view Status::CodeName(Code code) {
  switch (code) {
    case Code::kOk: return "OK";
    case Code::kNotFound: return "NotFound";
    case Code::kCorruption: return "Corruption";
    case Code::kIOError: return "IOError";
    case Code::kInvalidArgument: return "InvalidArgument";
    case Code::kAlreadyExists: return "AlreadyExists";
    case Code::kBusy: return "Busy";
    case Code::kNotSupported: return "NotSupported";
  }
  return "Unknown";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string s(CodeName(code()));
  s += ": ";
  s += message();
  return s;
}

}  // namespace sift::storage
