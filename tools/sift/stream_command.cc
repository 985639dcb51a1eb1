// `sift stream SUBCOMMAND [--store DIR] ...`: one stream's settings and life.
//
//   create --stream NAME [--max-bytes SIZE] [--max-age DURATION] [--compression none|zstd|zstd:LEVEL]
//       creates the store (when missing) and the stream with that retention and compression; a stream
//       of that name already there is an input error (exit 2): set-retention changes it
//   info --stream NAME [--json]
//       the `sift stats` line of the stream followed by its retention (stream_info.h); read-only
//   set-retention --stream NAME [--max-bytes SIZE] [--max-age DURATION]
//       replaces the limits given (at least one; 0 removes a limit), keeps the other, applies the
//       result at once (deleting the oldest chunks it rules out) and prints the info line
//   delete --stream NAME
//       deletes the stream and every message of it; prints `stream 'NAME' deleted (N messages)`
//   enforce-retention
//       applies every stream's retention now (age limits on streams nobody appends to)
//
// SIZE and DURATION are read strictly (tools/units.h: 64MiB, 10G, 7d, 12h); a bad value is a usage
// error naming the flag (exit 2). The writing subcommands need the store to themselves: beside a
// running `sift serve` or append they fail with the store busy (exit 3).
//
// With `--server [amqp[s]://]HOST:PORT` instead of --store, each subcommand is a request to the
// management node of that running `sift serve` (docs/serve.md, "Management";
// amqp_client/management_client.h), with the connection flags of `sift capture` (--tls-ca, --tls-cert,
// --tls-key, --user, --password-file, --sasl-mechanisms), and prints what it prints on a local store.
// create sends only the flags given (the server's --retention-max-bytes, --retention-max-age and
// --compression fill in the rest, as for the streams it creates itself); delete asks for the stream
// first, for its message count. A status other than success is an error line naming the server and
// the server's description, with the exit code of the same error on a local store: 2 for 400, 403 and
// 409 (the caller's to fix), 3 for 404 (a missing stream, as on a local store), the server's failures,
// a server that cannot be reached and a refused login.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "sift/stream_engine.h"
#include "tools/amqp_client/client_options.h"
#include "tools/amqp_client/management_client.h"
#include "tools/sift/command.h"
#include "tools/compression_flag.h"
#include "tools/sift/store_flags.h"
#include "tools/management_protocol.h"
#include "tools/sift/stream_info.h"
#include "tools/unit_flags.h"

