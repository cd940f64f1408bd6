// The `datagen` connector (Flink docs: connectors/table/datagen): rows of
// sequence and random fields.
//  - `fields.<col>.kind` = random (default) | sequence;
//  - sequence: `start` and `end` (inclusive) are required; the table ends
//    when the first sequence runs out;
//  - random: numbers in [`min`, `max`] (default: the type's range), strings
//    of `length` characters (default 100), `null-rate` (0..1) of nulls,
//    timestamps up to `max-past` milliseconds before now;
//  - `number-of-rows` bounds the table; without it and without sequences it
//    is unbounded; `rows-per-second` (default 10000) paces the rows.
// Random values cannot be seeded (as in Flink): tests use sequences.
#include <chrono>
#include <random>
#include <thread>

#include <fmt/format.h>

#include "floe/sql/sql_types.h"
#include "floe/sqlengine/builtin_connectors.h"
#include "floe/sqlengine/expr_eval.h"

namespace floe::sqlengine {

namespace {

using sql::TypeName;

constexpr int64_t kBatchRows = 4096;

struct FieldGen {
  bool sequence = false;
  // sequence: the values as text (start..end) for decimal/string; integers for the rest
  int64_t start = 0, end = 0;
  double dmin = 0, dmax = 0;
  int64_t imin = 0, imax = 0;
  int64_t length = 100;
  double null_rate = 0;
  int64_t max_past_ms = 0;
};

Result<double> DoubleOption(const std::map<std::string, std::string>& o, const std::string& key,
                            double def) {
  auto it = o.find(key);
  if (it == o.end()) return def;
  char* end = nullptr;
  double v = std::strtod(it->second.c_str(), &end);
  if (it->second.empty() || *end != '\0')
    return InvalidArgument("Could not parse value '{}' for key '{}'.", it->second, key);
  return v;
}

std::pair<int64_t, int64_t> IntegralRange(TypeName t) {
  switch (t) {
    case TypeName::kTinyInt: return {INT8_MIN, INT8_MAX};
    case TypeName::kSmallInt: return {INT16_MIN, INT16_MAX};
    case TypeName::kInt: return {INT32_MIN, INT32_MAX};
    default: return {INT64_MIN, INT64_MAX};
  }
}

class DatagenSource : public RowSource {
 public:
  DatagenSource(RelSchema schema, std::vector<int> columns, std::vector<FieldGen> gens,
                int64_t total, double rows_per_second)
      : schema_(std::move(schema)),
        columns_(std::move(columns)),
        gens_(std::move(gens)),
        total_(total),
        rate_(rows_per_second),
        rng_(std::random_device{}()),
        start_(std::chrono::steady_clock::now()) {}

  Result<bool> Next(Batch* out) override {
    if (total_ >= 0 && emitted_ >= total_) return false;
    int64_t n = kBatchRows;
    if (rate_ > 0) n = std::min<int64_t>(n, std::max<int64_t>(1, static_cast<int64_t>(rate_)));
    if (total_ >= 0) n = std::min(n, total_ - emitted_);
    // Pace: row k is due at start + k / rate.
    if (rate_ > 0) {
      const auto due =
          start_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                       std::chrono::duration<double>(static_cast<double>(emitted_) / rate_));
      std::this_thread::sleep_until(due);
    }
    std::vector<NestedField> fields;
    Batch b;
    for (int c : columns_) {
      const ColumnInfo& col = schema_.columns[c];
      FLOE_ASSIGN_OR_RETURN(ColumnVector v, Generate(col, gens_[c], n));
      b.columns.push_back(std::move(v));
      fields.push_back(NestedField{static_cast<int32_t>(fields.size() + 1), col.name,
                                   !col.type.nullable, col.physical, ""});
    }
    b.schema = std::make_shared<Schema>(std::move(fields));
    b.num_rows = n;
    emitted_ += n;
    *out = std::move(b);
    return true;
  }
  /// Without `number-of-rows` and without sequences the rows never end.
  bool unbounded() const override { return total_ < 0; }

