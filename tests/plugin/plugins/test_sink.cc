// The test sink plugin (plugin_test): records every call in a log file and
// fails or crashes where its parameter says. A C++ plugin of the C ABI:
// every entry point catches everything (nothing unwinds into floe).
//
// Parameter: space-separated `key=value` words:
//   log=PATH          append one line per call to PATH
//   fail=CALL[:N]     fail CALL (create, open, invoke, write_batch, flush,
//                     prepare_commit, commit, close); invoke:N fails the Nth
//                     invoke (1-based)
//   crash=CALL        SIGSEGV inside CALL (open, invoke, commit, close, destroy)
//   abort=CALL        abort() inside CALL
//   exit=CALL         exit(0) inside CALL (a plugin ending the process)
//
// Classes: test.RecordingSink (invoke; deletes accepted, upsert stream),
// test.RetractSink (invoke; deletes and -U), test.AppendSink (invoke;
// inserts only), test.BatchSink (write_batch, two-phase; dumps the Arrow
// arrays with its own reader of the Arrow C Data Interface).

#include <floe/plugin.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

FLOE_PLUGIN_MANIFEST("floe-test-sink", "1.0");

namespace {

const floe_host_api* g_host = nullptr;

struct Sink {
  std::string class_name;
  std::map<std::string, std::string> param;
  std::string log;
  int invokes = 0;
  std::string fail_call;
  int fail_at = 0;
  std::string crash_call, abort_call, exit_call;
  std::string context_line;
};

void Log(Sink* s, const std::string& line) {
  if (s->log.empty()) return;
  std::ofstream out(s->log, std::ios::app);
  out << line << "\n";
}

floe_status Error(floe_error* err, const std::string& msg, floe_status st = FLOE_FATAL) {
  g_host->set_error(err, msg.data(), msg.size());
  return st;
}

// Fails, crashes or aborts in `call` as the parameter asks.
floe_status Maybe(Sink* s, const char* call, floe_error* err) {
  if (s->crash_call == call) {
    volatile int* p = nullptr;
    *p = 1;  // SIGSEGV
  }
  if (s->abort_call == call) std::abort();
  if (s->exit_call == call) std::exit(0);
  if (s->fail_call == call && (s->fail_at == 0 || s->fail_at == s->invokes)) {
    return Error(err, std::string("asked to fail in ") + call +
                          (s->fail_at ? " at call " + std::to_string(s->fail_at) : ""));
  }
  return FLOE_OK;
}

floe_status Create(const floe_sink_context* ctx, void** state, floe_error* err) {
  try {
    auto* s = new Sink;
    s->class_name = ctx->class_name;
    std::ostringstream line;
    line << "create " << ctx->class_name << " subtask=" << ctx->subtask
         << " parallelism=" << ctx->parallelism << " columns=" << ctx->schema->n_children;
    for (size_t i = 0; i < ctx->option_count; ++i) {
      line << " " << ctx->options[i].key << "=" << ctx->options[i].value;
      if (std::string(ctx->options[i].key) == "log") s->log = ctx->options[i].value;
    }
    s->context_line = line.str();
    *state = s;
    return FLOE_OK;
  } catch (...) {
    return Error(err, "create threw");
  }
}

floe_status Open(void* state, const char* parameter, size_t len, floe_error* err) {
  auto* s = static_cast<Sink*>(state);
  std::istringstream words(std::string(parameter, len));
  std::string w;
  while (words >> w) {
    auto eq = w.find('=');
    if (eq == std::string::npos)
      return Error(err, "parameter word '" + w + "' is not key=value", FLOE_INVALID_ARGUMENT);
    s->param[w.substr(0, eq)] = w.substr(eq + 1);
  }
  if (s->param.count("log")) s->log = s->param["log"];
  if (s->param.count("fail")) {
    std::string f = s->param["fail"];
    auto colon = f.find(':');
    s->fail_call = f.substr(0, colon);
    if (colon != std::string::npos) s->fail_at = std::atoi(f.c_str() + colon + 1);
  }
  if (s->param.count("crash")) s->crash_call = s->param["crash"];
  if (s->param.count("abort")) s->abort_call = s->param["abort"];
  if (s->param.count("exit")) s->exit_call = s->param["exit"];
  Log(s, s->context_line);
  Log(s, "open " + std::string(parameter, len) +
             " (NUL-terminated: " + (parameter[len] == '\0' ? "yes" : "no") + ")");
  return Maybe(s, "open", err);
}

// The row through the host's accessors: name=json per column.
std::string RowText(const floe_row* row) {
  std::string out;
  int32_t n = g_host->row_column_count(row);
  for (int32_t c = 0; c < n; ++c) {
    const char* data;
    size_t len;
    g_host->row_get_json(row, c, &data, &len);
    if (c) out += " ";
    out += g_host->row_column_name(row, c);
    out += "=";
    out.append(data, len);
  }
  return out;
}

floe_status Invoke(void* state, bool flag, const floe_row* row, floe_error* err) {
  auto* s = static_cast<Sink*>(state);
  ++s->invokes;
  Log(s, std::string("invoke ") + (flag ? "true " : "false ") + RowText(row));
  return Maybe(s, "invoke", err);
}

// ---- a reader of the Arrow C Data Interface, enough to print every type

bool Bit(const void* bitmap, int64_t i) {
  return (static_cast<const uint8_t*>(bitmap)[i >> 3] >> (i & 7)) & 1;
}

std::string Hex(const uint8_t* p, size_t n) {
  static const char* d = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    out += d[p[i] >> 4];
    out += d[p[i] & 15];
  }
  return out;
}

