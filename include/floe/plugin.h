/* floe plugin ABI: user-defined sinks and catalogs in a shared library.
 *
 * A plugin is a shared library (built as a module: `add_library(x MODULE ...)`)
 * that exports two symbols:
 *
 *   const floe_manifest floe_plugin_manifest;   (FLOE_PLUGIN_MANIFEST(name, version))
 *   floe_status floe_plugin_init(const floe_host_api* host, floe_registrar* reg,
 *                                floe_error* err);
 *
 * floe opens the library with dlopen(RTLD_NOW | RTLD_LOCAL), reads the
 * manifest before calling into the plugin (only the library's own static
 * constructors have run by then) and refuses the library unless the
 * magic matches, the ABI major version equals the host's and the ABI minor
 * version is not newer than the host's. It then calls floe_plugin_init once,
 * which registers classes by name (host->register_sink / register_catalog).
 * A class name is what `connector.class-name` (sinks) or `catalog-impl`
 * (catalogs) selects; it is matched exactly and must be unique in the process.
 *
 * Versioning. Every struct passed across the boundary starts with
 * `uint32_t struct_size` (sizeof as the side that filled it was compiled).
 * Fields are only ever appended, within one major version: a reader looks
 * at a field only when struct_size covers it (FLOE_HAS_FIELD). A plugin
 * built against ABI 1.k runs on any host 1.m with m >= k.
 *
 * Errors. Every call returns a floe_status. A call that fails sets a message
 * with host->set_error(err, ...) (copied at once) and returns a non-OK code.
 * Nothing may unwind across the boundary: a C++ plugin catches every
 * exception in each entry point. floe reports a failed call as
 *   floe.PluginException: <class>: <call>: <message>
 * A crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL, abort) inside a plugin call ends
 * the process with exit code 70 after printing
 *   floe.PluginException: plugin class <class> crashed in <call> (SIGSEGV)
 * so that nothing that depends on the plugin's work is committed.
 *
 * Threads. floe makes one instance per writer subtask. Calls on one instance
 * are serialized but may come from different threads. floe_plugin_init runs
 * once per library, under a lock. A library is never unloaded while an
 * instance of one of its classes exists.
 *
 * Memory. Pointers floe passes are valid for the duration of the call only
 * (copy what you keep). Pointers a plugin passes to floe (names, vtables) must
 * stay valid until the library is unloaded: use static storage.
 *
 * This header is C (C99 and later) and is installed as <floe/plugin.h>.
 */
#ifndef FLOE_PLUGIN_H_
#define FLOE_PLUGIN_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- versions */

#define FLOE_PLUGIN_ABI_MAJOR 1
#define FLOE_PLUGIN_ABI_MINOR 0
/* "FLOEPLUG" as a little-endian 64-bit number. */
#define FLOE_PLUGIN_MAGIC 0x47554C50454F4C46ULL

/* Whether a struct filled by the other side, of size `s->struct_size`, holds `field`. */
#define FLOE_HAS_FIELD(s, type, field) \
  ((s)->struct_size >= offsetof(type, field) + sizeof(((type*)0)->field))

#if defined(_WIN32)
#define FLOE_PLUGIN_EXPORT __declspec(dllexport)
#else
#define FLOE_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* What a plugin declares about itself; read before any plugin code runs. */
typedef struct floe_manifest {
  uint32_t struct_size; /* sizeof(floe_manifest) */
  uint32_t abi_major;   /* FLOE_PLUGIN_ABI_MAJOR the plugin was built with */
  uint64_t magic;       /* FLOE_PLUGIN_MAGIC */
  uint32_t abi_minor;   /* FLOE_PLUGIN_ABI_MINOR the plugin was built with */
  uint32_t reserved;    /* 0 */
  const char* name;     /* the plugin's name, for messages and SHOW JARS */
  const char* version;  /* the plugin's own version text */
} floe_manifest;

#ifdef __cplusplus
#define FLOE_PLUGIN_EXTERN_C extern "C"
#else
#define FLOE_PLUGIN_EXTERN_C extern
#endif

/* Defines the manifest symbol; use once in a plugin, at file scope. */
#define FLOE_PLUGIN_MANIFEST(plugin_name, plugin_version)                               \
  FLOE_PLUGIN_EXTERN_C FLOE_PLUGIN_EXPORT const floe_manifest floe_plugin_manifest;      \
  const floe_manifest floe_plugin_manifest = {sizeof(floe_manifest),                     \
                                              FLOE_PLUGIN_ABI_MAJOR,                     \
                                              FLOE_PLUGIN_MAGIC,                         \
                                              FLOE_PLUGIN_ABI_MINOR,                     \
                                              0,                                         \
                                              (plugin_name),                             \
                                              (plugin_version)}