namespace sift::tools {
namespace {

using amqp_client::Attributes;
using amqp_client::ManagementClient;
using amqp_client::ManagementRequest;
using amqp_client::ManagementResponse;

// --max-bytes and --max-age of one subcommand, to tell given from not.
struct RetentionFlags {
  CLI::Option* max_bytes = nullptr;
  CLI::Option* max_age = nullptr;
};

struct StreamOptions {
  std::string store;
  std::string server;   // --server: the management node of a running sift serve instead of the store
  bool remote = false;  // --server was given
  amqp_client::ClientOptions client;
  std::string stream;
  bool json = false;
  std::optional<ChunkCompression> compression;
  uint64_t max_bytes = 0;
  int64_t max_age_ms = 0;
  RetentionFlags create_flags;
  RetentionFlags set_flags;
};

// A response's status as an error: what the caller can fix (400 a bad request, 403 no permission, 409
// exists) is an input error, exit 2; a missing stream is NotFound, as on a local store, and the rest is
// the server's: exit 3 both.
Status StatusOfResponse(const ManagementResponse& response, const std::string& what, const std::string& server) {
  const int code = response.status_code;
  if (code >= 200 && code < 300) return Status::OK();
  const std::string why = (response.description.empty() ? std::string("refused") : response.description) + " (status " +
                          std::to_string(code) + ")";
  switch (code) {
    case 400:
    case 403: return Status::InvalidArgument(what, server, why);
    case 404: return Status::NotFound(what, server, why);
    case 409: return Status::AlreadyExists(what, server, why);
    case 501: return Status::NotSupported(what, server, why);
    default: return Status::IOError(what, server, why);
  }
}

// Connects to --server: kExitMatched, or the exit code once the error line is printed.
int ConnectServer(const StreamOptions& options, const std::string& command, std::unique_ptr<ManagementClient>* out) {
  amqp_client::BrokerUrl url;
  std::string why;
  if (!amqp_client::ParseManagementUrl(options.server, &url, &why)) {
    PrintError("usage", command + ": --server " + options.server, why);
    return kExitUsage;
  }
  Status status = ManagementClient::Connect(url, options.client, out);
  if (!status.ok()) return ReportError(status);
  return kExitMatched;
}

// One request and its response, any status other than success as an error naming the server.
Status Ask(ManagementClient* client, const StreamOptions& options, const ManagementRequest& request,
           const std::string& what, ManagementResponse* response) {
  Status status = client->Request(request, response);
  if (!status.ok()) return status.Rewrap(what, options.server);
  return StatusOfResponse(*response, what, options.server);
}

ManagementRequest StreamRequest(const char* operation, const StreamOptions& options) {
  ManagementRequest request;
  request.operation = operation;
  request.type = kStreamType;
  request.name = options.stream;
  return request;
}

// The stream's attributes of a successful CREATE, READ or UPDATE; one the client cannot read is the
// server's fault (exit 3).
Status StreamInfoOf(const ManagementResponse& response, const std::string& what, const std::string& server,
                    StreamInfo* info) {
  if (!response.attributes) return Status::IOError(what, server, "the response holds no attributes");
  return amqp_client::StreamInfoFromAttributes(*response.attributes, info).Rewrap(what, server);
}

// Sends a request answered with the stream's attributes and prints them as PrintInfo does.
int AskAndPrint(const StreamOptions& options, const std::string& command, const ManagementRequest& request,
                const std::string& what) {
  std::unique_ptr<ManagementClient> client;
  int code = ConnectServer(options, command, &client);
  if (code != kExitMatched) return code;
  ManagementResponse response;
  Status status = Ask(client.get(), options, request, what, &response);
  StreamInfo info;
  if (status.ok()) status = StreamInfoOf(response, what, options.server, &info);
  client->Close();
  if (!status.ok()) return ReportError(status);
  std::printf("%s\n", FormatStreamInfo(info, options.json, /*with_retention=*/true).c_str());
  return std::fflush(stdout) == 0 ? kExitMatched : kExitStorage;
}

// The retention flags given, as the attributes of a CREATE or UPDATE.
void AddRetentionAttributes(const StreamOptions& options, const RetentionFlags& flags, Attributes* attributes) {
  if (flags.max_bytes->count() > 0) (*attributes)[std::string(attribute::kRetentionMaxBytes)] = options.max_bytes;
  if (flags.max_age->count() > 0) (*attributes)[std::string(attribute::kRetentionMaxAgeMs)] = options.max_age_ms;
}

int RunCreateRemote(const StreamOptions& options) {
  ManagementRequest request = StreamRequest("CREATE", options);
  Attributes attributes;
  AddRetentionAttributes(options, options.create_flags, &attributes);
  if (options.compression) attributes[std::string(attribute::kCompression)] = FormatCompression(*options.compression);
  if (!attributes.empty()) request.attributes = std::move(attributes);
  return AskAndPrint(options, "sift stream create", request, "cannot create stream '" + options.stream + "'");
}

int RunSetRetentionRemote(const StreamOptions& options) {
  ManagementRequest request = StreamRequest("UPDATE", options);
  Attributes attributes;
  AddRetentionAttributes(options, options.set_flags, &attributes);
  request.attributes = std::move(attributes);
  return AskAndPrint(options, "sift stream set-retention", request,
                     "cannot set the retention of stream '" + options.stream + "'");
}

int RunDeleteRemote(const StreamOptions& options) {
  std::unique_ptr<ManagementClient> client;
  int code = ConnectServer(options, "sift stream delete", &client);
  if (code != kExitMatched) return code;
  const std::string what = "cannot delete stream '" + options.stream + "'";
  // The count printed is the one read just before the delete: messages appended in between are not in it.
  ManagementResponse response;
  Status status = Ask(client.get(), options, StreamRequest("READ", options), what, &response);
  StreamInfo info;
  if (status.ok()) status = StreamInfoOf(response, what, options.server, &info);
  if (status.ok()) status = Ask(client.get(), options, StreamRequest("DELETE", options), what, &response);
  client->Close();
  if (!status.ok()) return ReportError(status);
  std::printf("stream '%s' deleted (%llu messages)\n", options.stream.c_str(),
              static_cast<unsigned long long>(info.message_count));
  return std::fflush(stdout) == 0 ? kExitMatched : kExitStorage;
}

int RunEnforceRetentionRemote(const StreamOptions& options) {
  std::unique_ptr<ManagementClient> client;
  int code = ConnectServer(options, "sift stream enforce-retention", &client);
  if (code != kExitMatched) return code;
  ManagementRequest request;
  request.operation = "ENFORCE-RETENTION";
  request.type = kStoreType;
  ManagementResponse response;
  Status status = Ask(client.get(), options, request, "cannot enforce retention", &response);
  client->Close();
  if (!status.ok()) return ReportError(status);
  return kExitMatched;
}

int PrintInfo(const StreamEngine& engine, const std::string& stream, bool json) {
  StreamInfo info;
  Status status = engine.GetStreamInfo(stream, &info);
  if (!status.ok()) return ReportError(status);
  std::printf("%s\n", FormatStreamInfo(info, json, /*with_retention=*/true).c_str());
  return std::fflush(stdout) == 0 ? kExitMatched : kExitStorage;
}

int RunCreate(const StreamOptions& options) {
  if (options.remote) return RunCreateRemote(options);
  std::unique_ptr<StreamEngine> engine;
  AppendSettings settings;
  settings.compression = options.compression;
  Status status = OpenStore(options.store, StoreUse::kCreate, &engine, settings);
  if (!status.ok()) return ReportError(status);
  StreamInfo info;
  if (engine->GetStreamInfo(options.stream, &info).ok()) {
    return ReportError(Status::AlreadyExists("cannot create stream", options.stream,
                                             "it exists (sift stream set-retention changes its retention)"));
  }
  status = engine->CreateStream(options.stream,
                                RetentionPolicy{options.max_bytes, std::chrono::milliseconds(options.max_age_ms)});
  if (!status.ok()) return ReportError(status);
  return PrintInfo(*engine, options.stream, options.json);
}

int RunInfo(const StreamOptions& options) {
  if (options.remote) {
    return AskAndPrint(options, "sift stream info", StreamRequest("READ", options),
                       "cannot read stream '" + options.stream + "'");
  }
  std::unique_ptr<StreamEngine> engine;
  Status status = OpenStore(options.store, StoreUse::kRead, &engine);
  if (!status.ok()) return ReportError(status);
  return PrintInfo(*engine, options.stream, options.json);
}

int RunSetRetention(const StreamOptions& options, const std::string& command) {
  if (options.set_flags.max_bytes->count() == 0 && options.set_flags.max_age->count() == 0) {
    PrintError("usage", command, "give --max-bytes, --max-age or both (see '" + command + " --help')");
    return kExitUsage;
  }
  if (options.remote) return RunSetRetentionRemote(options);
  std::unique_ptr<StreamEngine> engine;
  Status status = OpenStore(options.store, StoreUse::kUpdate, &engine);
  if (!status.ok()) return ReportError(status);
  StreamInfo info;
  status = engine->GetStreamInfo(options.stream, &info);
  if (!status.ok()) return ReportError(status);
  RetentionPolicy retention = info.retention;
  if (options.set_flags.max_bytes->count() > 0) retention.max_bytes = options.max_bytes;
  if (options.set_flags.max_age->count() > 0) retention.max_age = std::chrono::milliseconds(options.max_age_ms);
  status = engine->SetRetention(options.stream, retention);
  if (!status.ok()) return ReportError(status);
  return PrintInfo(*engine, options.stream, options.json);
}

int RunDelete(const StreamOptions& options) {
  if (options.remote) return RunDeleteRemote(options);
  std::unique_ptr<StreamEngine> engine;
  Status status = OpenStore(options.store, StoreUse::kUpdate, &engine);
  if (!status.ok()) return ReportError(status);
  StreamInfo info;
  status = engine->GetStreamInfo(options.stream, &info);
  if (!status.ok()) return ReportError(status);
  status = engine->DeleteStream(options.stream);
  if (!status.ok()) return ReportError(status);
  std::printf("stream '%s' deleted (%llu messages)\n", options.stream.c_str(),
              static_cast<unsigned long long>(info.message_count));
  return std::fflush(stdout) == 0 ? kExitMatched : kExitStorage;
}

int RunEnforceRetention(const StreamOptions& options) {
  if (options.remote) return RunEnforceRetentionRemote(options);
  std::unique_ptr<StreamEngine> engine;
  Status status = OpenStore(options.store, StoreUse::kUpdate, &engine);
  if (!status.ok()) return ReportError(status);
  status = engine->EnforceRetention();
  if (!status.ok()) return ReportError(status);
  return kExitMatched;
}

void AddRetentionFlags(CLI::App* sub, StreamOptions* options, RetentionFlags* flags) {
  flags->max_bytes = AddByteSizeOption(sub, "--max-bytes", &options->max_bytes, 0, std::numeric_limits<uint64_t>::max(),
                                       "Keep at most this many stored bytes, e.g. 10G (0: no limit)");
  flags->max_age = AddDurationOption(sub, "--max-age", &options->max_age_ms, 0, std::numeric_limits<int64_t>::max(),
                                     "Delete messages older than this, e.g. 7d or 12h (0: no limit)");
}

// --store, or --server with the connection flags (which need it).
void AddPlaceFlags(CLI::App* sub, StreamOptions* options) {
  AddStoreFlag(sub, &options->store);
  CLI::Option* server =
      sub->add_option("--server", options->server,
                      "A running sift serve to ask instead of the store: [amqp[s]://]HOST:PORT (its $management node)")
          ->type_name("URL")
          ->excludes(sub->get_option("--store"));
  amqp_client::AddClientFlags(sub, &options->client);
  for (const char* flag : {"--tls-ca", "--tls-cert", "--tls-key", "--user", "--password-file", "--sasl-mechanisms"})
    sub->get_option(flag)->needs(server);
}

}  // namespace

Command AddStreamCommand(CLI::App& app) {
  CLI::App* stream = app.add_subcommand("stream", "One stream: create, info, set-retention, delete, enforce-retention");
  stream->require_subcommand(1);
  auto options = std::make_shared<StreamOptions>();

  CLI::App* create = stream->add_subcommand("create", "Create a stream (and the store) with a retention");
  AddPlaceFlags(create, options.get());
  create->add_option("--stream", options->stream, "Stream name")->required();
  AddRetentionFlags(create, options.get(), &options->create_flags);
  AddCompressionFlag(create, &options->compression, "the stream's appends");
  create->add_flag("--json", options->json, "Print the stream as a JSON object");

  CLI::App* info = stream->add_subcommand("info", "Show a stream: messages, offsets, chunks, bytes, retention");
  AddPlaceFlags(info, options.get());
  info->add_option("--stream", options->stream, "Stream name")->required();
  info->add_flag("--json", options->json, "One JSON object");

  CLI::App* set = stream->add_subcommand(
      "set-retention", "Change a stream's retention (limits not given are kept; 0 removes one) and apply it now");
  AddPlaceFlags(set, options.get());
  set->add_option("--stream", options->stream, "Stream name")->required();
  AddRetentionFlags(set, options.get(), &options->set_flags);
  set->add_flag("--json", options->json, "Print the stream as a JSON object");

  CLI::App* del = stream->add_subcommand("delete", "Delete a stream and all its messages");
  AddPlaceFlags(del, options.get());
  del->add_option("--stream", options->stream, "Stream name")->required();

  CLI::App* enforce = stream->add_subcommand("enforce-retention", "Apply every stream's retention now");
  AddPlaceFlags(enforce, options.get());

  return {stream, [=] {
            for (CLI::App* sub : {create, info, set, del, enforce}) {
              if (sub->parsed()) options->remote = sub->count("--server") > 0;
            }
            if (create->parsed()) return RunCreate(*options);
            if (info->parsed()) return RunInfo(*options);
            if (set->parsed()) return RunSetRetention(*options, "sift stream set-retention");
            if (del->parsed()) return RunDelete(*options);
            return RunEnforceRetention(*options);
          }};
}

}  // namespace sift::tools