 private:
  Result<ColumnVector> Generate(const ColumnInfo& col, const FieldGen& g, int64_t n) {
    ColumnVector out(col.physical);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const TypeName t = col.type.name;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t row = emitted_ + i;
      if (!g.sequence && g.null_rate > 0 && unit(rng_) < g.null_rate) {
        out.AppendNull();
        continue;
      }
      switch (col.physical->id) {
        case TypeId::kBoolean:
          out.Append<uint8_t>(g.sequence ? (g.start + row) % 2 : unit(rng_) < 0.5);
          break;
        case TypeId::kInt:
        case TypeId::kLong: {
          int64_t v;
          if (t == TypeName::kDate) {
            const int64_t today = std::chrono::duration_cast<std::chrono::days>(
                                      std::chrono::system_clock::now().time_since_epoch())
                                      .count();
            v = g.sequence
                    ? g.start + row
                    : today - static_cast<int64_t>(unit(rng_) * (g.max_past_ms / 86400000.0));
          } else if (t == TypeName::kTimestamp || t == TypeName::kTimestampLtz) {
            const int64_t now = std::chrono::duration_cast<std::chrono::microseconds>(
                                    std::chrono::system_clock::now().time_since_epoch())
                                    .count();
            v = g.sequence ? g.start + row
                           : now - static_cast<int64_t>(unit(rng_) * g.max_past_ms * 1000.0);
          } else if (t == TypeName::kTime) {
            v = g.sequence ? (g.start + row) * 1000 : static_cast<int64_t>(unit(rng_) * 86400e6);
          } else if (g.sequence) {
            v = g.start + row;
          } else {
            std::uniform_int_distribution<int64_t> d(g.imin, g.imax);
            v = d(rng_);
          }
          if (col.physical->id == TypeId::kInt) {
            out.Append<int32_t>(static_cast<int32_t>(v));
          } else {
            out.Append<int64_t>(v);
          }
          break;
        }
        case TypeId::kFloat:
        case TypeId::kDouble: {
          double v = g.sequence ? static_cast<double>(g.start + row)
                                : g.dmin + unit(rng_) * (g.dmax - g.dmin);
          if (col.physical->id == TypeId::kFloat) {
            out.Append<float>(static_cast<float>(v));
          } else {
            out.Append<double>(v);
          }
          break;
        }
        case TypeId::kDecimal: {
          const int128_t scale = [&] {
            int128_t p = 1;
            for (int k = 0; k < col.physical->scale; ++k) p *= 10;
            return p;
          }();
          if (g.sequence) {
            out.Append<int128_t>(static_cast<int128_t>(g.start + row) * scale);
          } else {
            const double v = g.dmin + unit(rng_) * (g.dmax - g.dmin);
            out.Append<int128_t>(
                static_cast<int128_t>(std::llround(v * static_cast<double>(scale))));
          }
          break;
        }
        case TypeId::kString: {
          if (g.sequence) {
            out.AppendBytes(std::to_string(g.start + row));
          } else {
            static constexpr char kChars[] =
                "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
            std::string s(static_cast<size_t>(g.length), ' ');
            std::uniform_int_distribution<int> d(0, 61);
            for (char& ch : s) ch = kChars[d(rng_)];
            out.AppendBytes(s);
          }
          break;
        }
        case TypeId::kBinary:
        case TypeId::kFixed: {
          const int64_t len = col.physical->id == TypeId::kFixed ? col.physical->length : g.length;
          std::string s(static_cast<size_t>(len), '\0');
          std::uniform_int_distribution<int> d(0, 255);
          for (char& ch : s) ch = static_cast<char>(d(rng_));
          out.AppendBytes(s);
          break;
        }
        default:
          return Unsupported("datagen: column '{}' of type {} is not supported yet", col.name,
                             TypeSummary(col.type));
      }
    }
    return out;
  }

  RelSchema schema_;
  std::vector<int> columns_;
  std::vector<FieldGen> gens_;
  int64_t total_;
  double rate_;
  std::mt19937_64 rng_;
  std::chrono::steady_clock::time_point start_;
  int64_t emitted_ = 0;
};

class DatagenConnector : public Connector {
 public:
  std::string identifier() const override { return "datagen"; }

