// The `user-defined` sink connector (Huawei DLI's user-defined sinks,
// design: shared SQL.md §1, §3): a plugin class (include/floe/plugin.h)
// found by `connector.class-name` (loaded by ADD JAR, from
// `connector.library`, or on FLOE_PLUGIN_PATH), created with
// `connector.class-parameter` verbatim. Selected by the legacy key
// 'connector.type' = 'user-defined' (or 'connector' = 'user-defined');
// every other WITH option is passed to the class's validate.
//
// Life cycle per INSERT: open at the start, the rows as they come (the
// adapter passes batches, or rows with Flink's boolean flag), then, when the
// input ends, flush -> prepare_commit -> commit -> close — all before any
// Iceberg sink of the same statement set commits (RowSink::Finish), so a
// plugin that fails anywhere leaves the Iceberg tables untouched. A failed
// statement aborts and closes the instance.
#include <fmt/format.h>

#include "floe/plugin/plugin_registry.h"
#include "floe/plugin/plugin_sink.h"
#include "floe/sqlengine/builtin_connectors.h"

namespace floe::sqlengine {

namespace {

constexpr const char* kClassName = "connector.class-name";
constexpr const char* kClassParameter = "connector.class-parameter";
constexpr const char* kLibrary = "connector.library";

class UserDefinedSink : public RowSink {
 public:
  explicit UserDefinedSink(std::unique_ptr<plugin::PluginSink> sink) : sink_(std::move(sink)) {}
  ~UserDefinedSink() override { Abort(); }

  Status Write(Batch&& batch) override { return sink_->Write(batch); }

  Status Finish() override {
    FLOE_RETURN_IF_ERROR(sink_->Flush(true));
    FLOE_ASSIGN_OR_RETURN(std::string blob, sink_->PrepareCommit(checkpoint_));
    FLOE_RETURN_IF_ERROR(sink_->Commit(checkpoint_, blob));
    finished_ = true;
    return sink_->Close();
  }

  /// A streaming job's checkpoint (`execution.checkpointing.interval`):
  /// flush, prepare and commit the rows so far, as Flink's two-phase sinks
  /// do at each checkpoint; the next checkpoint has the next id.
  bool checkpoints() const override { return true; }
  Status Checkpoint() override {
    FLOE_RETURN_IF_ERROR(sink_->Flush(false));
    FLOE_ASSIGN_OR_RETURN(std::string blob, sink_->PrepareCommit(checkpoint_));
    FLOE_RETURN_IF_ERROR(sink_->Commit(checkpoint_, blob));
    ++checkpoint_;
    return Ok();
  }

  void Abort() override {
    if (finished_ || aborted_) return;
    aborted_ = true;
    // The statement failed already: errors of the abort and close would only
    // hide its error.
    (void)sink_->Abort(checkpoint_);
    (void)sink_->Close();
  }

 private:
  /// The id of the checkpoint in progress; a bounded INSERT without
  /// checkpoints is checkpoint 1 (Flink's final checkpoint at end of input).
  int64_t checkpoint_ = 1;
  std::unique_ptr<plugin::PluginSink> sink_;
  bool finished_ = false;
  bool aborted_ = false;
};

class UserDefinedConnector : public Connector {
 public:
  std::string identifier() const override { return "user-defined"; }

  Status Validate(const TableHandle& table, bool for_sink) const override {
    if (!table.options.contains(kClassName)) {
      return InvalidArgument(
          "One or more required options are missing.\n\nMissing required options are:\n\n{}",
          kClassName);
    }
    return Ok();
  }

  Result<std::unique_ptr<RowSink>> OpenSink(const TableHandle& table, const WriteRequest& request,
                                            const EngineContext& ctx) const override {
    FLOE_RETURN_IF_ERROR(Validate(table, true));
    if (auto lib = table.options.find(kLibrary); lib != table.options.end()) {
      auto loaded = plugin::LoadPlugin(lib->second);
      if (!loaded)
        return Fail(
            Error{loaded.error().kind, "floe.PluginException: " + loaded.error().message, false});
    }
    plugin::SinkSpec spec;
    spec.class_name = table.options.at(kClassName);
    if (auto p = table.options.find(kClassParameter); p != table.options.end())
      spec.parameter = p->second;
    spec.schema = table.schema.Physical();
    for (const auto& [k, v] : table.options) {
      if (k != "connector" && k != "connector.type" && k != kClassName && k != kClassParameter &&
          k != kLibrary) {
        spec.options[k] = v;
      }
    }
    auto sink = plugin::PluginSink::Open(spec);
    if (!sink) {
      Error e = sink.error();
      if (!e.message.starts_with("floe.")) e.message = "floe.PluginException: " + e.message;
      return Fail(std::move(e));
    }
    return std::unique_ptr<RowSink>(new UserDefinedSink(std::move(*sink)));
  }
};

}  // namespace

std::shared_ptr<const Connector> MakeUserDefinedConnector() {
  return std::make_shared<UserDefinedConnector>();
}

}  // namespace floe::sqlengine
