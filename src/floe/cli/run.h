/// \file
/// The `floe` command as a library call: `Run` parses one command line and
/// runs it with its own standard input, output and error, returning the exit
/// code `floe` would (0 ok, 1 error with `floe: <message>` on its error
/// output, 2 usage). `main` is `Run` over the process's own descriptors;
/// tests run commands in-process where the process boundary is not what they
/// test.
///
/// One Run at a time per process (the running command's Io is process-wide,
/// so its worker threads' warnings reach it); the descriptors are the
/// caller's (Run does not close them). Relative paths resolve against the process's working
/// folder. A command that installs signal handlers (a streaming `floe write`,
/// `floe serve`) does so for the process while it runs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace floe::cli {

struct Io {
  int in = 0, out = 1, err = 2;
};

/// Runs `args` (args[0] is the program's name, as argv[0]) with `io`.
int Run(const std::vector<std::string>& args, const Io& io = {});

/// The Io of the running command (the process's own outside Run).
const Io& CurrentIo();

/// Writes all of `text` to `fd` (retrying short writes), best effort: for
/// diagnostics and progress, whose loss must not fail a command.
void WriteAll(int fd, std::string_view text);

}  // namespace floe::cli
