// Helpers shared by the storage tests: a temporary folder, a fake clock, store opening and reading.
#ifndef SIFT_TESTS_STORAGE_STORE_TEST_UTIL_H_
#define SIFT_TESTS_STORAGE_STORE_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "storage/stream_store.h"

namespace sift::storage {
namespace test {

// A fresh folder under $TMPDIR (or /tmp), removed with everything in it on destruction.
class TempDir {
 public:
  TempDir() {
    const char* base = getenv("TMPDIR");
    std::string tmpl = std::string(base != nullptr && *base ? base : "/tmp") + "/sift-storage-test-XXXXXX";
    char* p = mkdtemp(tmpl.data());
    if (p == nullptr) ADD_FAILURE() << "mkdtemp failed";
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

class FakeClock {
 public:
  explicit FakeClock(int64_t now) : now_(std::make_shared<std::atomic<int64_t>>(now)) {}
  void Set(int64_t now) { now_->store(now); }
  void Advance(int64_t ms) { now_->fetch_add(ms); }
  Clock AsClock() const {
    auto now = now_;
    return [now] { return now->load(); };
  }

 private:
  std::shared_ptr<std::atomic<int64_t>> now_;
};

inline StoreOptions FastOptions() {
  StoreOptions o;
  o.sync = false;  // tests of logic, not of fsync; durability tests set sync explicitly
  o.block_cache_bytes = 8u << 20;
  o.write_buffer_bytes = 4u << 20;
  return o;
}

inline std::unique_ptr<StreamStore> OpenStore(const std::string& path, StoreOptions o = FastOptions()) {
  std::unique_ptr<StreamStore> store;
  Status s = StreamStore::Open(path, o, &store);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return store;
}

inline std::string Message(uint64_t i) {
  std::string s = "message-";
  s.append(std::to_string(i));
  return s;
}

inline std::string Tagged(int t, int i) {
  std::string s = std::to_string(t);
  s.push_back(':');
  s.append(std::to_string(i));
  return s;
}

inline std::string RandomBytes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng());
  return s;
}

struct OwnedRecord {
  uint64_t offset;
  int64_t timestamp_ms;
  std::string data;
  bool chunk_start;
};

// Reads records from the reader's position to the end (copies them).
inline std::vector<OwnedRecord> Drain(StreamReader& reader) {
  std::vector<OwnedRecord> out;
  Record r;
  while (reader.Next(&r)) out.push_back({r.offset, r.timestamp_ms, std::string(r.data), r.chunk_start});
  EXPECT_TRUE(reader.status().ok()) << reader.status().ToString();
  return out;
}

inline std::vector<OwnedRecord> ReadAll(StreamStore& store, std::string_view stream, ReaderOptions o = {}) {
  std::unique_ptr<StreamReader> reader;
  Status s = store.NewReader(stream, o, &reader);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return {};
  return Drain(*reader);
}

}  // namespace test

using namespace test;  // NOLINT: tests only

}  // namespace sift::storage

#endif  // SIFT_TESTS_STORAGE_STORE_TEST_UTIL_H_
