/* An example floe sink plugin: upserts into a PostgreSQL table (libpq).
 *
 * Class com.example.PgUpsertSink. Parameter: a libpq conninfo plus two words
 * of its own, space-separated (values without spaces or quotes):
 *   host=127.0.0.1 port=5432 dbname=app user=floe table=public.users key=id
 * `table` is the target table (schema-qualified or not), `key` its primary
 * key column (one column). The table's columns are named as the sink's.
 *
 * Rows: flag true (+I, +U) -> INSERT ... ON CONFLICT (key) DO UPDATE SET
 * <other columns> = EXCLUDED.<...>; flag false (-D) -> DELETE ... WHERE
 * key = $1. An upsert stream: -U rows are not asked for (no
 * FLOE_SINK_WANTS_UPDATE_BEFORE). Values are passed as text
 * (host->row_get_text) and PostgreSQL casts them to the column types.
 *
 * Transactions and exactly-once. Rows go into one open transaction per
 * checkpoint. prepare_commit(N) records N in the table floe_sink_commits
 * (sink, checkpoint_id) inside that same transaction; commit(N) COMMITs it,
 * so the rows and the marker land together or not at all. A replayed
 * commit(N) (after a restart, on a new instance, or a second call) finds no
 * open transaction and reads the marker: N already recorded -> nothing to
 * do (idempotent). N not recorded means the session that held the prepared
 * transaction died before COMMIT: commit fails with FLOE_FATAL saying so,
 * and the engine restarts from the last committed checkpoint; because every
 * write is an upsert or delete by key, replaying the same changes converges
 * to the same table state. (PostgreSQL's PREPARE TRANSACTION would close that
 * window, but needs max_prepared_transactions > 0, which is off by default.)
 * close without commit rolls back: nothing uncommitted survives.
 */
#include <floe/plugin.h>

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

FLOE_PLUGIN_MANIFEST("pg-upsert-sink-example", "1.0");

static const floe_host_api* host;

typedef struct {
  PGconn* conn;
  char table[256], key[128], sink_id[300];
  int subtask;
  int in_tx;        /* a transaction is open */
  char* upsert_sql; /* built on the first row (columns are fixed) */
  char* delete_sql;
  int key_column;
} PgSink;

static floe_status fail(floe_error* err, floe_status st, const char* what, const char* detail) {
  char msg[1024];
  snprintf(msg, sizeof msg, "%s%s%s", what, detail ? ": " : "", detail ? detail : "");
  size_t n = strlen(msg);
  while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' ')) msg[--n] = '\0';
  host->set_error(err, msg, n);
  return st;
}

/* Runs a statement without results; a failure is the server's message. */
static floe_status run(PgSink* s, const char* sql, int n, const char* const* params,
                       floe_error* err) {
  PGresult* r = PQexecParams(s->conn, sql, n, NULL, params, NULL, NULL, 0);
  ExecStatusType st = PQresultStatus(r);
  floe_status out = FLOE_OK;
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
    out = fail(err, PQstatus(s->conn) == CONNECTION_OK ? FLOE_FATAL : FLOE_RETRYABLE, sql,
               PQerrorMessage(s->conn));
  }
  PQclear(r);
  return out;
}

/* Server notices (CREATE TABLE IF NOT EXISTS ... skipping) are not for floe's stderr. */
static void ignore_notice(void* arg, const char* message) {
  (void)arg;
  (void)message;
}

static floe_status begin(PgSink* s, floe_error* err) {
  if (s->in_tx) return FLOE_OK;
  floe_status st = run(s, "BEGIN", 0, NULL, err);
  if (st == FLOE_OK) s->in_tx = 1;
  return st;
}

static floe_status pg_create(const floe_sink_context* ctx, void** state, floe_error* err) {
  PgSink* s = calloc(1, sizeof *s);
  if (!s) return fail(err, FLOE_FATAL, "out of memory", NULL);
  s->subtask = ctx->subtask;
  s->key_column = -1;
  *state = s;
  return FLOE_OK;
}

