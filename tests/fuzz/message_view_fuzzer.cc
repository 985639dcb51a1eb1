// libFuzzer target: arbitrary bytes through MessageView (every accessor, every returned view touched)
// and through MessageFieldSource. Crashes, out-of-buffer reads (ASan) and one invariant are findings:
// a message that Validate() accepts must read through MessageView without any error.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "amqp/message_view.h"
#include "amqp/validate.h"
#include "engine/message_field_source.h"
#include "tests/amqp/exercise_view.h"

namespace {

std::vector<sift::selector::FieldRef> Fields() {
  using sift::selector::FieldRef;
  using sift::selector::PathStep;
  using sift::selector::Section;
  const std::vector<PathStep> path = {PathStep{PathStep::Kind::kIndex, 1, ""}, PathStep{PathStep::Kind::kKey, 0, "b"}};
  return {FieldRef{Section::kHeader, "priority", {}},
          FieldRef{Section::kHeader, "ttl", {}},
          FieldRef{Section::kProperties, "subject", {}},
          FieldRef{Section::kProperties, "reply-to-group-id", {}},
          FieldRef{Section::kApplicationProperties, "region", {}},
          FieldRef{Section::kApplicationProperties, "k", path},
          FieldRef{Section::kMessageAnnotations, "42", {}},
          FieldRef{Section::kDeliveryAnnotations, "x-opt-trace", {}},
          FieldRef{Section::kFooter, "x-hash", {}}};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<sift::selector::FieldRef> fields = Fields();
  static sift::engine::MessageFieldSource* source = new sift::engine::MessageFieldSource(fields);
  const std::span<const uint8_t> bytes(data, size);
  sift::amqp::MessageView view(bytes);
  uint64_t sum = sift::testing::ExerciseView(view);
  source->Reset(bytes);
  for (uint32_t slot = 0; slot < fields.size(); ++slot) sum += sift::testing::Touch(source->Get(slot));
  if (sift::amqp::Validate(bytes).ok()) {
    sift::amqp::MessageView fresh(bytes);
    sift::testing::ExerciseView(fresh);
    if (!fresh.error().ok()) std::abort();  // a valid message must read cleanly
  }
  volatile uint64_t sink = sum;
  (void)sink;
  return 0;
}
