// sift-serve: the AMQP 1.0 endpoint as a program of its own (the same as `sift serve`).
#include <CLI/CLI.hpp>

#include "tools/error_line.h"
#include "tools/serve/serve.h"

int main(int argc, char** argv) {
  CLI::App app("sift-serve: an AMQP 1.0 endpoint serving filtered streams", "sift-serve");
  sift::tools::ServeOptions options;
  sift::tools::AddServeFlags(&app, &options);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    sift::tools::PrintError("bad usage", "serve", e.what());
    return sift::tools::kExitUsage;
  }
  return sift::tools::RunServe(options);
}
