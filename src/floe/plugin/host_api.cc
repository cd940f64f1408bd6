// The host side of <floe/plugin.h>: the host API table (errors, outputs,
// logging, registration, row accessors), the crash guard, and the mapping
// of a plugin's status codes onto floe's error kinds.
//
// Why a guard and not a child process for crashes: a plugin runs in floe's
// process, as a Flink sink runs in the task manager's JVM, so that batches
// reach it without a copy (Arrow C Data arrays point into floe's columns).
// Running it in a child would cost a copy of every batch through a pipe or
// shared memory, and a second life cycle to supervise. What a child would
// buy, surviving the crash, floe does not need: a statement whose sink
// crashed fails anyway, and after a SIGSEGV the process's memory cannot be
// trusted, so continuing (siglongjmp out of the handler) would be unsafe.
// The guard's job is only that the crash is never silent and that nothing
// is committed after it: it prints which class crashed in which call, what
// this process had committed before (commit_ledger.h), and _exits at once,
// before any later commit can run: code 70 when nothing had been committed
// (a rerun is safe), 71 when something had (or the crash was inside a
// commit). The same guard catches a plugin that calls exit() inside a call
// (an on_exit handler): floe would otherwise end with the plugin's status,
// 0, as if the statement had succeeded. Files a
// writer had staged but not committed are orphans, which remove-orphans
// cleans (the Iceberg commit protocol: unreferenced files are harmless).

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "floe/plugin/plugin_internal.h"
#include "floe/types/json_value.h"

namespace floe::plugin::internal {

namespace {

// ---- crash guard

// Plain pointers in static TLS: read from a signal handler.
thread_local const char* t_class = nullptr;
thread_local const char* t_call = nullptr;
thread_local const char* t_who = "class";
thread_local bool t_commits = false;

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
struct sigaction g_previous[NSIG];

const char* SignalName(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    default: return "signal";
  }
}

void WriteBytes(const char* s, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(2, s, n);
    if (w <= 0) return;
    s += w;
    n -= static_cast<size_t>(w);
  }
}

void WriteAll(const char* s) { WriteBytes(s, std::strlen(s)); }

// A decimal number without allocating (async-signal-safe).
void WriteNumber(int64_t v) {
  char buf[24];
  char* p = buf + sizeof(buf);
  const bool neg = v < 0;
  uint64_t u = neg ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  do {
    *--p = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u != 0);
  if (neg) *--p = '-';
  WriteBytes(p, static_cast<size_t>(buf + sizeof(buf) - p));
}

// The end of a guard's message: what had been committed, and the exit code
// that tells a supervisor whether a rerun is safe. Async-signal-safe: write(2)
// and _exit only.
[[noreturn]] void ReportAndExit() {
  const LedgerView ledger = Ledger();
  if (t_commits) {
    WriteAll("; whether that commit landed is unknown");
  }
  if (ledger.count > 0) {
    WriteAll(t_commits ? "; before it this process had committed: " : "; this process had committed before: ");
    WriteBytes(ledger.text, ledger.length);
    if (ledger.count > ledger.spelled) {
      WriteAll(" and ");
      WriteNumber(ledger.count - ledger.spelled);
      WriteAll(" more");
    }
    WriteAll("; nothing after it was committed (exit 71: a rerun repeats these commits)\n");
  } else if (t_commits) {
    WriteAll("; nothing else was committed (exit 71: check that commit before a rerun)\n");
  } else {
    WriteAll("; nothing was committed (exit 70)\n");
  }
  ::_exit(ledger.count > 0 || t_commits ? kCrashAfterCommitExitCode : kCrashExitCode);
}

void WriteWho() {
  WriteAll("floe.PluginException: plugin ");
  WriteAll(t_who);
  WriteAll(" ");
  WriteAll(t_class ? t_class : "?");
}

