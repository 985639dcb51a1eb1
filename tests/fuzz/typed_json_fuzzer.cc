// libFuzzer target: arbitrary bytes through DecodeToTypedJson (one pass from the bytes) and through
// the Proton-based oracle writer (tests/amqp/oracle_typed_json.h). A finding is a crash,
// an out-of-buffer read (ASan), or a disagreement: text that differs where both accept, or one
// accepting what the other refuses. The one known difference is tolerated: a compound whose elements
// end before its declared size, which Proton reads on past (ignoring the size) and the new writer
// refuses.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>

#include "amqp/typed_json.h"
#include "tests/amqp/oracle_typed_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> bytes(data, size);
  std::string want, got;
  const sift::testing::oracle::Verdict r = sift::testing::oracle::OracleDecodeToTypedJson(bytes, std::nullopt, &want);
  sift::amqp::ConversionStatus n = sift::amqp::DecodeToTypedJson(bytes, std::nullopt, &got);
  if (r.ok() && !n.ok() && n.error().find("bytes before the end of its size") != std::string::npos) {
    return 0;
  }
  if (r.ok() != n.ok() || (r.ok() && want != got)) {
    std::fprintf(stderr, "typed JSON mismatch\nreference: %s\nnew:       %s\n",
                 r.ok() ? want.c_str() : r.error().c_str(), n.ok() ? got.c_str() : n.error().c_str());
    std::abort();
  }
  return 0;
}