/* Starts the definition of the entry point:
 *   FLOE_PLUGIN_INIT(host, reg, err) { ... register classes ...; return FLOE_OK; } */
#define FLOE_PLUGIN_INIT(host, reg, err)                                              \
  FLOE_PLUGIN_EXTERN_C FLOE_PLUGIN_EXPORT floe_status floe_plugin_init(              \
      const floe_host_api* host, floe_registrar* reg, floe_error* err)

#define FLOE_PLUGIN_MANIFEST_SYMBOL "floe_plugin_manifest"
#define FLOE_PLUGIN_INIT_SYMBOL "floe_plugin_init"

/* ------------------------------------------------------------------ status */

typedef int32_t floe_status;
#define FLOE_OK 0
#define FLOE_INVALID_ARGUMENT 1    /* bad parameter, option or row: do not retry */
#define FLOE_UNSUPPORTED 2         /* valid but not implemented by this plugin */
#define FLOE_RETRYABLE 3           /* transient (network, lock): the same call may succeed */
#define FLOE_FATAL 4               /* anything else: the statement fails */
#define FLOE_NOT_FOUND 5           /* catalog: no such namespace / table */
#define FLOE_ALREADY_EXISTS 6      /* catalog: create of something that exists */
#define FLOE_COMMIT_FAILED 7       /* catalog: the base is stale; nothing published; reload, retry */
#define FLOE_COMMIT_STATE_UNKNOWN 8 /* catalog or sink commit: may or may not have landed */

/* Opaque to plugins. */
typedef struct floe_error floe_error;         /* where a call's error message goes */
typedef struct floe_bytes_out floe_bytes_out; /* where a call's output bytes go */
typedef struct floe_row floe_row;             /* one row, read with the host's row accessors */
typedef struct floe_registrar floe_registrar; /* passed to floe_plugin_init only */

/* A key/value pair (options, properties): NUL-terminated UTF-8. */
typedef struct floe_kv {
  const char* key;
  const char* value;
} floe_kv;

/* ------------------------------------------ Arrow C Data Interface structs */
/* Declared exactly as https://arrow.apache.org/docs/format/CDataInterface.html
 * defines them (the guard lets other headers that declare them coexist). */
#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
  // Array type description
  const char* format;
  const char* name;
  const char* metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema** children;
  struct ArrowSchema* dictionary;

  // Release callback
  void (*release)(struct ArrowSchema*);
  // Opaque producer-specific data
  void* private_data;
};

struct ArrowArray {
  // Array data description
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void** buffers;
  struct ArrowArray** children;
  struct ArrowArray* dictionary;

  // Release callback
  void (*release)(struct ArrowArray*);
  // Opaque producer-specific data
  void* private_data;
};

#endif  // ARROW_C_DATA_INTERFACE

/* ------------------------------------------------------------- row kinds */
/* Flink's RowKind byte values, as in the `kinds` vector of write_batch. */
#define FLOE_ROW_INSERT 0        /* +I */
#define FLOE_ROW_UPDATE_BEFORE 1 /* -U */
#define FLOE_ROW_UPDATE_AFTER 2  /* +U */
#define FLOE_ROW_DELETE 3        /* -D */

/* Column types as the row accessors report them (Iceberg types). */
#define FLOE_TYPE_BOOLEAN 0
#define FLOE_TYPE_INT 1
#define FLOE_TYPE_LONG 2
#define FLOE_TYPE_FLOAT 3
#define FLOE_TYPE_DOUBLE 4
#define FLOE_TYPE_DECIMAL 5
#define FLOE_TYPE_DATE 6
#define FLOE_TYPE_TIME 7
#define FLOE_TYPE_TIMESTAMP 8
#define FLOE_TYPE_TIMESTAMPTZ 9
#define FLOE_TYPE_TIMESTAMP_NS 10
#define FLOE_TYPE_TIMESTAMPTZ_NS 11
#define FLOE_TYPE_STRING 12
#define FLOE_TYPE_UUID 13
#define FLOE_TYPE_FIXED 14
#define FLOE_TYPE_BINARY 15
#define FLOE_TYPE_STRUCT 16
#define FLOE_TYPE_LIST 17
#define FLOE_TYPE_MAP 18

