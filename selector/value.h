// The selector's name for the AMQP value model (base/amqp_value.h): the language evaluates the values
// a message holds, so it shares the codec's type rather than mirroring it.
#ifndef SIFT_SELECTOR_VALUE_H_
#define SIFT_SELECTOR_VALUE_H_

#include "base/amqp_value.h"

namespace sift::selector {

using Value = amqp::Value;
using ValueType = amqp::ValueType;
using amqp::ValueTypeName;

}  // namespace sift::selector

#endif  // SIFT_SELECTOR_VALUE_H_