  std::set<std::string> Optional(const TableHandle& table) const {
    std::set<std::string> out = {"rows-per-second", "number-of-rows"};
    for (const ColumnInfo& c : table.schema.columns) {
      for (const char* k :
           {"kind", "min", "max", "max-past", "length", "start", "end", "null-rate"}) {
        out.insert(fmt::format("fields.{}.{}", c.name, k));
      }
    }
    return out;
  }

  Status Validate(const TableHandle& table, bool for_sink) const override {
    return CheckConnectorOptions(identifier(), table.options, {"connector"}, Optional(table));
  }

  Result<std::unique_ptr<RowSource>> OpenSource(const TableHandle& table,
                                                const ReadRequest& request,
                                                const EngineContext& ctx) const override {
    FLOE_RETURN_IF_ERROR(Validate(table, false));
    const auto& o = table.options;
    FLOE_ASSIGN_OR_RETURN(int64_t rows, LongOption(o, "number-of-rows", -1));
    FLOE_ASSIGN_OR_RETURN(double rate, DoubleOption(o, "rows-per-second", 10000));
    if (o.contains("number-of-rows") && rows < 0) {
      return InvalidArgument("Could not parse value '{}' for key 'number-of-rows'.",
                             o.at("number-of-rows"));
    }
    if (rate <= 0)
      return InvalidArgument("rows-per-second must be positive, got {}", o.at("rows-per-second"));
    std::vector<FieldGen> gens;
    int64_t total = rows;
    for (const ColumnInfo& c : table.schema.columns) {
      FieldGen g;
      const std::string p = "fields." + c.name + ".";
      std::string kind = o.contains(p + "kind") ? o.at(p + "kind") : "random";
      if (kind != "random" && kind != "sequence") {
        return InvalidArgument(
            "Could not parse value '{}' for key '{}kind'. Expected one of: [random, sequence]",
            kind, p);
      }
      g.sequence = kind == "sequence";
      if (g.sequence) {
        for (const char* key : {"start", "end"}) {
          if (!o.contains(p + key)) {
            return InvalidArgument(
                "Could not find required property '{}{}' for sequence generator.", p, key);
          }
        }
        FLOE_ASSIGN_OR_RETURN(g.start, LongOption(o, p + "start", 0));
        FLOE_ASSIGN_OR_RETURN(g.end, LongOption(o, p + "end", 0));
        if (g.end < g.start)
          return InvalidArgument("{}end ({}) is below {}start ({})", p, g.end, p, g.start);
        const int64_t len = g.end - g.start + 1;
        total = total < 0 ? len : std::min(total, len);
      } else {
        auto [lo, hi] = IntegralRange(IsIntegral(c.type.name) ? c.type.name : TypeName::kInt);
        FLOE_ASSIGN_OR_RETURN(g.imin, LongOption(o, p + "min", lo));
        FLOE_ASSIGN_OR_RETURN(g.imax, LongOption(o, p + "max", hi));
        FLOE_ASSIGN_OR_RETURN(
            g.dmin, DoubleOption(o, p + "min", c.type.name == TypeName::kDecimal ? -1e6 : 0));
        FLOE_ASSIGN_OR_RETURN(
            g.dmax, DoubleOption(o, p + "max", c.type.name == TypeName::kDecimal ? 1e6 : 1e6));
        FLOE_ASSIGN_OR_RETURN(g.length, LongOption(o, p + "length", 100));
        FLOE_ASSIGN_OR_RETURN(g.null_rate, DoubleOption(o, p + "null-rate", 0));
        FLOE_ASSIGN_OR_RETURN(g.max_past_ms, LongOption(o, p + "max-past", 0));
        if (g.imin > g.imax || g.dmin > g.dmax)
          return InvalidArgument("{}min is above {}max", p, p);
      }
      gens.push_back(g);
    }
    std::vector<int> cols = request.columns;
    if (cols.empty()) {
      for (int i = 0; i < table.schema.size(); ++i) cols.push_back(i);
    }
    return std::unique_ptr<RowSource>(
        new DatagenSource(table.schema, cols, std::move(gens), total, rate));
  }
};

}  // namespace

std::shared_ptr<const Connector> MakeDatagenConnector() {
  return std::make_shared<DatagenConnector>();
}

}  // namespace floe::sqlengine