void OnCrash(int sig, siginfo_t* info, void* context) {
  if (t_call != nullptr) {
    WriteWho();
    WriteAll(" crashed in ");
    WriteAll(t_call);
    WriteAll(" (");
    WriteAll(SignalName(sig));
    WriteAll(")");
    ReportAndExit();
  }
  // Not inside a plugin: what was installed before handles it.
  const struct sigaction& prev = g_previous[sig];
  if ((prev.sa_flags & SA_SIGINFO) && prev.sa_sigaction != nullptr) {
    prev.sa_sigaction(sig, info, context);
    return;
  }
  if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN) {
    prev.sa_handler(sig);
    return;
  }
  // The default action: restore it; a fault re-executes the instruction and
  // a raised signal is raised again.
  ::sigaction(sig, &prev, nullptr);
  if (info == nullptr || info->si_code <= 0) ::raise(sig);
}

// exit() or quick_exit() called on a thread inside a plugin call: the plugin
// ended the process in the middle of a statement, which floe would otherwise
// report as a success (exit 0 with nothing committed). The handlers run on
// the thread that called exit, so the call's guard is visible here.
void ExitInsideCall(bool have_status, int status) {
  if (t_call == nullptr) return;  // floe's own exit
  WriteWho();
  WriteAll(" ended the process in ");
  WriteAll(t_call);
  if (have_status) {
    WriteAll(" (exit(");
    WriteNumber(status);
    WriteAll("))");
  } else {
    WriteAll(" (exit)");
  }
  WriteAll(": the statement failed");
  // What floe printed before (a statement's result) still reaches its reader.
  std::fflush(nullptr);
  ReportAndExit();
}

#ifdef __GLIBC__
void OnExit(int status, void*) { ExitInsideCall(true, status); }
#else
void OnExit() { ExitInsideCall(false, 0); }
#endif
void OnQuickExit() { ExitInsideCall(false, 0); }

// ---- host API functions

void SetError(floe_error* err, const char* message, size_t len) {
  if (err == nullptr) return;
  err->message.assign(message ? message : "", message ? len : 0);
  err->set = true;
}

void SetOutput(floe_bytes_out* out, const void* data, size_t len) {
  if (out == nullptr) return;
  out->data.assign(static_cast<const char*>(data), data ? len : 0);
  out->set = true;
}

void Log(int32_t level, const char* message, size_t len) {
  if (level <= FLOE_LOG_DEBUG && std::getenv("FLOE_PLUGIN_DEBUG") == nullptr) return;
  std::string line = "floe: plugin: ";
  line.append(message ? message : "", message ? len : 0);
  line.push_back('\n');
  std::fwrite(line.data(), 1, line.size(), stderr);
}

floe_status Register(floe_registrar* reg, const char* class_name, const floe_sink_vtable* sink,
                     const floe_catalog_vtable* catalog) {
  if (reg == nullptr) return FLOE_INVALID_ARGUMENT;
  auto fail = [&](std::string msg) {
    if (reg->error.empty()) reg->error = std::move(msg);
    return FLOE_INVALID_ARGUMENT;
  };
  if (!reg->open) return fail("a class was registered after floe_plugin_init returned");
  if (class_name == nullptr || *class_name == '\0') return fail("a class name is empty");
  std::string name = class_name;
  if (sink == nullptr && catalog == nullptr) return fail("class '" + name + "' has no vtable");
  reg->entries.push_back({sink != nullptr, std::move(name), sink, catalog});
  return FLOE_OK;
}

floe_status RegisterSink(floe_registrar* reg, const char* class_name, const floe_sink_vtable* v) {
  return Register(reg, class_name, v, nullptr);
}
floe_status RegisterCatalog(floe_registrar* reg, const char* class_name,
                            const floe_catalog_vtable* v) {
  return Register(reg, class_name, nullptr, v);
}

// ---- row accessors

const ColumnVector* Column(const floe_row* row, int32_t column) {
  if (row == nullptr || row->batch == nullptr || column < 0 ||
      static_cast<size_t>(column) >= row->batch->columns.size()) {
    return nullptr;
  }
  return &row->batch->columns[static_cast<size_t>(column)];
}

