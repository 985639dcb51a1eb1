// Damages a stored chunk behind the store's back, for the tests of corrupt-chunk handling.
//
// Opens the store's RocksDB database directly (the store must be closed), flips one byte in the middle
// of chunk number `index` (0-based, in key order: the chunks of the first stream come first), and
// writes it back, so the chunk's checksum no longer holds. Returns the number of chunks stored.
#ifndef SIFT_TESTS_SUPPORT_CHUNK_CORRUPTION_H_
#define SIFT_TESTS_SUPPORT_CHUNK_CORRUPTION_H_

#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "storage/key_layout.h"

namespace sift::testing {

// The same for any value under a key prefix (storage/key_layout.h): a chunk summary entry ('M'), an
// index entry ('I').
inline size_t CorruptStoredValue(const std::string& store_path, size_t index, char prefix) {
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(rocksdb::Options(), store_path, &raw);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return 0;
  std::unique_ptr<rocksdb::DB> db(raw);
  std::vector<std::pair<std::string, std::string>> chunks;
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions()));
  for (it->Seek(std::string(1, prefix)); it->Valid() && it->key().size() > 0 && it->key()[0] == prefix; it->Next()) {
    chunks.emplace_back(it->key().ToString(), it->value().ToString());
  }
  it.reset();
  EXPECT_GT(chunks.size(), index);
  if (chunks.size() <= index) return chunks.size();
  std::string value = chunks[index].second;
  value[value.size() / 2] ^= 0x5a;
  s = db->Put(rocksdb::WriteOptions(), chunks[index].first, value);
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(db->Close().ok());
  return chunks.size();
}

inline size_t CorruptStoredChunk(const std::string& store_path, size_t index) {
  return CorruptStoredValue(store_path, index, storage::keys::kChunkPrefix);
}

}  // namespace sift::testing

#endif  // SIFT_TESTS_SUPPORT_CHUNK_CORRUPTION_H_
