/// \file
/// A user-defined sink (a plugin's sink class) as the engine drives it:
/// Open (create + open with `connector.class-parameter`), Write batches
/// with their row kinds, Flush, PrepareCommit / Commit / Abort for
/// exactly-once, Close. Batches reach the plugin's write_batch as Arrow C
/// Data arrays (arrow_export.h), or, for a plugin that only implements
/// invoke, row by row with Flink's boolean flag: +I/+U -> true, -U/-D ->
/// false, and -U rows dropped unless the class sets
/// FLOE_SINK_WANTS_UPDATE_BEFORE (an upsert stream, as Flink gives keyed
/// sinks). Every failed call is `floe.PluginException: <class>: <call>:
/// <message>`; after one, only Abort and Close are allowed. A crash inside
/// any call ends the process (plugin_internal.h: CallGuard).
#pragma once

#include <map>
#include <memory>
#include <span>
#include <string>

#include "floe/plugin/plugin_registry.h"
#include "floe/types/column_vector.h"
#include "floe/util/status.h"

namespace floe::plugin {

/// What a sink instance is opened with.
struct SinkSpec {
  std::string class_name;                      ///< connector.class-name
  std::string parameter;                       ///< connector.class-parameter, verbatim
  SchemaPtr schema;                            ///< the rows' schema
  std::map<std::string, std::string> options;  ///< the table's other WITH options
  int32_t subtask = 0;
  int32_t parallelism = 1;
};

class PluginSink {
 public:
  /// Finds the class (FindSinkClass: FLOE_PLUGIN_PATH on a miss), creates an
  /// instance and opens it. A failure in create or open is the plugin's
  /// message naming the class and the call.
  static Result<std::unique_ptr<PluginSink>> Open(const SinkSpec& spec);

  /// Closes (if open and not closed) and destroys the instance; an error of
  /// that close is lost: call Close to see it.
  ~PluginSink();
  PluginSink(const PluginSink&) = delete;
  PluginSink& operator=(const PluginSink&) = delete;

  /// Passes the rows of `batch` with `kinds` (one per row; empty: all +I).
  /// A -U or -D row for a class without FLOE_SINK_ACCEPTS_DELETES is an
  /// error naming the row (an append-only sink would keep stale rows).
  Status Write(const Batch& batch, std::span<const RowKind> kinds);
  /// Write(batch, batch.row_kinds).
  Status Write(const Batch& batch) { return Write(batch, batch.row_kinds); }
  Status Flush(bool end_of_input);
  /// The plugin's commit blob for `checkpoint_id` (empty when the class has
  /// no prepare_commit).
  Result<std::string> PrepareCommit(int64_t checkpoint_id);
  Status Commit(int64_t checkpoint_id, std::string_view blob);
  Status Abort(int64_t checkpoint_id);
  Status Close();

  const std::string& class_name() const { return class_.name; }
  uint32_t capabilities() const { return vtable_->capabilities; }

 private:
  PluginSink(SinkClass c, const SinkSpec& spec);
  Status Check(const char* call);
  Status Done(const char* call, floe_status status, const floe_error& err);
  Status Invoke(const Batch& batch, std::span<const RowKind> kinds);

  SinkClass class_;
  const floe_sink_vtable* vtable_;
  SchemaPtr schema_;
  void* state_ = nullptr;
  bool created_ = false;
  bool opened_ = false;
  bool closed_ = false;
  bool failed_ = false;
};

}  // namespace floe::plugin
