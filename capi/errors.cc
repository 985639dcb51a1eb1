// The C API's errors (sift_error), status names, version, and the one deallocator of what it returns.
#include <cstdlib>
#include <new>
#include <string>
#include <utility>

#include "capi/internal.h"

#ifndef SIFT_VERSION_STRING
#error "SIFT_VERSION_STRING is set by capi/CMakeLists.txt"
#endif

namespace sift::capi {
namespace {

// Handed out when the error itself cannot be allocated; never freed, never written.
const sift_error kOutOfMemory{SIFT_NO_MEMORY, "out of memory (while reporting an error)", false, 0, false, 0, ""};

}  // namespace

sift_status CodeOf(const Status& status) {
  switch (status.code()) {
    case Status::Code::kOk: return SIFT_OK;
    case Status::Code::kInvalidArgument: return SIFT_INVALID_ARGUMENT;
    case Status::Code::kMalformed: return SIFT_MALFORMED;
    case Status::Code::kNotFound: return SIFT_NOT_FOUND;
    case Status::Code::kCorruption: return SIFT_CORRUPTION;
    case Status::Code::kIOError: return SIFT_IO_ERROR;
    case Status::Code::kAlreadyExists: return SIFT_ALREADY_EXISTS;
    case Status::Code::kBusy: return SIFT_BUSY;
    case Status::Code::kNotSupported: return SIFT_NOT_SUPPORTED;
  }
  return SIFT_INTERNAL;
}

sift_status Fail(sift_error** error, sift_status status, std::string message) {
  if (error == nullptr) return status;
  if (status == SIFT_OK) {
    *error = nullptr;
    return status;
  }
  sift_error* made = new (std::nothrow) sift_error;
  if (made == nullptr) {
    *error = const_cast<sift_error*>(&kOutOfMemory);
    return status;
  }
  made->status = status;
  try {
    made->message = std::move(message);
  } catch (...) {
    delete made;
    *error = const_cast<sift_error*>(&kOutOfMemory);
    return status;
  }
  *error = made;
  return status;
}

bool IsSentinel(const sift_error* error) { return error == &kOutOfMemory; }

sift_status Report(sift_error** error, const Status& status) {
  if (status.ok()) return Ok(error);
  return Fail(error, CodeOf(status), status.ToString());
}

}  // namespace sift::capi

extern "C" {

const char* sift_status_name(sift_status status) {
  switch (sift::capi::RawEnum(status)) {
    case SIFT_OK: return "OK";
    case SIFT_INVALID_ARGUMENT: return "InvalidArgument";
    case SIFT_MALFORMED: return "Malformed";
    case SIFT_NOT_FOUND: return "NotFound";
    case SIFT_CORRUPTION: return "Corruption";
    case SIFT_IO_ERROR: return "IOError";
    case SIFT_ALREADY_EXISTS: return "AlreadyExists";
    case SIFT_BUSY: return "Busy";
    case SIFT_NOT_SUPPORTED: return "NotSupported";
    case SIFT_NO_MEMORY: return "NoMemory";
    case SIFT_INTERNAL: return "Internal";
  }
  return "Unknown";
}

sift_status sift_error_status(const sift_error* error) { return error != nullptr ? error->status : SIFT_OK; }

const char* sift_error_message(const sift_error* error) { return error != nullptr ? error->message.c_str() : ""; }

int sift_error_filter_clause(const sift_error* error, size_t* clause) {
  if (error == nullptr || !error->has_clause) return 0;
  if (clause != nullptr) *clause = error->clause;
  return 1;
}

int sift_error_position(const sift_error* error, size_t* position) {
  if (error == nullptr || !error->has_position) return 0;
  if (position != nullptr) *position = error->position;
  return 1;
}

const char* sift_error_selector_code(const sift_error* error) {
  return error != nullptr ? error->selector_code.c_str() : "";
}

void sift_error_free(sift_error* error) {
  if (!sift::capi::IsSentinel(error)) delete error;
}

const char* sift_version(void) { return SIFT_VERSION_STRING; }

void sift_free(void* pointer) { std::free(pointer); }

}  // extern "C"
