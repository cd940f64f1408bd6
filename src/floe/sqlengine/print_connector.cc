// The `print` and `blackhole` sinks (Flink docs: connectors/table/print,
// blackhole). print writes each row as its row kind and values, Flink's
// Row#toString form `+I[1, abc]` (null as `null`), prefixed by
// `<print-identifier>> ` when given, to standard output (standard error
// with 'standard-error' = 'true'). blackhole discards every row.
#include <fmt/format.h>

#include "floe/sqlengine/builtin_connectors.h"
#include "floe/sqlengine/kafka_connector.h"
#include "floe/sqlengine/postgres_cdc_connector.h"
#include "floe/sqlengine/value_text.h"

namespace floe::sqlengine {

namespace {

std::string_view KindText(RowKind k) {
  switch (k) {
    case RowKind::kInsert: return "+I";
    case RowKind::kUpdateBefore: return "-U";
    case RowKind::kUpdateAfter: return "+U";
    case RowKind::kDelete: return "-D";
  }
  return "+I";
}

class PrintSink : public RowSink {
 public:
  PrintSink(RelSchema schema, std::string prefix, std::function<void(std::string_view)> out)
      : schema_(std::move(schema)), prefix_(std::move(prefix)), out_(std::move(out)) {}

  Status Write(Batch&& batch) override {
    std::string buf;
    for (int64_t r = 0; r < batch.num_rows; ++r) {
      buf += prefix_;
      buf += KindText(batch.row_kinds.empty() ? RowKind::kInsert : batch.row_kinds[r]);
      buf.push_back('[');
      for (size_t c = 0; c < batch.columns.size(); ++c) {
        if (c) buf += ", ";
        if (batch.columns[c].IsNull(r)) {
          buf += "null";
        } else {
          AppendValueText(batch.columns[c], schema_.columns[c].type, r, &buf);
        }
      }
      buf += "]\n";
    }
    if (out_) out_(buf);
    return Ok();
  }
  Status Finish() override { return Ok(); }

 private:
  RelSchema schema_;
  std::string prefix_;
  std::function<void(std::string_view)> out_;
};

class PrintConnector : public Connector {
 public:
  std::string identifier() const override { return "print"; }
  Status Validate(const TableHandle& table, bool for_sink) const override {
    FLOE_RETURN_IF_ERROR(
        CheckConnectorOptions(identifier(), table.options, {"connector"},
                              {"print-identifier", "standard-error", "sink.parallelism"}));
    if (auto it = table.options.find("standard-error");
        it != table.options.end() && it->second != "true" && it->second != "false") {
      return InvalidArgument("Could not parse value '{}' for key 'standard-error'.", it->second);
    }
    return Ok();
  }
  Result<std::unique_ptr<RowSink>> OpenSink(const TableHandle& table, const WriteRequest& request,
                                            const EngineContext& ctx) const override {
    FLOE_RETURN_IF_ERROR(Validate(table, true));
    std::string prefix;
    if (auto it = table.options.find("print-identifier"); it != table.options.end())
      prefix = it->second + "> ";
    const bool err =
        table.options.contains("standard-error") && table.options.at("standard-error") == "true";
    return std::unique_ptr<RowSink>(
        new PrintSink(table.schema, prefix, err ? ctx.print_err : ctx.print_out));
  }
};

class BlackholeSink : public RowSink {
 public:
  Status Write(Batch&& batch) override { return Ok(); }
  Status Finish() override { return Ok(); }
};

class BlackholeConnector : public Connector {
 public:
  std::string identifier() const override { return "blackhole"; }
  Status Validate(const TableHandle& table, bool for_sink) const override {
    return CheckConnectorOptions(identifier(), table.options, {"connector"}, {});
  }
  Result<std::unique_ptr<RowSink>> OpenSink(const TableHandle& table, const WriteRequest& request,
                                            const EngineContext& ctx) const override {
    FLOE_RETURN_IF_ERROR(Validate(table, true));
    return std::unique_ptr<RowSink>(new BlackholeSink());
  }
};

}  // namespace

std::shared_ptr<const Connector> MakePrintConnector() { return std::make_shared<PrintConnector>(); }
std::shared_ptr<const Connector> MakeBlackholeConnector() {
  return std::make_shared<BlackholeConnector>();
}

void RegisterBuiltinConnectors() {
  static const bool once = [] {
    RegisterConnector(MakeIcebergConnector());
    RegisterConnector(MakeDatagenConnector());
    RegisterConnector(MakeFilesystemConnector());
    RegisterConnector(MakePrintConnector());
    RegisterConnector(MakeBlackholeConnector());
    RegisterConnector(MakeUserDefinedConnector());
    RegisterConnector(MakeKafkaConnector());
    RegisterConnector(MakeUpsertKafkaConnector());
    RegisterConnector(MakePostgresCdcConnector());
    return true;
  }();
  (void)once;
}

}  // namespace floe::sqlengine