/* Splits table= and key= off the parameter; the rest is the conninfo. */
static floe_status pg_open(void* state, const char* parameter, size_t len, floe_error* err) {
  PgSink* s = state;
  char* conninfo = calloc(1, len + 1);
  char* copy = strdup(parameter);
  for (char* w = strtok(copy, " \t"); w; w = strtok(NULL, " \t")) {
    if (strncmp(w, "table=", 6) == 0)
      snprintf(s->table, sizeof s->table, "%s", w + 6);
    else if (strncmp(w, "key=", 4) == 0)
      snprintf(s->key, sizeof s->key, "%s", w + 4);
    else {
      strcat(conninfo, w);
      strcat(conninfo, " ");
    }
  }
  free(copy);
  if (!s->table[0] || !s->key[0]) {
    free(conninfo);
    return fail(err, FLOE_INVALID_ARGUMENT, "the parameter needs table=NAME and key=COLUMN", NULL);
  }
  s->conn = PQconnectdb(conninfo);
  free(conninfo);
  if (PQstatus(s->conn) != CONNECTION_OK) {
    return fail(err, FLOE_RETRYABLE, "cannot connect to PostgreSQL", PQerrorMessage(s->conn));
  }
  PQsetNoticeProcessor(s->conn, ignore_notice, NULL);
  snprintf(s->sink_id, sizeof s->sink_id, "%s#%d", s->table, s->subtask);
  return run(s,
             "CREATE TABLE IF NOT EXISTS floe_sink_commits (sink text PRIMARY KEY, "
             "checkpoint_id bigint NOT NULL)",
             0, NULL, err);
}

/* Builds the two statements from the row's column names. */
static floe_status build_sql(PgSink* s, const floe_row* row, floe_error* err) {
  int n = host->row_column_count(row);
  size_t cap = 256 + (size_t)n * 300;
  char *cols = calloc(1, cap), *vals = calloc(1, cap), *sets = calloc(1, cap);
  for (int c = 0; c < n; ++c) {
    const char* name = host->row_column_name(row, c);
    char buf[300];
    if (strcmp(name, s->key) == 0) s->key_column = c;
    snprintf(buf, sizeof buf, "%s\"%s\"", c ? ", " : "", name);
    strcat(cols, buf);
    snprintf(buf, sizeof buf, "%s$%d", c ? ", " : "", c + 1);
    strcat(vals, buf);
    if (strcmp(name, s->key) != 0) {
      snprintf(buf, sizeof buf, "%s\"%s\" = EXCLUDED.\"%s\"", sets[0] ? ", " : "", name, name);
      strcat(sets, buf);
    }
  }
  floe_status st = FLOE_OK;
  if (s->key_column < 0) {
    st = fail(err, FLOE_INVALID_ARGUMENT, "the key column is not a column of the sink", s->key);
  } else {
    s->upsert_sql = malloc(4 * cap);
    snprintf(s->upsert_sql, 4 * cap, "INSERT INTO %s (%s) VALUES (%s) ON CONFLICT (\"%s\") DO %s%s",
             s->table, cols, vals, s->key, sets[0] ? "UPDATE SET " : "NOTHING", sets);
    s->delete_sql = malloc(600);
    snprintf(s->delete_sql, 600, "DELETE FROM %s WHERE \"%s\" = $1", s->table, s->key);
  }
  free(cols);
  free(vals);
  free(sets);
  return st;
}