/* Log levels for host->log. */
#define FLOE_LOG_DEBUG 0
#define FLOE_LOG_INFO 1
#define FLOE_LOG_WARN 2
#define FLOE_LOG_ERROR 3

struct floe_sink_vtable;
struct floe_catalog_vtable;

/* ---------------------------------------------------------------- host API */
/* What floe offers a plugin. Valid from floe_plugin_init until the library is
 * unloaded; keep the pointer. Check FLOE_HAS_FIELD before using a field added
 * in a later minor version than the one the plugin requires. */
typedef struct floe_host_api {
  uint32_t struct_size;
  uint32_t abi_major; /* the host's FLOE_PLUGIN_ABI_MAJOR */
  uint32_t abi_minor; /* the host's FLOE_PLUGIN_ABI_MINOR */
  uint32_t reserved;

  /* Sets the message of a failing call (UTF-8, `len` bytes, copied at once;
   * a later call replaces it). Call it, then return a non-OK status. */
  void (*set_error)(floe_error* err, const char* message, size_t len);
  /* Sets the output of a call that produces bytes (prepare_commit's commit
   * blob, a catalog response's JSON); copied at once; a later call replaces it. */
  void (*set_output)(floe_bytes_out* out, const void* data, size_t len);
  /* Writes a log line at `level` (FLOE_LOG_*) to floe's standard error, as
   * `floe: plugin: <message>` (DEBUG lines only with FLOE_PLUGIN_DEBUG set). */
  void (*log)(int32_t level, const char* message, size_t len);

  /* Registration, only inside floe_plugin_init. `class_name` and `vtable`
   * must have static storage. A class name registered twice (by this or by
   * another loaded plugin) makes the whole library fail to load. */
  floe_status (*register_sink)(floe_registrar* reg, const char* class_name,
                               const struct floe_sink_vtable* vtable);
  floe_status (*register_catalog)(floe_registrar* reg, const char* class_name,
                                  const struct floe_catalog_vtable* vtable);

  /* Row accessors for floe_sink_vtable.invoke. A row is valid for the call
   * only. Columns are numbered 0..count-1 in schema order (top-level fields).
   * Accessors return FLOE_INVALID_ARGUMENT for a column out of range, a null
   * value (check row_is_null first) or a type the accessor does not read;
   * the out parameters are then left untouched. */
  int32_t (*row_column_count)(const floe_row* row);
  /* The column's name (NUL-terminated, valid for the call). */
  const char* (*row_column_name)(const floe_row* row, int32_t column);
  /* FLOE_TYPE_* of the column, or -1 for a column out of range. */
  int32_t (*row_column_type)(const floe_row* row, int32_t column);
  bool (*row_is_null)(const floe_row* row, int32_t column);
  /* boolean */
  floe_status (*row_get_bool)(const floe_row* row, int32_t column, bool* out);
  /* int, long, date (days), time (µs), timestamp[tz] (µs), timestamp[tz]_ns (ns) */
  floe_status (*row_get_int64)(const floe_row* row, int32_t column, int64_t* out);
  /* float, double */
  floe_status (*row_get_double)(const floe_row* row, int32_t column, double* out);
  /* string (UTF-8), binary, uuid (16 bytes, big-endian), fixed: the raw bytes,
   * not NUL-terminated, valid for the call. */
  floe_status (*row_get_bytes)(const floe_row* row, int32_t column, const char** data,
                               size_t* len);
  /* Any column as text, valid until the next accessor call on this row:
   * string raw; boolean true/false; numbers in decimal; decimal with exactly
   * `scale` fraction digits; date YYYY-MM-DD; time HH:MM:SS.ffffff;
   * timestamp YYYY-MM-DDTHH:MM:SS.ffffff (tz: +00:00 appended; _ns: 9
   * digits); uuid 8-4-4-4-12; binary and fixed lower-case hex; struct, list
   * and map as their JSON (row_get_json). A null value is FLOE_INVALID_ARGUMENT. */
  floe_status (*row_get_text)(const floe_row* row, int32_t column, const char** data,
                              size_t* len);
  /* Any column as canonical JSON (null included: `null`), valid until the
   * next accessor call on this row: the Iceberg spec's single-value JSON
   * (Appendix D) for primitives, an object for a struct, an array for a
   * list and {"keys":[...],"values":[...]} for a map. */
  floe_status (*row_get_json)(const floe_row* row, int32_t column, const char** data,
                              size_t* len);
} floe_host_api;

