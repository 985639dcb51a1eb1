// Heap allocations of the full decode into pn_message_t, counted at malloc (Proton allocates with
// malloc directly, so the project's operator-new counter would miss them): DecodeToProton into a
// reused pn_message_t allocates nothing per message once the message has held one like it, as
// pn_message_decode. The oracle's count (oracle_proton_message.h, a decode per section) is printed
// beside them for scale.
#include <proton/codec.h>
#include <proton/message.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "amqp/proton_message.h"
#include "tools/synthetic/synthetic_orders.h"
#include "tests/amqp/oracle_proton_message.h"
#include "tests/amqp/test_messages.h"

// Under AddressSanitizer malloc belongs to the sanitizer: nothing is interposed and the test skips.
#if defined(__SANITIZE_ADDRESS__)
#define SIFT_COUNT_MALLOC 0
#else
#define SIFT_COUNT_MALLOC 1
#endif

namespace {
std::atomic<uint64_t> g_mallocs{0};
}

#if SIFT_COUNT_MALLOC
extern "C" void* __libc_malloc(size_t);
extern "C" void* __libc_calloc(size_t, size_t);
extern "C" void* __libc_realloc(void*, size_t);
extern "C" void* malloc(size_t n) {
  g_mallocs.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(n);
}
extern "C" void* calloc(size_t n, size_t size) {
  g_mallocs.fetch_add(1, std::memory_order_relaxed);
  return __libc_calloc(n, size);
}
extern "C" void* realloc(void* p, size_t n) {
  g_mallocs.fetch_add(1, std::memory_order_relaxed);
  return __libc_realloc(p, n);
}
#endif

namespace sift::amqp {
namespace {

using Bytes = std::vector<uint8_t>;

std::vector<Bytes> Profile(const std::string& profile, int count) {
  synthetic::SyntheticOrdersOptions options;
  options.profile = profile;
  std::unique_ptr<synthetic::SyntheticOrders> gen;
  EXPECT_TRUE(synthetic::SyntheticOrders::Create(options, &gen).ok());
  std::vector<Bytes> out;
  std::string bytes;
  for (int i = 0; i < count; ++i) {
    EXPECT_TRUE(gen->Encode(static_cast<uint64_t>(i), &bytes).ok());
    out.emplace_back(bytes.begin(), bytes.end());
  }
  return out;
}

// Mallocs per message of `decode` over `messages` into one reused message, after one warm-up pass.
template <typename Decode>
double MallocsPerMessage(const std::vector<Bytes>& messages, Decode decode) {
  pn_message_t* msg = pn_message();
  pn_data_t* footer = pn_data(0);
  for (const Bytes& m : messages) decode(m, msg, footer);
  const uint64_t before = g_mallocs.load();
  for (const Bytes& m : messages) decode(m, msg, footer);
  const uint64_t mallocs = g_mallocs.load() - before;
  pn_data_free(footer);
  pn_message_free(msg);
  return static_cast<double>(mallocs) / static_cast<double>(messages.size());
}

TEST(ProtonMessageMalloc, PerMessage) {
  if (!SIFT_COUNT_MALLOC) GTEST_SKIP() << "malloc is the sanitizer's";
  struct Corpus {
    const char* name;
    std::vector<Bytes> messages;
  };
  std::vector<Corpus> corpora;
  corpora.push_back({"orders", Profile("orders", 2000)});
  corpora.push_back({"wide", Profile("wide", 2000)});
  std::vector<Bytes> rich;
  for (int n = 0; n < 200; ++n) rich.push_back(sift::testing::RichMessage(n));
  corpora.push_back({"RichMessage", rich});
  for (const Corpus& c : corpora) {
    const double now = MallocsPerMessage(c.messages, [](const Bytes& m, pn_message_t* msg, pn_data_t* f) {
      ASSERT_TRUE(DecodeToProton(m, msg, f).ok());
    });
    const double reference = MallocsPerMessage(c.messages, [](const Bytes& m, pn_message_t* msg, pn_data_t* f) {
      ASSERT_TRUE(sift::testing::oracle::OracleDecodeToProton(m, msg, f).ok());
    });
    const double proton = MallocsPerMessage(c.messages, [](const Bytes& m, pn_message_t* msg, pn_data_t*) {
      ASSERT_EQ(pn_message_decode(msg, reinterpret_cast<const char*>(m.data()), m.size()), 0);
    });
    std::printf("%s: mallocs per message: DecodeToProton %.2f, reference %.2f, pn_message_decode %.2f\n", c.name, now,
                reference, proton);
    EXPECT_LE(now, proton) << c.name;
  }
}

}  // namespace
}  // namespace sift::amqp
