// libFuzzer target: arbitrary bytes through strict validation (as a message and as a single value)
// and through the record file reader. Findings: crashes, out-of-buffer reads (ASan), and errors that
// do not name an offset inside the input.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>

#include "engine/amqp/record_file.h"
#include "engine/amqp/validate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  for (const sift::amqp::DecodeError& e :
       {sift::amqp::Validate(bytes), sift::amqp::ValidateValue(bytes)}) {
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
