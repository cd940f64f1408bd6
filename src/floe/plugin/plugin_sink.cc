// The sink adapter (plugin_sink.h).

#include "floe/plugin/plugin_sink.h"

#include <vector>

#include "floe/iceberg/schema_json.h"
#include "floe/plugin/arrow_export.h"
#include "floe/plugin/commit_ledger.h"
#include "floe/plugin/plugin_internal.h"

namespace floe::plugin {

using internal::CallGuard;

namespace {

std::string_view KindText(RowKind k) {
  switch (k) {
    case RowKind::kInsert: return "+I";
    case RowKind::kUpdateBefore: return "-U";
    case RowKind::kUpdateAfter: return "+U";
    case RowKind::kDelete: return "-D";
  }
  return "?";
}

}  // namespace

PluginSink::PluginSink(SinkClass c, const SinkSpec& spec)
    : class_(std::move(c)), vtable_(class_.vtable), schema_(spec.schema) {}

Result<std::unique_ptr<PluginSink>> PluginSink::Open(const SinkSpec& spec) {
  if (!spec.schema) return InvalidArgument("plugin sink {}: no schema", spec.class_name);
  FLOE_ASSIGN_OR_RETURN(SinkClass c, FindSinkClass(spec.class_name));
  internal::InstallCrashHandlers();
  std::unique_ptr<PluginSink> sink(new PluginSink(std::move(c), spec));

  ExportedSchema arrow;
  FLOE_RETURN_IF_ERROR(ExportSchema(*spec.schema, &arrow.schema));
  FLOE_ASSIGN_OR_RETURN(std::string schema_json, iceberg::SchemaToJson(*spec.schema));
  std::vector<floe_kv> options;
  for (const auto& [k, v] : spec.options) options.push_back({k.c_str(), v.c_str()});
  floe_sink_context ctx{};
  ctx.struct_size = sizeof(ctx);
  ctx.subtask = spec.subtask;
  ctx.parallelism = spec.parallelism;
  ctx.class_name = sink->class_.name.c_str();
  ctx.schema = &arrow.schema;
  ctx.schema_json = schema_json.c_str();
  ctx.options = options.empty() ? nullptr : options.data();
  ctx.option_count = options.size();

  floe_error err;
  floe_status st;
  {
    CallGuard guard(sink->class_.name.c_str(), "create");
    st = sink->vtable_->create(&ctx, &sink->state_, &err);
  }
  if (st != FLOE_OK) return Fail(internal::PluginError(sink->class_.name, "create", st, err));
  sink->created_ = true;
  if (sink->vtable_->open) {
    floe_error open_err;
    {
      CallGuard guard(sink->class_.name.c_str(), "open");
      st = sink->vtable_->open(sink->state_, spec.parameter.c_str(), spec.parameter.size(),
                               &open_err);
    }
    if (st != FLOE_OK) {
      sink->failed_ = true;
      return Fail(internal::PluginError(sink->class_.name, "open", st, open_err));
    }
  }
  sink->opened_ = true;
  return sink;
}

PluginSink::~PluginSink() {
  if (opened_ && !closed_) (void)Close();  // the error is lost here: callers that care call Close
  if (created_) {
    CallGuard guard(class_.name.c_str(), "destroy");
    vtable_->destroy(state_);
  }
}

Status PluginSink::Check(const char* call) {
  if (closed_)
    return InvalidArgument("floe.PluginException: {}: {}: the sink is closed", class_.name, call);
  if (failed_) {
    return InvalidArgument(
        "floe.PluginException: {}: {}: an earlier call failed (only abort and close remain)",
        class_.name, call);
  }
  return Ok();
}

Status PluginSink::Done(const char* call, floe_status status, const floe_error& err) {
  if (status == FLOE_OK) return Ok();
  failed_ = true;
  return Fail(internal::PluginError(class_.name, call, status, err));
}

Status PluginSink::Write(const Batch& batch, std::span<const RowKind> kinds) {
  FLOE_RETURN_IF_ERROR(Check(vtable_->write_batch ? "write_batch" : "invoke"));
  if (!kinds.empty() && static_cast<int64_t>(kinds.size()) != batch.num_rows) {
    return InvalidArgument("plugin sink {}: {} row kinds for a batch of {} rows", class_.name,
                           kinds.size(), batch.num_rows);
  }
  if (!(vtable_->capabilities & FLOE_SINK_ACCEPTS_DELETES)) {
    for (size_t i = 0; i < kinds.size(); ++i) {
      if (kinds[i] != RowKind::kInsert) {
        failed_ = true;
        return InvalidArgument(
            "floe.PluginException: {}: row {} of the batch is {}, but the class accepts inserts "
            "only (it does not "
            "set FLOE_SINK_ACCEPTS_DELETES): an append-only sink would keep stale rows",
            class_.name, i, KindText(kinds[i]));
      }
    }
  }
  if (batch.num_rows == 0) return Ok();
  if (!vtable_->write_batch) return Invoke(batch, kinds);

  ExportedSchema schema;
  ExportedArray array;
  FLOE_RETURN_IF_ERROR(ExportSchema(batch.schema ? *batch.schema : *schema_, &schema.schema));
  FLOE_RETURN_IF_ERROR(ExportBatch(batch, &array.array));
  std::vector<int8_t> bytes(static_cast<size_t>(batch.num_rows), FLOE_ROW_INSERT);
  for (size_t i = 0; i < kinds.size(); ++i) bytes[i] = static_cast<int8_t>(kinds[i]);
  floe_error err;
  floe_status st;
  {
    CallGuard guard(class_.name.c_str(), "write_batch");
    st = vtable_->write_batch(state_, &schema.schema, &array.array, bytes.data(), &err);
  }
  return Done("write_batch", st, err);
}

Status PluginSink::Invoke(const Batch& batch, std::span<const RowKind> kinds) {
  const bool wants_before = vtable_->capabilities & FLOE_SINK_WANTS_UPDATE_BEFORE;
  floe_row row;
  row.batch = &batch;
  CallGuard guard(class_.name.c_str(), "invoke");
  for (int64_t i = 0; i < batch.num_rows; ++i) {
    RowKind kind = kinds.empty() ? RowKind::kInsert : kinds[static_cast<size_t>(i)];
    if (kind == RowKind::kUpdateBefore && !wants_before) continue;  // an upsert stream
    const bool flag = kind == RowKind::kInsert || kind == RowKind::kUpdateAfter;
    row.row = i;
    floe_error err;
    floe_status st = vtable_->invoke(state_, flag, &row, &err);
    if (st != FLOE_OK) {
      failed_ = true;
      Error e = internal::PluginError(class_.name, "invoke", st, err);
      e.message += fmt::format(" (row {} of the batch, {})", i, KindText(kind));
      return Fail(std::move(e));
    }
  }
  return Ok();
}

Status PluginSink::Flush(bool end_of_input) {
  FLOE_RETURN_IF_ERROR(Check("flush"));
  if (!vtable_->flush) return Ok();
  floe_error err;
  floe_status st;
  {
    CallGuard guard(class_.name.c_str(), "flush");
    st = vtable_->flush(state_, end_of_input, &err);
  }
  return Done("flush", st, err);
}

Result<std::string> PluginSink::PrepareCommit(int64_t checkpoint_id) {
  FLOE_RETURN_IF_ERROR(Check("prepare_commit"));
  if (!vtable_->prepare_commit) return std::string();
  floe_error err;
  floe_bytes_out blob;
  floe_status st;
  {
    CallGuard guard(class_.name.c_str(), "prepare_commit");
    st = vtable_->prepare_commit(state_, checkpoint_id, &blob, &err);
  }
  FLOE_RETURN_IF_ERROR(Done("prepare_commit", st, err));
  return std::move(blob.data);
}

Status PluginSink::Commit(int64_t checkpoint_id, std::string_view blob) {
  FLOE_RETURN_IF_ERROR(Check("commit"));
  if (!vtable_->commit) return Ok();
  floe_error err;
  floe_status st;
  {
    CallGuard guard(class_.name.c_str(), "commit", /*commits=*/true);
    st = vtable_->commit(state_, checkpoint_id, blob.data(), blob.size(), &err);
  }
  FLOE_RETURN_IF_ERROR(Done("commit", st, err));
  NoteCommitted(fmt::format("plugin sink {} checkpoint {}", class_.name, checkpoint_id));
  return Ok();
}

Status PluginSink::Abort(int64_t checkpoint_id) {
  if (closed_) return Check("abort");
  if (!vtable_->abort) return Ok();
  floe_error err;
  floe_status st;
  {
    CallGuard guard(class_.name.c_str(), "abort");
    st = vtable_->abort(state_, checkpoint_id, &err);
  }
  return Done("abort", st, err);
}

Status PluginSink::Close() {
  if (closed_) return Ok();
  closed_ = true;
  if (!opened_ || !vtable_->close) return Ok();
  floe_error err;
  floe_status st;
  {
    CallGuard guard(class_.name.c_str(), "close");
    st = vtable_->close(state_, &err);
  }
  if (st == FLOE_OK) return Ok();
  return Fail(internal::PluginError(class_.name, "close", st, err));
}

}  // namespace floe::plugin