int32_t TypeCode(TypeId id) {
  switch (id) {
    case TypeId::kBoolean: return FLOE_TYPE_BOOLEAN;
    case TypeId::kInt: return FLOE_TYPE_INT;
    case TypeId::kLong: return FLOE_TYPE_LONG;
    case TypeId::kFloat: return FLOE_TYPE_FLOAT;
    case TypeId::kDouble: return FLOE_TYPE_DOUBLE;
    case TypeId::kDecimal: return FLOE_TYPE_DECIMAL;
    case TypeId::kDate: return FLOE_TYPE_DATE;
    case TypeId::kTime: return FLOE_TYPE_TIME;
    case TypeId::kTimestamp: return FLOE_TYPE_TIMESTAMP;
    case TypeId::kTimestampTz: return FLOE_TYPE_TIMESTAMPTZ;
    case TypeId::kTimestampNs: return FLOE_TYPE_TIMESTAMP_NS;
    case TypeId::kTimestampTzNs: return FLOE_TYPE_TIMESTAMPTZ_NS;
    case TypeId::kString: return FLOE_TYPE_STRING;
    case TypeId::kUuid: return FLOE_TYPE_UUID;
    case TypeId::kFixed: return FLOE_TYPE_FIXED;
    case TypeId::kBinary: return FLOE_TYPE_BINARY;
    case TypeId::kStruct: return FLOE_TYPE_STRUCT;
    case TypeId::kList: return FLOE_TYPE_LIST;
    case TypeId::kMap: return FLOE_TYPE_MAP;
  }
  return -1;
}

int32_t RowColumnCount(const floe_row* row) {
  return row && row->batch ? static_cast<int32_t>(row->batch->columns.size()) : 0;
}

const char* RowColumnName(const floe_row* row, int32_t column) {
  if (!Column(row, column) || !row->batch->schema) return nullptr;
  const auto& fields = row->batch->schema->fields();
  if (static_cast<size_t>(column) >= fields.size()) return nullptr;
  return fields[static_cast<size_t>(column)].name.c_str();
}

int32_t RowColumnType(const floe_row* row, int32_t column) {
  const ColumnVector* c = Column(row, column);
  return c ? TypeCode(c->type->id) : -1;
}

bool RowIsNull(const floe_row* row, int32_t column) {
  const ColumnVector* c = Column(row, column);
  return c == nullptr || c->IsNull(row->row);
}

// The column when it exists and the value is present.
const ColumnVector* Present(const floe_row* row, int32_t column) {
  const ColumnVector* c = Column(row, column);
  if (c == nullptr || c->IsNull(row->row)) return nullptr;
  return c;
}

floe_status RowGetBool(const floe_row* row, int32_t column, bool* out) {
  const ColumnVector* c = Present(row, column);
  if (!c || c->type->id != TypeId::kBoolean || !out) return FLOE_INVALID_ARGUMENT;
  *out = c->data<uint8_t>()[row->row] != 0;
  return FLOE_OK;
}

floe_status RowGetInt64(const floe_row* row, int32_t column, int64_t* out) {
  const ColumnVector* c = Present(row, column);
  if (!c || !out) return FLOE_INVALID_ARGUMENT;
  switch (c->type->id) {
    case TypeId::kInt:
    case TypeId::kDate: *out = c->data<int32_t>()[row->row]; return FLOE_OK;
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: *out = c->data<int64_t>()[row->row]; return FLOE_OK;
    default: return FLOE_INVALID_ARGUMENT;
  }
}

floe_status RowGetDouble(const floe_row* row, int32_t column, double* out) {
  const ColumnVector* c = Present(row, column);
  if (!c || !out) return FLOE_INVALID_ARGUMENT;
  if (c->type->id == TypeId::kFloat) {
    *out = c->data<float>()[row->row];
  } else if (c->type->id == TypeId::kDouble) {
    *out = c->data<double>()[row->row];
  } else {
    return FLOE_INVALID_ARGUMENT;
  }
  return FLOE_OK;
}

floe_status RowGetBytes(const floe_row* row, int32_t column, const char** data, size_t* len) {
  const ColumnVector* c = Present(row, column);
  if (!c || !data || !len) return FLOE_INVALID_ARGUMENT;
  switch (c->type->id) {
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kUuid:
    case TypeId::kFixed: {
      std::string_view b = c->bytes(row->row);
      *data = b.data();
      *len = b.size();
      return FLOE_OK;
    }
    default: return FLOE_INVALID_ARGUMENT;
  }
}

