// LinkFilter: a consumer's attach source filter-set (AMQP core part 3, section 3.5.8) turned into a
// compiled filter-set and a start position.
//
// Accepted entries (the key is free unless stated; descriptors as symbol or ulong,
// docs/selector-language.md "Filters and how they arrive"):
//   amqp:sql-filter (0x120)                         string: SQL filter expression (filtex section 6)
//   apache.org:selector-filter:string (0x468C00000004) string: JMS selector
//   amqp:properties-filter (0x173)                  map symbol → reference value (filtex section 4.1)
//   amqp:application-properties-filter (0x174)      map string → reference value
//   rabbitmq:stream-offset-spec (key, or descriptor) "first" | "last" | "next" | an offset (any
//                                                   non-negative integer type) | a timestamp
// The filters are compiled by the engine's filter-set compiler (sift/filter_set.h), as `sift`'s
// filter flags are; this reads the filter-set map. Every filter is ANDed. Anything else — an unknown
// descriptor, a value of the wrong type, a bad expression — is an error naming the key, the filter
// and, for expressions, the byte position: the endpoint refuses the link with it instead of dropping
// the filter silently.
#ifndef SIFT_TOOLS_SERVE_LINK_FILTER_H_
#define SIFT_TOOLS_SERVE_LINK_FILTER_H_

#include <cstdint>
#include <span>
#include <string>

#include "sift/consumer.h"
#include "sift/filter_set.h"

namespace sift::tools {

struct LinkFilter {
  CompiledFilter filter;  // matches everything when there is no filter
  StartPosition start = StartPosition::First();
  int filter_count = 0;  // selector filters seen (the offset spec not counted)
};

// Parses `filter_set`, the AMQP encoding of the source's filter field (a map, or empty bytes for no
// filter). Returns true and fills *out, or false with *error set to one line saying which entry and
// why (for an expression: "at byte P" of the expression and the reason).
bool ParseLinkFilter(std::span<const uint8_t> filter_set, LinkFilter* out, std::string* error);

}  // namespace sift::tools

#endif  // SIFT_TOOLS_SERVE_LINK_FILTER_H_
