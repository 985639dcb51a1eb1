// Message and correlation ids as the JMS dialect shows them (JMSMessageID, JMSCorrelationID): the
// strings Qpid JMS's AmqpMessageIdHelper makes of the AMQP ids (docs/selector-semantics.md, "JMS
// dialect"), and, the other way, which stored ids show as a given string, for the chunk predicate.
#ifndef SIFT_SELECTOR_JMS_ID_H_
#define SIFT_SELECTOR_JMS_ID_H_

#include <cstdint>
#include <string_view>

#include "selector/eval_context.h"
#include "selector/value.h"

namespace sift::selector {

// The string id `v` shows as (new text in the context's scratch): a string id as it is, or with
// `ID:AMQP_NO_PREFIX:` (a message id without `ID:`) or `ID:AMQP_STRING:` (one that starts like a typed
// id); a correlation id without `ID:` as it is; ulong (and the other unsigned integers) as
// `ID:AMQP_ULONG:` + decimal; uuid as `ID:AMQP_UUID:` + its lower-case 8-4-4-4-12 form; binary as
// `ID:AMQP_BINARY:` + upper-case hex. Missing and null stay as they are; any other value is Null.
Value RenderJmsId(const Value& v, bool correlation, EvalContext& context);

// The stored ids that show as `shown` (RenderJmsId): at most two strings, an unsigned integer, and
// whether some uuid or some binary might.
struct JmsIdSources {
  std::string_view strings[2];
  int string_count = 0;
  bool has_unsigned = false;
  uint64_t unsigned_value = 0;
  bool uuid = false;    // some uuid (not singled out)
  bool binary = false;  // some binary (not singled out)
};
JmsIdSources SourcesOfJmsId(std::string_view shown, bool correlation);

}  // namespace sift::selector

#endif  // SIFT_SELECTOR_JMS_ID_H_