/* The library's entry point (exported as floe_plugin_init): registers its
 * classes. Returning non-OK (with host->set_error(err, ...)) refuses the
 * library: none of its classes is registered. */
typedef floe_status (*floe_plugin_init_fn)(const floe_host_api* host, floe_registrar* reg,
                                           floe_error* err);

/* -------------------------------------------------------------------- sinks */

/* Capability flags (floe_sink_vtable.capabilities). */
/* Pass -U rows to invoke (flag false). Without it the plugin gets an upsert
 * stream: -U rows are dropped, as Flink gives keyed sinks. */
#define FLOE_SINK_WANTS_UPDATE_BEFORE 1u
/* The sink handles retractions (-U/-D). Without it a -U or -D row is an error
 * naming the class (an append-only sink would keep stale rows). */
#define FLOE_SINK_ACCEPTS_DELETES 2u
/* prepare_commit / commit / abort implement two-phase commit: floe keeps
 * the blob of prepare_commit in its checkpoint and may call commit again
 * with it after a restart (commit must be idempotent). */
#define FLOE_SINK_TWO_PHASE 4u

/* What an instance is made for; valid during create only. */
typedef struct floe_sink_context {
  uint32_t struct_size;
  int32_t subtask;     /* this instance's writer subtask, 0-based */
  int32_t parallelism; /* number of writer subtasks */
  int32_t reserved;
  const char* class_name; /* the class as registered */
  /* The row type: an Arrow struct schema, one child per column (the same
   * schema write_batch gets), and the Iceberg schema as JSON (spec: Schemas). */
  const struct ArrowSchema* schema;
  const char* schema_json;
  /* The table's other options (WITH keys), sorted by key. */
  const floe_kv* options;
  size_t option_count;
} floe_sink_context;

/* A sink class. Unneeded entries may be NULL where noted.
 *
 * Life cycle: create -> open -> (invoke | write_batch)* -> flush ->
 * [prepare_commit -> commit]* -> close -> destroy. On failure floe calls
 * abort (if the sink is two-phase), close (if open succeeded) and always
 * destroy. Every call but destroy may fail with a message. */
typedef struct floe_sink_vtable {
  uint32_t struct_size;  /* sizeof(floe_sink_vtable) */
  uint32_t capabilities; /* FLOE_SINK_* flags */

  /* Makes an instance; `*state` is passed to every later call. */
  floe_status (*create)(const floe_sink_context* ctx, void** state, floe_error* err);
  /* Opens it: `parameter` is `connector.class-parameter` verbatim (`len`
   * bytes, also NUL-terminated; empty when not set). */
  floe_status (*open)(void* state, const char* parameter, size_t len, floe_error* err);
  /* One row: `flag` true for +I and +U, false for -D and (with
   * FLOE_SINK_WANTS_UPDATE_BEFORE) -U: Flink's Tuple2<Boolean, Row>. May be
   * NULL when write_batch is set. */
  floe_status (*invoke)(void* state, bool flag, const floe_row* row, floe_error* err);
  /* A batch of `array->length` rows (<= 4096) as an Arrow struct array with
   * its schema, and one FLOE_ROW_* byte per row. Every kind is passed,
   * -U included (skip what you do not need). Preferred over invoke when set.
   * The arrays are borrowed for the call: read them, do not keep pointers
   * into them, do not move them; release may be called (floe releases what
   * is left after the call). May be NULL when invoke is set. */
  floe_status (*write_batch)(void* state, const struct ArrowSchema* schema,
                             const struct ArrowArray* array, const int8_t* kinds,
                             floe_error* err);
  /* Makes the rows passed so far durable or ready to commit (end_of_input:
   * no rows follow). May be NULL. */
  floe_status (*flush)(void* state, bool end_of_input, floe_error* err);
  /* Two-phase commit, first phase for checkpoint `checkpoint_id`: prepare
   * everything written since the last one and describe it in a blob
   * (host->set_output), which floe stores in its checkpoint. May be NULL. */
  floe_status (*prepare_commit)(void* state, int64_t checkpoint_id, floe_bytes_out* blob,
                                floe_error* err);
  /* Second phase: make the prepared checkpoint visible. Must be idempotent:
   * after a restart floe calls it again with the stored blob, possibly on a
   * new instance, possibly for a checkpoint that already committed. May be NULL. */
  floe_status (*commit)(void* state, int64_t checkpoint_id, const void* blob, size_t len,
                        floe_error* err);
  /* Drops what was written or prepared since the last commit. May be NULL. */
  floe_status (*abort)(void* state, int64_t checkpoint_id, floe_error* err);
  /* Releases resources the sink opened; called once after a successful open. */
  floe_status (*close)(void* state, floe_error* err);
  /* Frees `state`; cannot fail. Called once for every successful create. */
  void (*destroy)(void* state);
} floe_sink_vtable;

