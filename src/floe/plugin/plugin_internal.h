/// \file
/// What the plugin module's files share: the host side of the opaque C
/// types of <floe/plugin.h> (floe_error, floe_bytes_out, floe_row,
/// floe_registrar), the host API table, the crash guard around every call
/// into a plugin, and the translation of a plugin's status into an Error.
#pragma once

#include <floe/plugin.h>

#include <string>
#include <string_view>
#include <vector>

#include "floe/types/column_vector.h"
#include "floe/util/status.h"

/// A call's error message, set by host->set_error.
struct floe_error {
  std::string message;
  bool set = false;
};

/// A call's output bytes, set by host->set_output.
struct floe_bytes_out {
  std::string data;
  bool set = false;
};

/// One row of a batch, as invoke sees it. `scratch` holds the text the
/// last row_get_text / row_get_json returned.
struct floe_row {
  const floe::Batch* batch = nullptr;
  int64_t row = 0;
  std::string scratch;
};

/// What floe_plugin_init registered, checked and published only when init
/// succeeds.
struct floe_registrar {
  struct Entry {
    bool is_sink = true;
    std::string name;
    const floe_sink_vtable* sink = nullptr;
    const floe_catalog_vtable* catalog = nullptr;
  };
  std::vector<Entry> entries;
  std::string error;  ///< the first bad registration
  bool open = true;   ///< false after init returned: registering then is an error
};

namespace floe::plugin::internal {

/// The host API given to every plugin (one static table).
const floe_host_api* HostApi();

/// Marks the calling thread as inside `call` of plugin class `class_name`
/// for as long as it lives: a crash signal, or exit() / quick_exit() called
/// from inside the call, then ends the process with a message naming both
/// and saying whether anything was committed before (commit_ledger.h; see
/// InstallCrashHandlers). `who` is what the message calls the plugin
/// ("class", or "library" for a load). `commits`: the call is itself a
/// commit (a sink's commit, a catalog's commit_table), whose outcome a
/// crash inside it leaves unknown. The strings must outlive the guard.
/// Guards do not nest (an inner one restores the outer).
class CallGuard {
 public:
  CallGuard(const char* class_name, const char* call, bool commits = false, const char* who = "class");
  ~CallGuard();
  CallGuard(const CallGuard&) = delete;
  CallGuard& operator=(const CallGuard&) = delete;

 private:
  const char* prev_class_;
  const char* prev_call_;
  const char* prev_who_;
  bool prev_commits_;
};

/// Installs the SIGSEGV/SIGBUS/SIGFPE/SIGILL/SIGABRT handlers and the exit
/// guard (an on_exit / at_quick_exit handler) once per process. Outside a
/// plugin call a signal goes to the handler that was installed before, and
/// an exit goes on as usual.
void InstallCrashHandlers();

/// The exit code of a process whose plugin crashed or exited inside a call
/// before anything was committed (EX_SOFTWARE): rerunning it is safe.
inline constexpr int kCrashExitCode = 70;
/// The exit code when something had been committed before (or the crash was
/// inside a commit, whose outcome is unknown): a plain rerun would repeat it.
inline constexpr int kCrashAfterCommitExitCode = 71;

/// The commit ledger as a signal handler may read it (commit_ledger.cc).
struct LedgerView {
  int64_t count = 0;    ///< commits noted
  int64_t spelled = 0;  ///< of them, those in `text`
  const char* text = nullptr;
  size_t length = 0;
};
LedgerView Ledger();

/// The Error for a plugin call that returned `status`:
/// `floe.PluginException: <class>: <call>: <message>`, its kind from the
/// status code (catalog codes map to the catalog error kinds).
Error PluginError(std::string_view class_name, std::string_view call, floe_status status,
                  const floe_error& err);

}  // namespace floe::plugin::internal
