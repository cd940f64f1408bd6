/// \file
/// The interop readers (shared/interop: verify_table.mjs, read_table.mjs,
/// parquet_rows.mjs, avro_dump.mjs, duckdb_sql.mjs) through one long-lived
/// `node oracle_server.mjs` per test process, instead of a node per check
/// (~0.7 CPU s of start-up each). The server's answers are byte-identical to
/// the scripts run one by one (shared/interop/README.md, "One process for many
/// checks"): the same exit status, stdout and stderr.
///
/// The server is started on first use, with pipes whose ends this process
/// keeps close-on-exec (a forked `floe` never holds them), and restarted once
/// should it die. Requests run one at a time (a mutex): tests on several
/// threads may share it.
#pragma once

#include <string>
#include <vector>

namespace floe::test {

struct OracleResult {
  int code = -1;  ///< the script's exit status (127: the server could not run it)
  std::string out, err;
  /// The equivalent command line, for failure messages.
  std::string command;
};

/// Runs `script` (a file name in shared/interop) with `args` as if by
/// `cd cwd && node script args...` (no shell: no quoting or globbing).
/// An empty `cwd` is this process's working folder.
OracleResult Oracle(const std::string& script, const std::vector<std::string>& args, const std::string& cwd = "");

}  // namespace floe::test
