// Test support for the engine facade: a StreamEngine over a fresh store folder (removed afterwards)
// holding a stream of synthetic orders, and the reference answer of a predicate over the orders'
// generated values (tools/synthetic/synthetic_orders.h) — independent of the reader and the selector.
#ifndef SIFT_TESTS_ENGINE_CONSUMER_TEST_SUPPORT_H_
#define SIFT_TESTS_ENGINE_CONSUMER_TEST_SUPPORT_H_

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/compiled_filter.h"
#include "sift/consumer.h"
#include "sift/filter_spec.h"
#include "sift/stream_engine.h"
#include "tools/synthetic/synthetic_orders.h"

namespace sift::engine::testing {

class StoreFolder {
 public:
  explicit StoreFolder(const std::string& name) {
    path_ = std::filesystem::temp_directory_path() / ("sift-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(path_);
  }
  ~StoreFolder() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

// Appends orders [first, first + count) of `seed` to `stream` in batches of `batch`.
inline void AppendOrders(StreamEngine* engine, const std::string& stream, uint64_t first, uint64_t count,
                         uint64_t seed = 1, size_t batch = 1000) {
  std::unique_ptr<synthetic::SyntheticOrders> orders;
  synthetic::SyntheticOrdersOptions options;
  options.seed = seed;
  ASSERT_TRUE(synthetic::SyntheticOrders::Create(options, &orders).ok());
  std::vector<std::string> bytes(batch);
  std::vector<std::string_view> views;
  for (uint64_t i = first; i < first + count;) {
    views.clear();
    size_t n = 0;
    for (; n < batch && i < first + count; ++n, ++i) {
      ASSERT_TRUE(orders->Encode(i, &bytes[n]).ok());
      views.emplace_back(bytes[n]);
    }
    Status s = engine->AppendBatch(stream, views);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
}

template <typename Predicate>
std::vector<uint64_t> ExpectedOffsets(uint64_t first, uint64_t count, Predicate predicate, uint64_t seed = 1) {
  std::unique_ptr<synthetic::SyntheticOrders> orders;
  synthetic::SyntheticOrdersOptions options;
  options.seed = seed;
  EXPECT_TRUE(synthetic::SyntheticOrders::Create(options, &orders).ok());
  std::vector<uint64_t> out;
  for (uint64_t i = first; i < first + count; ++i) {
    if (predicate(orders->Describe(i))) out.push_back(i);
  }
  return out;
}

inline CompiledFilter Sql(const std::string& expression) {
  FilterSpec spec;
  spec.AddSql(expression);
  CompiledFilter s;
  Status status = spec.Compile(&s);
  EXPECT_TRUE(status.ok()) << status.ToString();
  return s;
}

// Drains a consumer (not following) and returns every delivered offset.
inline std::vector<uint64_t> Drain(Consumer* consumer, Status* final_status = nullptr) {
  std::vector<uint64_t> offsets;
  DeliveryBatch batch;
  Status s;
  while (!consumer->done()) {
    s = consumer->Poll(&batch);
    for (const Delivery& d : batch) offsets.push_back(d.offset());
    if (!s.ok()) break;
  }
  if (final_status != nullptr) *final_status = s;
  return offsets;
}

inline std::vector<uint64_t> Iota(uint64_t from, uint64_t to) {
  std::vector<uint64_t> out;
  for (uint64_t i = from; i < to; ++i) out.push_back(i);
  return out;
}

}  // namespace sift::engine::testing

#endif  // SIFT_TESTS_ENGINE_CONSUMER_TEST_SUPPORT_H_
