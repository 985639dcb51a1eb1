// libFuzzer target: arbitrary bytes through DecodeToProton (one walk that checks and builds every
// pn_data_t node by node) and through the oracle built on Proton's own decoder
// (tests/amqp/oracle_proton_message.h).
// A finding is a crash, an out-of-buffer read (ASan), UB (UBSan), or a disagreement: one accepting
// what the other refuses, or two accepted messages that Proton encodes differently (content, footer,
// inferred flag). The one tolerated difference: the new decoder refuses a message the reference
// accepts only when strict validation refuses it too (Proton reads on past a compound's declared size,
// so the reference can accept a misdecode).
#include <proton/codec.h>
#include <proton/message.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "amqp/proton_message.h"
#include "amqp/validate.h"
#include "tests/amqp/oracle_proton_message.h"

namespace {

std::string Encoded(pn_message_t* m, pn_data_t* footer) {
  std::vector<char> buffer(1 << 16);
  for (;;) {
    size_t size = buffer.size();
    const int rc = pn_message_encode(m, buffer.data(), &size);
    if (rc == PN_OVERFLOW) {
      buffer.resize(buffer.size() * 2);
      continue;
    }
    if (rc != 0) return "encode error " + std::to_string(rc);
    std::string out(buffer.data(), size);
    out += pn_message_is_inferred(m) ? "|inferred|" : "|value|";
    char text[1 << 12];
    size_t n = sizeof text;
    if (pn_data_format(footer, text, &n) == 0) out.append(text, n);
    return out;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static pn_message_t* got = pn_message();
  static pn_message_t* want = pn_message();
  static pn_data_t* got_footer = pn_data(0);
  static pn_data_t* want_footer = pn_data(0);
  const std::span<const uint8_t> bytes(data, size);
  const sift::amqp::ConversionStatus n = sift::amqp::DecodeToProton(bytes, got, got_footer);
  const sift::testing::oracle::Verdict r = sift::testing::oracle::OracleDecodeToProton(bytes, want, want_footer);
  if (n.ok() != r.ok()) {
    if (r.ok() && !sift::amqp::Validate(bytes).ok()) return 0;
    std::fprintf(stderr, "verdicts differ\nnew:       %s\nreference: %s\n", n.ok() ? "ok" : n.error().c_str(),
                 r.ok() ? "ok" : r.error().c_str());
    std::abort();
  }
  if (n.ok() && Encoded(got, got_footer) != Encoded(want, want_footer)) {
    std::fprintf(stderr, "decoded messages differ\n");
    std::abort();
  }
  return 0;
}
