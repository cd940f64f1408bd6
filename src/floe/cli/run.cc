// The `floe` command as a library call (run.h): builds the CLI11 app from the
// command groups, parses, runs the chosen action and maps the outcome to an
// exit code (0 ok, 1 error with `floe: <message>` on the error output, 2
// usage), with the command's own descriptors.
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "floe/catalog/warnings.h"
#include "floe/cli/command.h"
#include "floe/cli/run.h"
#include "floe/cli/table_args.h"
#include "floe/s3/s3_file_io.h"
#include "floe/plugin/plugin_catalog.h"

namespace floe::cli {

namespace {
// The running command's Io: one Run at a time per process (run.h), seen by
// its worker threads too (warnings).
std::atomic<const Io*> g_io{nullptr};
const Io kProcessIo{};
}  // namespace

// Help and version: CLI11 prints them (to the command's output).
static int Exit(CLI::App& app, const CLI::Error& e, const Io& io) {
  std::ostringstream out, err;
  const int code = app.exit(e, out, err);
  WriteAll(io.out, out.str());
  WriteAll(io.err, err.str());
  return code;
}

const Io& CurrentIo() {
  const Io* io = g_io.load();
  return io != nullptr ? *io : kProcessIo;
}

namespace {
// All of `text` to `fd`; a reader that went away (| head) is not an error.
Status WriteFully(int fd, std::string_view text) {
  size_t off = 0;
  while (off < text.size()) {
    const ssize_t n = ::write(fd, text.data() + off, text.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EPIPE) return Ok();
      return IoError("cannot write to standard output: {}", std::strerror(errno));
    }
    off += static_cast<size_t>(n);
  }
  return Ok();
}
}  // namespace

void WriteAll(int fd, std::string_view text) {
  Status ignored = WriteFully(fd, text);
  (void)ignored;  // diagnostics and progress: best effort (run.h)
}

Status StdoutWriter::Flush() {
  Status st = WriteFully(CurrentIo().out, buf_);
  buf_.clear();
  return st;
}

int Run(const std::vector<std::string>& args, const Io& io) {
  const Io* outer = g_io.exchange(&io);
  struct Restore {
    const Io* outer;
    ~Restore() { g_io.store(outer); }
  } restore{outer};
  auto err = [&](const std::string& text) { WriteAll(io.err, text); };
  CLI::App app{"floe: rows and change streams into Apache Iceberg tables, and back out"};
  app.name("floe");
  app.require_subcommand(1);
  app.set_version_flag("--version", "floe 0.1.0");
  // Warnings (the library never prints): an operation that succeeded with
  // something to say, e.g. a commit whose version hint could not be updated.
  floe::catalog::SetWarningHandler(
      [](const std::string& w) { WriteAll(CurrentIo().err, "floe: warning: " + w + "\n"); });
  floe::s3::RegisterS3FileIO();  // s3://, s3a://, s3n:// locations (floe/s3/s3_file_io.h)
  floe::plugin::InstallCatalogPlugins();  // catalog-impl=<plugin class> (FLOE_PLUGIN_PATH)
  CommandContext ctx;
  AddParquetCommands(&app, &ctx);
  AddWriteCommand(&app, &ctx);
  AddScanCommand(&app, &ctx);
  AddCatalogCommands(&app, &ctx);
  AddCatalogAdminCommands(&app, &ctx);
  AddTableCommands(&app, &ctx);
  AddMaintenanceCommands(&app, &ctx);
  AddServeCommand(&app, &ctx);
  AddSqlCommand(&app, &ctx);
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::CallForHelp& e) {
    return Exit(app, e, io);
  } catch (const CLI::CallForAllHelp& e) {
    return Exit(app, e, io);
  } catch (const CLI::CallForVersion& e) {
    return Exit(app, e, io);
  } catch (const CLI::ParseError& e) {
    err(fmt::format("floe: {}\nRun with --help for usage.\n", e.what()));
    return 2;
  }
  if (!ctx.action) {
    err("floe: no command given\nRun with --help for usage.\n");
    return 2;
  }
  floe::Status st;
  try {
    st = ctx.action();
  } catch (const std::exception& e) {
    err(fmt::format("floe: internal error: {}\n", e.what()));
    return 1;
  }
  if (!st) {
    const std::string& msg = st.error().message;
    if (msg.starts_with("usage: ")) {
      err(fmt::format("floe: {}\n", msg.substr(7)));
      return 2;
    }
    err(fmt::format("floe: {}\n", msg));
    return 1;
  }
  return 0;
}

}  // namespace floe::cli

