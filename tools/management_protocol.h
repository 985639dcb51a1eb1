// The vocabulary of sift serve's management node (docs/serve.md, "Management"), written once for both
// ends: the node (tools/serve/management_node.h) and its client behind `sift stream --server`
// (tools/amqp_client/management_client.h).
#ifndef SIFT_TOOLS_MANAGEMENT_PROTOCOL_H_
#define SIFT_TOOLS_MANAGEMENT_PROTOCOL_H_

#include <string_view>

namespace sift::tools {

// The node's address: a stream of that name cannot be reached over AMQP.
inline constexpr std::string_view kManagementAddress = "$management";

// The entity types of requests.
inline constexpr std::string_view kStreamType = "sift:stream";
inline constexpr std::string_view kStoreType = "sift:store";

// A stream's attributes, in responses (all) and in CREATE and UPDATE requests (the settings).
namespace attribute {
inline constexpr std::string_view kName = "name";
inline constexpr std::string_view kMessages = "messages";
inline constexpr std::string_view kFirstOffset = "first-offset";
inline constexpr std::string_view kNextOffset = "next-offset";
inline constexpr std::string_view kChunks = "chunks";
inline constexpr std::string_view kStoredBytes = "stored-bytes";
inline constexpr std::string_view kRawBytes = "raw-bytes";
inline constexpr std::string_view kFirstTimestampMs = "first-timestamp-ms";
inline constexpr std::string_view kLastTimestampMs = "last-timestamp-ms";
inline constexpr std::string_view kRetentionMaxBytes = "retention-max-bytes";
inline constexpr std::string_view kRetentionMaxAgeMs = "retention-max-age-ms";
inline constexpr std::string_view kCompression = "compression";
}  // namespace attribute

}  // namespace sift::tools

#endif  // SIFT_TOOLS_MANAGEMENT_PROTOCOL_H_
