// `--to amqp[s]://HOST:PORT/ADDRESS` of `sift replay` and `sift filter`: the matches sent to a broker
// as stored (tools/amqp_client/publisher.h) instead of written out; stdout then lists the offsets the
// broker accepted (-f offsets) or their count (-f count). With --on-refused stop (the default) the first
// message the broker refuses ends the run, exit 2, naming its offset and the broker's condition; with
// skip each refusal is a warning line on stderr and the run goes on. --rate N sends at most N msgs/s.
#ifndef SIFT_TOOLS_SIFT_PUBLISH_FLAGS_H_
#define SIFT_TOOLS_SIFT_PUBLISH_FLAGS_H_

#include <memory>
#include <string>

#include "tools/amqp_client/client_options.h"
#include "tools/amqp_client/publisher.h"
#include "tools/sift/output.h"

namespace CLI {
class App;
}

namespace sift::tools {

struct PublishFlags {
  std::string to;  // empty: no broker
  std::string on_refused = "stop";
  double rate = 0;
  amqp_client::ClientOptions client;
};

// Adds --to, --on-refused, --rate and the connection flags (amqp_client::AddClientFlags).
void AddPublishFlags(CLI::App* command, PublishFlags* flags);

// With --to: checks the flags against the output format, connects, and points `writer` at the broker.
// Returns 0 (also without --to), or the exit code after printing the error line. `command` names the
// command in usage errors ("sift replay").
int StartPublishing(const PublishFlags& flags, const std::string& command, OutputFormat format, MatchWriter* writer,
                    std::unique_ptr<amqp_client::Publisher>* publisher);

// ", sent S, accepted A, refused R" for the stats line (empty without a publisher).
std::string PublishStats(const amqp_client::Publisher* publisher);

}  // namespace sift::tools

#endif  // SIFT_TOOLS_SIFT_PUBLISH_FLAGS_H_