std::string Int128(__int128 v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  unsigned __int128 u =
      neg ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string s;
  while (u) {
    s.insert(s.begin(), char('0' + int(u % 10)));
    u /= 10;
  }
  return neg ? "-" + s : s;
}

std::string Value(const ArrowSchema* s, const ArrowArray* a, int64_t i) {
  i += a->offset;
  std::string f = s->format;
  if (a->buffers[0] && !Bit(a->buffers[0], i)) return "null";
  auto buf = [&](int k) { return a->buffers[k]; };
  if (f == "b") return Bit(buf(1), i) ? "true" : "false";
  if (f == "i" || f == "tdD") return std::to_string(static_cast<const int32_t*>(buf(1))[i]);
  if (f == "l" || f == "ttu" || f.rfind("ts", 0) == 0)
    return std::to_string(static_cast<const int64_t*>(buf(1))[i]);
  char tmp[64];
  if (f == "f") {
    std::snprintf(tmp, sizeof tmp, "%.9g", static_cast<const float*>(buf(1))[i]);
    return tmp;
  }
  if (f == "g") {
    std::snprintf(tmp, sizeof tmp, "%.17g", static_cast<const double*>(buf(1))[i]);
    return tmp;
  }
  if (f.rfind("d:", 0) == 0) {
    __int128 v;
    std::memcpy(&v, static_cast<const uint8_t*>(buf(1)) + 16 * i, 16);
    return "dec(" + Int128(v) + "," + f.substr(f.find(',') + 1) + ")";
  }
  if (f == "U" || f == "Z") {
    const int64_t* o = static_cast<const int64_t*>(buf(1));
    const char* d = static_cast<const char*>(buf(2));
    std::string v(d + o[i], static_cast<size_t>(o[i + 1] - o[i]));
    return f == "U" ? "\"" + v + "\""
                    : "0x" + Hex(reinterpret_cast<const uint8_t*>(v.data()), v.size());
  }
  if (f.rfind("w:", 0) == 0) {
    size_t w = static_cast<size_t>(std::atoi(f.c_str() + 2));
    return "0x" + Hex(static_cast<const uint8_t*>(buf(1)) + w * i, w);
  }
  if (f == "+s") {
    std::string out = "{";
    for (int64_t c = 0; c < a->n_children; ++c) {
      if (c) out += ",";
      out += std::string(s->children[c]->name) + ":" + Value(s->children[c], a->children[c], i);
    }
    return out + "}";
  }
  if (f == "+L") {
    const int64_t* o = static_cast<const int64_t*>(buf(1));
    std::string out = "[";
    for (int64_t k = o[i]; k < o[i + 1]; ++k) {
      if (k > o[i]) out += ",";
      out += Value(s->children[0], a->children[0], k);
    }
    return out + "]";
  }
  if (f == "+m") {
    const int32_t* o = static_cast<const int32_t*>(buf(1));
    const ArrowSchema* es = s->children[0];
    const ArrowArray* ea = a->children[0];
    std::string out = "{";
    for (int32_t k = o[i]; k < o[i + 1]; ++k) {
      if (k > o[i]) out += ",";
      out += Value(es->children[0], ea->children[0], k) + "=>" +
             Value(es->children[1], ea->children[1], k);
    }
    return out + "}";
  }
  return "?" + f;
}

