// Entry point of the `floe` command: builds the CLI11 app from the command
// groups, parses, runs the chosen action and maps the outcome to an exit code
// (0 ok, 1 error with `floe: <message>` on stderr, 2 usage).
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

#include "floe/catalog/warnings.h"
#include "floe/cli/command.h"
#include "floe/cli/table_args.h"
#include "floe/s3/s3_file_io.h"
#include "floe/plugin/plugin_catalog.h"

namespace floe::cli {

Status StdoutWriter::Flush() {
  size_t off = 0;
  while (off < buf_.size()) {
    ssize_t n = ::write(1, buf_.data() + off, buf_.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      buf_.clear();
      if (errno == EPIPE) return Ok();  // reader went away (| head): not an error
      return IoError("cannot write to standard output: {}", std::strerror(errno));
    }
    off += static_cast<size_t>(n);
  }
  buf_.clear();
  return Ok();
}

}  // namespace floe::cli

int main(int argc, char** argv) {
  using namespace floe::cli;
  std::signal(SIGPIPE, SIG_IGN);
  CLI::App app{"floe: rows and change streams into Apache Iceberg tables, and back out"};
  app.name("floe");
  app.require_subcommand(1);
  app.set_version_flag("--version", "floe 0.1.0");
  // Warnings (the library never prints): an operation that succeeded with
  // something to say, e.g. a commit whose version hint could not be updated.
  floe::catalog::SetWarningHandler(
      [](const std::string& w) { std::fprintf(stderr, "floe: warning: %s\n", w.c_str()); });
  floe::s3::RegisterS3FileIO();  // s3://, s3a://, s3n:// locations (floe/s3/s3_file_io.h)
  floe::plugin::InstallCatalogPlugins();  // catalog-impl=<plugin class> (FLOE_PLUGIN_PATH)
  CommandContext ctx;
  AddParquetCommands(&app, &ctx);
  AddWriteCommand(&app, &ctx);
  AddScanCommand(&app, &ctx);
  AddCatalogCommands(&app, &ctx);
  AddCatalogAdminCommands(&app, &ctx);
  AddTableCommands(&app, &ctx);
  AddServeCommand(&app, &ctx);
  AddSqlCommand(&app, &ctx);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "floe: %s\nRun with --help for usage.\n", e.what());
    return 2;
  }
  if (!ctx.action) {
    std::fprintf(stderr, "floe: no command given\nRun with --help for usage.\n");
    return 2;
  }
  floe::Status st;
  try {
    st = ctx.action();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "floe: internal error: %s\n", e.what());
    return 1;
  }
  if (!st) {
    const std::string& msg = st.error().message;
    if (msg.starts_with("usage: ")) {
      std::fprintf(stderr, "floe: %s\n", msg.c_str() + 7);
      return 2;
    }
    std::fprintf(stderr, "floe: %s\n", msg.c_str());
    return 1;
  }
  return 0;
}