floe_status RowGetJson(const floe_row* row, int32_t column, const char** data, size_t* len) {
  const ColumnVector* c = Column(row, column);
  if (!c || !data || !len) return FLOE_INVALID_ARGUMENT;
  auto* r = const_cast<floe_row*>(row);  // scratch is the row's own buffer
  r->scratch.clear();
  AppendJsonValue(*c, row->row, &r->scratch);
  *data = r->scratch.data();
  *len = r->scratch.size();
  return FLOE_OK;
}

floe_status RowGetText(const floe_row* row, int32_t column, const char** data, size_t* len) {
  const ColumnVector* c = Present(row, column);
  if (!c || !data || !len) return FLOE_INVALID_ARGUMENT;
  auto* r = const_cast<floe_row*>(row);
  r->scratch.clear();
  switch (c->type->id) {
    case TypeId::kString: return RowGetBytes(row, column, data, len);
    case TypeId::kBinary:
    case TypeId::kFixed: AppendHex(c->bytes(row->row), &r->scratch); break;
    default: {
      // The canonical JSON without the quotes of the scalars printed as
      // strings (decimal, date, time, timestamps, uuid); nested stay JSON.
      AppendJsonValue(*c, row->row, &r->scratch);
      if (!c->type->is_nested() && r->scratch.size() >= 2 && r->scratch.front() == '"') {
        r->scratch = r->scratch.substr(1, r->scratch.size() - 2);
      }
    }
  }
  *data = r->scratch.data();
  *len = r->scratch.size();
  return FLOE_OK;
}

const floe_host_api kHostApi = {
    sizeof(floe_host_api),
    FLOE_PLUGIN_ABI_MAJOR,
    FLOE_PLUGIN_ABI_MINOR,
    0,
    SetError,
    SetOutput,
    Log,
    RegisterSink,
    RegisterCatalog,
    RowColumnCount,
    RowColumnName,
    RowColumnType,
    RowIsNull,
    RowGetBool,
    RowGetInt64,
    RowGetDouble,
    RowGetBytes,
    RowGetText,
    RowGetJson,
};

}  // namespace

const floe_host_api* HostApi() { return &kHostApi; }

CallGuard::CallGuard(const char* class_name, const char* call, bool commits, const char* who)
    : prev_class_(t_class), prev_call_(t_call), prev_who_(t_who), prev_commits_(t_commits) {
  t_class = class_name;
  t_call = call;
  t_who = who;
  t_commits = commits;
}

CallGuard::~CallGuard() {
  t_class = prev_class_;
  t_call = prev_call_;
  t_who = prev_who_;
  t_commits = prev_commits_;
}

void InstallCrashHandlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : kSignals) {
      struct sigaction sa;
      std::memset(&sa, 0, sizeof(sa));
      sa.sa_sigaction = OnCrash;
      sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
      sigemptyset(&sa.sa_mask);
      ::sigaction(sig, &sa, &g_previous[sig]);
    }
#ifdef __GLIBC__
    (void)::on_exit(OnExit, nullptr);
#else
    (void)std::atexit(OnExit);
#endif
    (void)std::at_quick_exit(OnQuickExit);
  });
}

Error PluginError(std::string_view class_name, std::string_view call, floe_status status,
                  const floe_error& err) {
  ErrorKind kind = ErrorKind::kIo;
  bool retryable = false;
  std::string note;
  switch (status) {
    case FLOE_INVALID_ARGUMENT: kind = ErrorKind::kInvalidArgument; break;
    case FLOE_UNSUPPORTED: kind = ErrorKind::kUnsupported; break;
    case FLOE_RETRYABLE: retryable = true; break;
    case FLOE_FATAL: break;
    case FLOE_NOT_FOUND: kind = ErrorKind::kNotFound; break;
    case FLOE_ALREADY_EXISTS: kind = ErrorKind::kAlreadyExists; break;
    case FLOE_COMMIT_FAILED:
      kind = ErrorKind::kCommitFailed;
      retryable = true;
      break;
    case FLOE_COMMIT_STATE_UNKNOWN: kind = ErrorKind::kCommitStateUnknown; break;
    default: note = fmt::format(" (unknown status code {})", status); break;
  }
  std::string message = err.set && !err.message.empty() ? err.message : "failed without a message";
  return Error{kind,
               fmt::format("floe.PluginException: {}: {}: {}{}", class_name, call, message, note),
               retryable};
}

}  // namespace floe::plugin::internal