// name:format[:nullable][:meta key=value...]
std::string Describe(const ArrowSchema* s) {
  std::string out = std::string(s->name) + ":" + s->format;
  if (s->flags & ARROW_FLAG_NULLABLE) out += ":nullable";
  if (s->metadata) {
    const char* p = s->metadata;
    int32_t n;
    std::memcpy(&n, p, 4);
    p += 4;
    for (int32_t k = 0; k < n; ++k) {
      int32_t kl, vl;
      std::memcpy(&kl, p, 4);
      std::string key(p + 4, kl);
      p += 4 + kl;
      std::memcpy(&vl, p, 4);
      std::string value(p + 4, vl);
      p += 4 + vl;
      out += ":" + key + "=" + value;
    }
  }
  if (s->n_children) {
    out += "<";
    for (int64_t c = 0; c < s->n_children; ++c) out += (c ? "," : "") + Describe(s->children[c]);
    out += ">";
  }
  return out;
}

floe_status WriteBatch(void* state, const ArrowSchema* schema, const ArrowArray* array,
                       const int8_t* kinds, floe_error* err) {
  auto* s = static_cast<Sink*>(state);
  ++s->invokes;
  Log(s, "write_batch rows=" + std::to_string(array->length) + " schema=" + Describe(schema));
  for (int64_t i = 0; i < array->length; ++i) {
    std::string line = "  kind=" + std::to_string(kinds[i]);
    for (int64_t c = 0; c < array->n_children; ++c) {
      line += " " + std::string(schema->children[c]->name) + "=" +
              Value(schema->children[c], array->children[c], i);
    }
    Log(s, line);
  }
  return Maybe(s, "write_batch", err);
}

floe_status Flush(void* state, bool end, floe_error* err) {
  auto* s = static_cast<Sink*>(state);
  Log(s, std::string("flush end_of_input=") + (end ? "true" : "false"));
  return Maybe(s, "flush", err);
}

floe_status PrepareCommit(void* state, int64_t ckpt, floe_bytes_out* blob, floe_error* err) {
  auto* s = static_cast<Sink*>(state);
  Log(s, "prepare_commit " + std::to_string(ckpt));
  std::string b = "blob-" + std::to_string(ckpt);
  g_host->set_output(blob, b.data(), b.size());
  return Maybe(s, "prepare_commit", err);
}

floe_status Commit(void* state, int64_t ckpt, const void* blob, size_t len, floe_error* err) {
  auto* s = static_cast<Sink*>(state);
  Log(s, "commit " + std::to_string(ckpt) + " " + std::string(static_cast<const char*>(blob), len));
  return Maybe(s, "commit", err);
}

floe_status Abort(void* state, int64_t ckpt, floe_error* err) {
  auto* s = static_cast<Sink*>(state);
  Log(s, "abort " + std::to_string(ckpt));
  return FLOE_OK;
}

floe_status Close(void* state, floe_error* err) {
  auto* s = static_cast<Sink*>(state);
  Log(s, "close");
  return Maybe(s, "close", err);
}

void Destroy(void* state) {
  auto* s = static_cast<Sink*>(state);
  Log(s, "destroy");
  (void)Maybe(s, "destroy", nullptr);  // crash= or exit= only: destroy cannot fail
  delete s;
}

constexpr floe_sink_vtable MakeVtable(uint32_t caps, bool batch) {
  floe_sink_vtable v{};
  v.struct_size = sizeof(floe_sink_vtable);
  v.capabilities = caps;
  v.create = Create;
  v.open = Open;
  v.invoke = batch ? nullptr : Invoke;
  v.write_batch = batch ? WriteBatch : nullptr;
  v.flush = Flush;
  v.prepare_commit = PrepareCommit;
  v.commit = Commit;
  v.abort = Abort;
  v.close = Close;
  v.destroy = Destroy;
  return v;
}

const floe_sink_vtable kRecording = MakeVtable(FLOE_SINK_ACCEPTS_DELETES, false);
const floe_sink_vtable kRetract =
    MakeVtable(FLOE_SINK_ACCEPTS_DELETES | FLOE_SINK_WANTS_UPDATE_BEFORE, false);
const floe_sink_vtable kAppend = MakeVtable(0, false);
const floe_sink_vtable kBatch = MakeVtable(FLOE_SINK_ACCEPTS_DELETES | FLOE_SINK_TWO_PHASE, true);

}  // namespace

FLOE_PLUGIN_INIT(host, reg, err) {
  g_host = host;
  if (host->register_sink(reg, "test.RecordingSink", &kRecording) != FLOE_OK) return FLOE_FATAL;
  if (host->register_sink(reg, "test.RetractSink", &kRetract) != FLOE_OK) return FLOE_FATAL;
  if (host->register_sink(reg, "test.AppendSink", &kAppend) != FLOE_OK) return FLOE_FATAL;
  if (host->register_sink(reg, "test.BatchSink", &kBatch) != FLOE_OK) return FLOE_FATAL;
  return FLOE_OK;
}
