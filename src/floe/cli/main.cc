// Entry point of the `floe` command: floe::cli::Run (run.h) over the
// process's own standard input, output and error.
#include <csignal>
#include <string>
#include <vector>

#include "floe/cli/run.h"

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);
  return floe::cli::Run(std::vector<std::string>(argv, argv + argc));
}