/* ----------------------------------------------------------------- catalogs */
/* A catalog class (catalog-impl). Requests and responses are JSON text in the
 * shapes of the Iceberg REST catalog spec (rest-catalog-open-api.yaml), with
 * the path parameters moved into the body:
 *
 *   list_namespaces   {"parent": [..]}                -> ListNamespacesResponse {"namespaces": [[..], ..]}
 *   create_namespace  CreateNamespaceRequest          -> CreateNamespaceResponse (may be empty)
 *   load_namespace    {"namespace": [..]}             -> GetNamespaceResponse {"namespace", "properties"}
 *   drop_namespace    {"namespace": [..]}             -> (empty)
 *   update_namespace_properties
 *                     {"namespace": [..], "removals": [..], "updates": {..}}
 *                                                     -> UpdateNamespacePropertiesResponse
 *   list_tables       {"namespace": [..]}             -> ListTablesResponse {"identifiers": [..]}
 *   load_table        {"identifier": {"namespace", "name"}}  -> LoadTableResult
 *   create_table      CreateTableRequest + "namespace" + "metadata-location"
 *                                                     -> LoadTableResult
 *   commit_table      CommitTableRequest {"identifier", "requirements", "updates"}
 *                     + "base-metadata-location" + "metadata-location"
 *                                                     -> CommitTableResponse
 *   drop_table        {"identifier": .., "purge": bool} -> (empty)
 *   rename_table      RenameTableRequest {"source", "destination"} -> (empty)
 *   register_table    RegisterTableRequest + "namespace" -> LoadTableResult
 *
 * Metadata files. floe writes every new metadata file itself (the initial
 * one before create_table, the next one before commit_table) and passes its
 * location as "metadata-location". A catalog that only stores pointers swaps
 * the table's pointer from "base-metadata-location" to "metadata-location"
 * if the pointer still equals the base (else FLOE_COMMIT_FAILED) and answers
 * {"metadata-location": <new>}. A catalog that applies "updates" itself may
 * write its own file and answer its location; floe then removes the file it
 * proposed. LoadTableResult / CommitTableResponse may omit "metadata": floe
 * then reads the file at "metadata-location".
 *
 * Status codes: FLOE_NOT_FOUND, FLOE_ALREADY_EXISTS, FLOE_COMMIT_FAILED
 * (nothing published; floe deletes its proposed file and may retry),
 * FLOE_COMMIT_STATE_UNKNOWN (floe keeps every file), FLOE_INVALID_ARGUMENT,
 * FLOE_UNSUPPORTED, FLOE_RETRYABLE, FLOE_FATAL. A NULL operation is
 * FLOE_UNSUPPORTED. A catalog instance serves one thread at a time. */
typedef floe_status (*floe_catalog_op)(void* state, const char* request, size_t len,
                                       floe_bytes_out* response, floe_error* err);

typedef struct floe_catalog_vtable {
  uint32_t struct_size;
  uint32_t capabilities; /* none defined yet: 0 */
  /* Iceberg's Catalog.initialize(name, properties): the catalog options. */
  floe_status (*create)(const char* name, const floe_kv* properties, size_t count, void** state,
                        floe_error* err);
  floe_catalog_op list_namespaces;
  floe_catalog_op create_namespace;
  floe_catalog_op load_namespace;
  floe_catalog_op drop_namespace;
  floe_catalog_op update_namespace_properties;
  floe_catalog_op list_tables;
  floe_catalog_op load_table;
  floe_catalog_op create_table;
  floe_catalog_op commit_table;
  floe_catalog_op drop_table;
  floe_catalog_op rename_table;
  floe_catalog_op register_table;
  void (*destroy)(void* state);
} floe_catalog_vtable;

#ifdef __cplusplus
}
#endif

#endif /* FLOE_PLUGIN_H_ */
