// Private to the C API (include/sift/sift.h): the structs behind its opaque handles, and the guard
// every exported function runs its body in, so that no C++ exception crosses into C.
#ifndef SIFT_CAPI_INTERNAL_H_
#define SIFT_CAPI_INTERNAL_H_

#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "sift/delivery.h"
#include "sift/filter_set.h"
#include "sift/sift.h"
#include "sift/status.h"
#include "sift/stream_engine.h"

struct sift_error {
  sift_status status = SIFT_OK;
  std::string message;
  bool has_clause = false;
  size_t clause = 0;
  bool has_position = false;
  size_t position = 0;
  std::string selector_code;
};

// A consumer holds the engine too, so a store handle may be closed before its consumers.
struct sift_store {
  std::shared_ptr<sift::StreamEngine> engine;
};

struct sift_filter {
  sift::CompiledFilter compiled;
};

struct sift_consumer {
  std::shared_ptr<sift::StreamEngine> engine;  // declared first: destroyed after the consumer
  std::unique_ptr<sift::Consumer> consumer;
};

struct sift_batch {
  sift::DeliveryBatch batch;
  std::vector<sift_delivery> view;  // the batch's deliveries as C structs, rebuilt by each poll
};

namespace sift::capi {

sift_status CodeOf(const Status& status);

// Stores the failure in *error (when error is not null) and returns its code; SIFT_OK clears *error.
sift_status Fail(sift_error** error, sift_status status, std::string message);
sift_status Report(sift_error** error, const Status& status);
// The error handed out when an error cannot be allocated: shared, never written to.
bool IsSentinel(const sift_error* error);
inline sift_status Ok(sift_error** error) {
  if (error != nullptr) *error = nullptr;
  return SIFT_OK;
}

// Runs `body` (returning sift_status) with every exception turned into a status.
template <typename Body>
sift_status Guard(sift_error** error, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return Fail(error, SIFT_NO_MEMORY, "out of memory");
  } catch (const std::exception& e) {
    return Fail(error, SIFT_INTERNAL, std::string("internal error: ") + e.what());
  } catch (...) {
    return Fail(error, SIFT_INTERNAL, "internal error");
  }
}

// The value a C caller stored in an enum field, read without assuming it is one of the enumerators
// (in C any int fits; in C++ loading an out-of-range value of the enum type is undefined).
template <typename Enum>
int RawEnum(const Enum& field) {
  static_assert(sizeof(Enum) == sizeof(int), "the C API's enums are int-sized");
  int value;
  std::memcpy(&value, &field, sizeof value);
  return value;
}

// The C options as the C++ API takes them; false with *error set for a bad value.
bool ToConsumerOptions(const sift_consumer_options* in, const char* stream, ConsumerOptions* out, sift_error** error,
                       sift_status* status);
void ToScanStats(const ConsumerStats& in, sift_scan_stats* out);

}  // namespace sift::capi

#endif  // SIFT_CAPI_INTERNAL_H_
