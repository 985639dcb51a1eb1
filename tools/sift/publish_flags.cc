// The --to flags of replay and filter (see publish_flags.h).
#include "tools/sift/publish_flags.h"

#include <CLI/CLI.hpp>

#include "tools/sift/command.h"

namespace sift::tools {

void AddPublishFlags(CLI::App* command, PublishFlags* flags) {
  command->add_option("--to", flags->to,
                      "Send the matches as stored to this AMQP 1.0 address, amqp[s]://HOST:PORT/ADDRESS (RabbitMQ: "
                      "/queue/NAME, /exchange/NAME/KEY); stdout lists what the broker accepted");
  command
      ->add_option("--on-refused", flags->on_refused,
                   "With --to, a message the broker refuses (rejected, released, modified): stop (exit 2) or skip")
      ->check(CLI::IsMember({"stop", "skip"}))
      ->capture_default_str();
  command->add_option("--rate", flags->rate, "With --to, send at most this many messages per second (0: no limit)")
      ->check(CLI::Range(0.0, 1e9));
  amqp_client::AddClientFlags(command, &flags->client);
}

int StartPublishing(const PublishFlags& flags, const std::string& command, OutputFormat format, MatchWriter* writer,
                    std::unique_ptr<amqp_client::Publisher>* publisher) {
  const bool connection_flags = !flags.client.tls_ca.empty() || !flags.client.tls_cert.empty() ||
                                !flags.client.user.empty() || !flags.client.password_file.empty() ||
                                !flags.client.sasl_mechanisms.empty() || flags.rate > 0 || flags.on_refused != "stop";
  if (flags.to.empty()) {
    if (connection_flags) {
      PrintError("usage", command,
                 "--on-refused, --rate and the connection flags need --to (see '" + command + " --help')");
      return kExitUsage;
    }
    return 0;
  }
  if (format != OutputFormat::kOffsets && format != OutputFormat::kCount) {
    PrintError(
        "usage", command + ": --to",
        "the matches go to the broker: -f offsets (those accepted) or -f count only (see '" + command + " --help')");
    return kExitUsage;
  }
  amqp_client::BrokerUrl url;
  std::string why;
  if (!amqp_client::ParseBrokerUrl(flags.to, &url, &why)) {
    PrintError("usage", command + ": --to " + flags.to, why);
    return kExitUsage;
  }
  amqp_client::PublishOptions options;
  options.on_refused =
      flags.on_refused == "skip" ? amqp_client::RefusedPolicy::kSkip : amqp_client::RefusedPolicy::kStop;
  options.rate = flags.rate;
  options.on_accepted = [writer](uint64_t offset) { writer->Accepted(offset); };
  const std::string target = url.ToString();
  options.on_refused_message = [target](uint64_t offset, const std::string& refusal) {
    PrintError("warning", "offset " + std::to_string(offset), "refused by " + target + ": " + refusal + "; skipped");
  };
  Status status = amqp_client::Publisher::Open(url, flags.client, options,
                                               command.substr(command.find(' ') + 1) + " --to", publisher);
  if (!status.ok()) return ReportError(status);
  writer->SendTo(publisher->get());
  return 0;
}

std::string PublishStats(const amqp_client::Publisher* publisher) {
  if (publisher == nullptr) return "";
  return ", sent " + std::to_string(publisher->sent()) + ", accepted " + std::to_string(publisher->accepted()) +
         ", refused " + std::to_string(publisher->refused());
}

}  // namespace sift::tools
