// The appender process of the kill -9 tests: opens the store with sync on, appends self-describing
// messages (crash_messages.h) from several threads, single and batched, and after every
// acknowledged append writes one line "<offset> <nonce>\n" per message to stdout with write(2), so
// a line exists only for messages the store acknowledged. Runs until killed.
//
// usage: storage_crash_appender <store-folder> <seed>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "storage/stream_store.h"
#include "tests/storage/crash_messages.h"

using sift::storage::Status;
using sift::storage::StoreOptions;
using sift::storage::StreamStore;

namespace {

std::mutex out_mu;

void Report(uint64_t first, const std::vector<uint64_t>& nonces) {
  std::string lines;
  for (size_t i = 0; i < nonces.size(); ++i) {
    lines += std::to_string(first + i);
    lines += ' ';
    lines += std::to_string(nonces[i]);
    lines += '\n';
  }
  std::lock_guard<std::mutex> lock(out_mu);
  size_t done = 0;
  while (done < lines.size()) {
    ssize_t n = write(1, lines.data() + done, lines.size() - done);
    if (n <= 0) std::_Exit(3);
    done += static_cast<size_t>(n);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <store-folder> <seed>\n", argv[0]);
    return 2;
  }
  const uint64_t seed = std::strtoull(argv[2], nullptr, 10);
  std::mt19937_64 rng(seed);
  StoreOptions options;
  options.sync = true;  // the durable setting: what the server runs with
  options.max_chunk_messages = 1 + rng() % 64;
  options.max_chunk_bytes = 4096 + rng() % (256 * 1024);
  options.linger = std::chrono::microseconds(rng() % 2 ? 0 : rng() % 2000);
  options.block_cache_bytes = 8u << 20;
  options.write_buffer_bytes = 1u << 20;  // small memtable: flushes to table files happen too
  std::unique_ptr<StreamStore> store;
  Status s = StreamStore::Open(argv[1], options, &store);
  if (!s.ok()) {
    std::fprintf(stderr, "crash_appender: %s: %s\n", Status::CodeName(s.code()).data(), s.ToString().c_str());
    return 1;
  }
  s = store->CreateStream("s");
  if (!s.ok() && !s.IsAlreadyExists()) {
    std::fprintf(stderr, "crash_appender: %s: %s\n", Status::CodeName(s.code()).data(), s.ToString().c_str());
    return 1;
  }
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 trng(seed * 31 + t);
      for (;;) {
        const size_t n = trng() % 3 == 0 ? 1 + trng() % 50 : 1;
        std::vector<uint64_t> nonces;
        std::vector<std::string> msgs;
        for (size_t i = 0; i < n; ++i) {
          nonces.push_back(trng());
          msgs.push_back(sift::storage::test::CrashMessage(nonces.back()));
        }
        std::vector<std::string_view> views(msgs.begin(), msgs.end());
        uint64_t first = 0;
        Status as = store->AppendBatch("s", views, &first);
        if (!as.ok()) {
          std::fprintf(stderr, "crash_appender: %s: %s\n", Status::CodeName(as.code()).data(), as.ToString().c_str());
          std::_Exit(1);
        }
        Report(first, nonces);
      }
    });
  }
  for (auto& th : threads) th.join();
  return 0;
}
