/* An example floe sink plugin: the whole ABI in one C file.
 *
 * Class com.example.JsonlSink writes one line per row to the file named by
 * its parameter `path=FILE`: {"op":true,"row":{"id":1,"name":"a"}}, where
 * op is Flink's retract flag (true: +I/+U, false: -U/-D) and the values are
 * floe's canonical JSON (host->row_get_json).
 *
 *   CREATE TABLE out (id BIGINT, name STRING) WITH (
 *     'connector.type' = 'user-defined',
 *     'connector.class-name' = 'com.example.JsonlSink',
 *     'connector.class-parameter' = 'path=/tmp/out.jsonl');
 *
 * Build: cc -shared -fPIC -fvisibility=hidden -I<floe>/include jsonl_sink.c -o libjsonl_sink.so
 */
#include <floe/plugin.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

FLOE_PLUGIN_MANIFEST("jsonl-sink-example", "1.0");

static const floe_host_api* host;

typedef struct {
  FILE* out;
} JsonlSink;

static floe_status fail(floe_error* err, floe_status status, const char* what, const char* detail) {
  char msg[512];
  snprintf(msg, sizeof msg, "%s%s%s", what, detail ? ": " : "", detail ? detail : "");
  host->set_error(err, msg, strlen(msg));
  return status;
}

static floe_status sink_create(const floe_sink_context* ctx, void** state, floe_error* err) {
  (void)ctx;
  JsonlSink* s = calloc(1, sizeof *s);
  if (!s) return fail(err, FLOE_FATAL, "out of memory", NULL);
  *state = s;
  return FLOE_OK;
}

/* The parameter is `path=FILE` (the file is created or truncated). */
static floe_status sink_open(void* state, const char* parameter, size_t len, floe_error* err) {
  JsonlSink* s = state;
  if (len < 6 || strncmp(parameter, "path=", 5) != 0) {
    return fail(err, FLOE_INVALID_ARGUMENT, "the parameter must be path=FILE, got", parameter);
  }
  s->out = fopen(parameter + 5, "w");
  if (!s->out) return fail(err, FLOE_INVALID_ARGUMENT, parameter + 5, strerror(errno));
  return FLOE_OK;
}

/* Writes a JSON string literal of a column name (names are plain UTF-8). */
static void put_name(FILE* out, const char* name) {
  fputc('"', out);
  for (const char* p = name; *p; ++p) {
    if (*p == '"' || *p == '\\') fputc('\\', out);
    if ((unsigned char)*p < 0x20)
      fprintf(out, "\\u%04x", *p);
    else
      fputc(*p, out);
  }
  fputc('"', out);
}

static floe_status sink_invoke(void* state, bool flag, const floe_row* row, floe_error* err) {
  JsonlSink* s = state;
  fprintf(s->out, "{\"op\":%s,\"row\":{", flag ? "true" : "false");
  int32_t n = host->row_column_count(row);
  for (int32_t c = 0; c < n; ++c) {
    const char* json;
    size_t json_len;
    if (host->row_get_json(row, c, &json, &json_len) != FLOE_OK) {
      return fail(err, FLOE_FATAL, "cannot read column", host->row_column_name(row, c));
    }
    if (c) fputc(',', s->out);
    put_name(s->out, host->row_column_name(row, c));
    fputc(':', s->out);
    fwrite(json, 1, json_len, s->out);
  }
  fputs("}}\n", s->out);
  if (ferror(s->out)) return fail(err, FLOE_FATAL, "write failed", strerror(errno));
  return FLOE_OK;
}

static floe_status sink_flush(void* state, bool end_of_input, floe_error* err) {
  JsonlSink* s = state;
  (void)end_of_input;
  if (fflush(s->out) != 0) return fail(err, FLOE_RETRYABLE, "flush failed", strerror(errno));
  return FLOE_OK;
}

static floe_status sink_close(void* state, floe_error* err) {
  JsonlSink* s = state;
  FILE* out = s->out;
  s->out = NULL;
  if (out && fclose(out) != 0) return fail(err, FLOE_FATAL, "close failed", strerror(errno));
  return FLOE_OK;
}

static void sink_destroy(void* state) {
  JsonlSink* s = state;
  if (s->out) fclose(s->out);
  free(s);
}

static const floe_sink_vtable jsonl_sink = {
    .struct_size = sizeof(floe_sink_vtable),
    /* A retract stream: deletes and update-befores arrive with op=false. */
    .capabilities = FLOE_SINK_ACCEPTS_DELETES | FLOE_SINK_WANTS_UPDATE_BEFORE,
    .create = sink_create,
    .open = sink_open,
    .invoke = sink_invoke,
    .flush = sink_flush,
    .close = sink_close,
    .destroy = sink_destroy,
};

FLOE_PLUGIN_INIT(h, reg, err) {
  (void)err;
  host = h;
  return host->register_sink(reg, "com.example.JsonlSink", &jsonl_sink);
}
