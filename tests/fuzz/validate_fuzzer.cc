// libFuzzer target: arbitrary bytes through strict validation (as a message and as a single value)
// and through the record file reader. Findings: crashes, out-of-buffer reads (ASan), errors that do
// not name an offset inside the input, and any difference from the oracle validator written from the
// spec (tests/amqp/oracle_validate.h) in the error or in the verdict of the fast walk, and a
// layout (WellFormedMessage with a MessageLayout) that differs in verdict, or that the lazy reader
// does not find: each laid-out section where MessageView finds it, each element where reading the
// one before ends.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>

#include "amqp/encoded_value.h"
#include "amqp/message_layout.h"
#include "amqp/message_view.h"
#include "amqp/record_file.h"
#include "amqp/validate.h"
#include "tests/amqp/oracle_validate.h"

namespace {

bool SameText(const char* a, const char* b) {
  if (a == nullptr || b == nullptr) return a == b;
  return std::strcmp(a, b) == 0;
}

// Every field; static texts by content (the reference's literals may live at other addresses).
void CheckSame(const sift::amqp::DecodeError& x, const sift::amqp::DecodeError& y, bool fast) {
  if (x.code != y.code || x.offset != y.offset || x.format_code != y.format_code || x.a != y.a || x.b != y.b ||
      !SameText(x.what, y.what) || !SameText(x.expected, y.expected) || fast != y.ok()) {
    std::abort();
  }
}

template <class Compound>
void CheckLaidOut(const sift::amqp::MessageView& view, sift::amqp::SectionKind kind, const Compound& laid_out) {
  const std::span<const uint8_t> bytes = view.bytes();
  const uint8_t* const at = view.SectionValue(kind);
  if (at != laid_out.at) std::abort();
  if (at == nullptr) return;
  const uint8_t* p = nullptr;
  const uint8_t* end = nullptr;
  uint32_t count = 0;
  const bool map = kind == sift::amqp::SectionKind::kApplicationProperties;
  if (!sift::amqp::PlainCompound(at, bytes.data() + bytes.size(), map, &p, &end, &count)) std::abort();
  if (end != laid_out.end || laid_out.complete != (count <= Compound::kMax) ||
      laid_out.count != std::min(count, Compound::kMax)) {
    std::abort();
  }
  for (uint32_t i = 0; i < laid_out.count; ++i) {
    if (laid_out.elements[i] != p) std::abort();
    p = sift::amqp::SkipValue(bytes.data(), p, end, nullptr);
    if (p == nullptr) std::abort();
  }
  if (laid_out.elements[laid_out.count] != p) std::abort();
}

void CheckLayout(std::span<const uint8_t> bytes) {
  sift::amqp::MessageLayout layout;
  const bool well_formed = sift::amqp::WellFormedMessage(bytes, &layout);
  if (well_formed != sift::amqp::internal::WellFormedMessage(bytes)) std::abort();
  if (!well_formed) return;
  sift::amqp::MessageView view;
  view.Reset(bytes);
  CheckLaidOut(view, sift::amqp::SectionKind::kHeader, layout.header);
  CheckLaidOut(view, sift::amqp::SectionKind::kProperties, layout.properties);
  CheckLaidOut(view, sift::amqp::SectionKind::kApplicationProperties, layout.application_properties);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  CheckSame(sift::amqp::Validate(bytes), sift::amqp::testing::OracleValidate(bytes),
            sift::amqp::internal::WellFormedMessage(bytes));
  CheckSame(sift::amqp::ValidateValue(bytes), sift::amqp::testing::OracleValidateValue(bytes),
            sift::amqp::internal::WellFormedValue(bytes));
  CheckLayout(bytes);
  for (const sift::amqp::DecodeError& e : {sift::amqp::Validate(bytes), sift::amqp::ValidateValue(bytes)}) {
    if (e.ok()) continue;
    if (e.offset > size) std::abort();
    const std::string message = e.Message();
    if (message.rfind("byte " + std::to_string(e.offset) + ": ", 0) != 0) std::abort();
    if (message.find("unknown error") != std::string::npos) std::abort();
  }
  // The same bytes as a record file: every record is validated.
  sift::amqp::RecordFileReader reader;
  sift::amqp::RecordFileOptions options;
  options.max_record_size = 1 << 16;
  reader.OpenBytes(bytes, "fuzz", options);
  std::span<const uint8_t> record;
  while (reader.Next(&record)) {
    if (record.data() < data || record.data() + record.size() > data + size) std::abort();
    (void)sift::amqp::Validate(record);
  }
  return 0;
}