static floe_status pg_invoke(void* state, bool flag, const floe_row* row, floe_error* err) {
  PgSink* s = state;
  if (!s->upsert_sql) {
    floe_status st = build_sql(s, row, err);
    if (st != FLOE_OK) return st;
  }
  floe_status st = begin(s, err);
  if (st != FLOE_OK) return st;
  int n = host->row_column_count(row);
  /* Text values point into the row's scratch, valid until the next accessor
   * call: copy them. */
  char** params = calloc((size_t)n, sizeof *params);
  for (int c = 0; c < n; ++c) {
    const char* text;
    size_t len;
    if (host->row_is_null(row, c) || host->row_get_text(row, c, &text, &len) != FLOE_OK) continue;
    params[c] = malloc(len + 1);
    memcpy(params[c], text, len);
    params[c][len] = '\0';
  }
  if (flag) {
    st = run(s, s->upsert_sql, n, (const char* const*)params, err);
  } else {
    const char* key = params[s->key_column];
    st = run(s, s->delete_sql, 1, &key, err);
  }
  for (int c = 0; c < n; ++c) free(params[c]);
  free(params);
  return st;
}

static floe_status pg_prepare_commit(void* state, int64_t ckpt, floe_bytes_out* blob,
                                     floe_error* err) {
  PgSink* s = state;
  floe_status st = begin(s, err);
  if (st != FLOE_OK) return st;
  char id[32];
  snprintf(id, sizeof id, "%lld", (long long)ckpt);
  const char* params[2] = {s->sink_id, id};
  st = run(s,
           "INSERT INTO floe_sink_commits (sink, checkpoint_id) VALUES ($1, $2) ON CONFLICT (sink) "
           "DO UPDATE SET checkpoint_id = EXCLUDED.checkpoint_id",
           2, params, err);
  if (st != FLOE_OK) return st;
  char text[400];
  snprintf(text, sizeof text, "%s %lld", s->sink_id, (long long)ckpt);
  host->set_output(blob, text, strlen(text));
  return FLOE_OK;
}

static floe_status pg_commit(void* state, int64_t ckpt, const void* blob, size_t len,
                             floe_error* err) {
  PgSink* s = state;
  (void)blob;
  (void)len;
  if (s->in_tx) {
    s->in_tx = 0;
    return run(s, "COMMIT", 0, NULL, err);
  }
  /* A replay: committed already if the marker says so. */
  const char* params[1] = {s->sink_id};
  PGresult* r = PQexecParams(s->conn, "SELECT checkpoint_id FROM floe_sink_commits WHERE sink = $1",
                             1, NULL, params, NULL, NULL, 0);
  long long done = -1;
  if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1) done = atoll(PQgetvalue(r, 0, 0));
  PQclear(r);
  if (done >= ckpt) return FLOE_OK;
  char msg[200];
  snprintf(msg, sizeof msg,
           "checkpoint %lld was prepared in a session that ended before COMMIT (last "
           "committed: %lld): replay from there",
           (long long)ckpt, done);
  return fail(err, FLOE_FATAL, msg, NULL);
}

static floe_status pg_abort(void* state, int64_t ckpt, floe_error* err) {
  PgSink* s = state;
  (void)ckpt;
  if (!s->in_tx) return FLOE_OK;
  s->in_tx = 0;
  return run(s, "ROLLBACK", 0, NULL, err);
}

static floe_status pg_close(void* state, floe_error* err) {
  return pg_abort(state, -1, err); /* what was not committed is dropped */
}

static void pg_destroy(void* state) {
  PgSink* s = state;
  if (s->conn) PQfinish(s->conn);
  free(s->upsert_sql);
  free(s->delete_sql);
  free(s);
}

static const floe_sink_vtable pg_sink = {
    .struct_size = sizeof(floe_sink_vtable),
    .capabilities = FLOE_SINK_ACCEPTS_DELETES | FLOE_SINK_TWO_PHASE,
    .create = pg_create,
    .open = pg_open,
    .invoke = pg_invoke,
    .prepare_commit = pg_prepare_commit,
    .commit = pg_commit,
    .abort = pg_abort,
    .close = pg_close,
    .destroy = pg_destroy,
};

FLOE_PLUGIN_INIT(h, reg, err) {
  (void)err;
  host = h;
  return host->register_sink(reg, "com.example.PgUpsertSink", &pg_sink);
}
