// FromStorage (engine/stream_engine_impl.h): how a store error, which says only why, becomes the
// what / where / why of the `sift` error line. The texts are pinned here because the command's error
// lines and its tests are built on them.
#include <gtest/gtest.h>

#include <string>

#include "engine/stream_engine_impl.h"
#include "storage/status.h"

namespace sift::engine {
namespace {

TEST(FromStorage, OkStaysOk) { EXPECT_TRUE(FromStorage(storage::Status::OK(), "cannot append", "orders").ok()); }

TEST(FromStorage, KeepsTheCodeAndTheWhyAndNamesTheOperationAndThePlace) {
  const storage::Status errors[] = {
      storage::Status::InvalidArgument("stream 'orders': message 1 of 2: too large"),
      storage::Status::Malformed("stream 'orders': message 1 of 2: bad bytes"),
      storage::Status::NotFound("stream 'orders' does not exist"),
      storage::Status::IOError("write: no space left on device"),
      storage::Status::AlreadyExists("stream 'orders' exists"),
      storage::Status::Busy("lock: held by process 17"),
      storage::Status::NotSupported("the store was opened for reading only"),
  };
  for (const storage::Status& s : errors) {
    const Status e = FromStorage(s, "cannot append", "orders");
    EXPECT_EQ(e.code(), s.code()) << e.ToString();
    EXPECT_EQ(e.what(), "cannot append");
    EXPECT_EQ(e.where(), "orders");
    EXPECT_EQ(e.why(), s.why());
    EXPECT_EQ(e.ToString(), "cannot append: orders: " + std::string(s.why()));
  }
}

TEST(FromStorage, CorruptionIsACorruptChunkWhateverTheOperation) {
  const storage::Status s = storage::Status::Corruption(
      "stream 'orders': chunk at offset 4096 (offsets 4096..5119): payload checksum mismatch");
  const Status e = FromStorage(s, "cannot read stream", "orders");
  EXPECT_TRUE(e.IsCorruption()) << e.ToString();
  EXPECT_EQ(e.ToString(),
            "corrupt chunk: orders: stream 'orders': chunk at offset 4096 (offsets 4096..5119): payload checksum "
            "mismatch");
  EXPECT_EQ(FromStorage(storage::Status::Corruption(""), "cannot read stream", "orders").ToString(),
            "corrupt chunk: orders");
}

TEST(FromStorage, AnEmptyWhyGetsTheCodesOwnWhereItHasOne) {
  const Status not_found = FromStorage(storage::Status::NotFound(""), "cannot read stream", "orders");
  EXPECT_TRUE(not_found.IsNotFound());
  EXPECT_EQ(not_found.ToString(), "cannot read stream: orders: not found");
  const Status exists = FromStorage(storage::Status::AlreadyExists(""), "cannot create stream", "orders");
  EXPECT_TRUE(exists.IsAlreadyExists());
  EXPECT_EQ(exists.ToString(), "cannot create stream: orders: already exists");
  const Status busy = FromStorage(storage::Status::Busy(""), "cannot open store", "/data/sift");
  EXPECT_TRUE(busy.IsBusy());
  EXPECT_EQ(busy.ToString(), "cannot open store: /data/sift: the store is in use by another process");
  // The other codes have no sentence of their own: the line ends at the place.
  const Status io = FromStorage(storage::Status::IOError(""), "cannot flush", "/data/sift");
  EXPECT_TRUE(io.IsIOError());
  EXPECT_EQ(io.ToString(), "cannot flush: /data/sift");
}

}  // namespace
}  // namespace sift::engine
