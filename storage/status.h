// storage::Status is the tree's one Status (sift/status.h): the engine passes a store error on with its
// code unchanged instead of translating it. The store's errors say only why (Status::Corruption(why)),
// naming the place inside the store (stream, chunk, offsets); the caller adds its operation with Rewrap.
// sift/status.h needs only standard headers, so storage still depends on nothing above it. No storage
// API throws: a fallible call returns a Status and fills its out-parameters only on success.
#ifndef SIFT_STORAGE_STATUS_H_
#define SIFT_STORAGE_STATUS_H_

#include "sift/status.h"

namespace sift::storage {
using Status = ::sift::Status;
}  // namespace sift::storage

#endif  // SIFT_STORAGE_STATUS_H_
