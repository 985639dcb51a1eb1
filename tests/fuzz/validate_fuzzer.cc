// libFuzzer target: arbitrary bytes through strict validation (as a message and as a single value)
// and through the record file reader. Findings: crashes, out-of-buffer reads (ASan), errors that do
// not name an offset inside the input, and any difference from the reference validator
// (tests/engine/amqp/reference_validate.h) in the error or in the verdict of the fast walk.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>

#include "engine/amqp/record_file.h"
#include "engine/amqp/validate.h"
#include "tests/engine/amqp/reference_validate.h"

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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  CheckSame(sift::amqp::Validate(bytes), sift::amqp::testing::ReferenceValidate(bytes),
            sift::amqp::internal::WellFormedMessage(bytes));
  CheckSame(sift::amqp::ValidateValue(bytes), sift::amqp::testing::ReferenceValidateValue(bytes),
            sift::amqp::internal::WellFormedValue(bytes));
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
