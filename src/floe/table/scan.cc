#include "floe/table/scan.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "floe/config/duration.h"
#include "floe/config/options.h"
#include "floe/iceberg/deletion_vector.h"
#include "floe/iceberg/manifest_io.h"
#include "floe/iceberg/value.h"
#include "floe/io/file.h"

namespace floe::table {

using expr::Expr;
using expr::ExprPtr;
using expr::Literal;
using expr::Op;
using iceberg::DataFile;
using iceberg::DataFileContent;
using iceberg::ManifestEntry;
using iceberg::ManifestFile;
using iceberg::PartitionField;
using iceberg::PartitionSpec;
using iceberg::Snapshot;
using iceberg::TableMetadata;
using iceberg::TransformKind;
using iceberg::Value;

// ------------------------------------------------------------------ options

Status ScanOptions::Validate() const {
  namespace k = config::keys;
  auto conflict = [](std::string_view a, std::string_view b) {
    return InvalidArgument("read options '{}' and '{}' cannot be used together", a, b);
  };
  if (snapshot_id && as_of_timestamp) return conflict(k::kSnapshotId.name, k::kAsOfTimestamp.name);
  if (snapshot_id && branch) return conflict(k::kSnapshotId.name, k::kBranch.name);
  if (snapshot_id && tag) return conflict(k::kSnapshotId.name, k::kTag.name);
  if (as_of_timestamp && branch) return conflict(k::kAsOfTimestamp.name, k::kBranch.name);
  if (as_of_timestamp && tag) return conflict(k::kAsOfTimestamp.name, k::kTag.name);
  if (branch && tag) return conflict(k::kBranch.name, k::kTag.name);
  if (start_snapshot_id && start_tag) return conflict(k::kStartSnapshotId.name, k::kStartTag.name);
  if (end_snapshot_id && end_tag) return conflict(k::kEndSnapshotId.name, k::kEndTag.name);
  const bool incremental = start_snapshot_id || start_tag || end_snapshot_id || end_tag;
  if (incremental) {
    const std::string_view point = snapshot_id       ? k::kSnapshotId.name
                                   : as_of_timestamp ? k::kAsOfTimestamp.name
                                   : branch          ? k::kBranch.name
                                   : tag             ? k::kTag.name
                                                     : std::string_view();
    if (!point.empty()) {
      return conflict(point, start_snapshot_id ? k::kStartSnapshotId.name
                             : start_tag       ? k::kStartTag.name
                             : end_snapshot_id ? k::kEndSnapshotId.name
                                               : k::kEndTag.name);
    }
    if (!start_snapshot_id && !start_tag) {
      return InvalidArgument("read option '{}' needs '{}' or '{}'",
                             end_snapshot_id ? k::kEndSnapshotId.name : k::kEndTag.name,
                             k::kStartSnapshotId.name, k::kStartTag.name);
    }
  }
  if (limit < -1) return InvalidArgument("read option '{}' must be -1 or >= 0, got {}", k::kLimit.name, limit);
  FLOE_RETURN_IF_ERROR(ValidateStreaming());
  FLOE_RETURN_IF_ERROR(split.Validate());
  return Ok();
}

std::string_view StartingStrategyName(StartingStrategy strategy) {
  switch (strategy) {
    case StartingStrategy::kTableScanThenIncremental: return "TABLE_SCAN_THEN_INCREMENTAL";
    case StartingStrategy::kIncrementalFromLatestSnapshot:
      return "INCREMENTAL_FROM_LATEST_SNAPSHOT";
    case StartingStrategy::kIncrementalFromEarliestSnapshot:
      return "INCREMENTAL_FROM_EARLIEST_SNAPSHOT";
    case StartingStrategy::kIncrementalFromSnapshotId: return "INCREMENTAL_FROM_SNAPSHOT_ID";
    case StartingStrategy::kIncrementalFromSnapshotTimestamp:
      return "INCREMENTAL_FROM_SNAPSHOT_TIMESTAMP";
  }
  return "?";
}

// The streaming rules follow the Flink source's (ScanContext): a starting
// strategy that needs a snapshot id or a timestamp gets exactly that one;
// a streaming read has no end and reads no fixed snapshot.
Status ScanOptions::ValidateStreaming() const {
  namespace k = config::keys;
  using S = StartingStrategy;
  if (!streaming) {
    if (start_snapshot_timestamp) {
      return InvalidArgument("read option '{}' needs '{}=true'", k::kStartSnapshotTimestamp.name,
                             k::kStreaming.name);
    }
    if (starting_strategy != S::kIncrementalFromLatestSnapshot) {
      return InvalidArgument("read option '{}' needs '{}=true'", k::kStartingStrategy.name,
                             k::kStreaming.name);
    }
    return Ok();
  }
  auto batch_only = [&](std::string_view name) {
    return InvalidArgument("read option '{}' is for batch reads and cannot be used with '{}=true'",
                           name, k::kStreaming.name);
  };
  if (snapshot_id) return batch_only(k::kSnapshotId.name);
  if (as_of_timestamp) return batch_only(k::kAsOfTimestamp.name);
  if (tag) return batch_only(k::kTag.name);
  if (start_tag) return batch_only(k::kStartTag.name);
  if (end_snapshot_id) return batch_only(k::kEndSnapshotId.name);
  if (end_tag) return batch_only(k::kEndTag.name);
  if (limit >= 0) return batch_only(k::kLimit.name);
  const bool by_id = starting_strategy == S::kIncrementalFromSnapshotId;
  const bool by_time = starting_strategy == S::kIncrementalFromSnapshotTimestamp;
  if (by_id != bool(start_snapshot_id)) {
    return by_id
               ? InvalidArgument("read option '{}={}' needs '{}'", k::kStartingStrategy.name,
                                 StartingStrategyName(starting_strategy), k::kStartSnapshotId.name)
               : InvalidArgument(
                     "read option '{}' of a streaming read needs '{}=INCREMENTAL_FROM_SNAPSHOT_ID' "
                     "(it is '{}')",
                     k::kStartSnapshotId.name, k::kStartingStrategy.name,
                     StartingStrategyName(starting_strategy));
  }
  if (by_time != bool(start_snapshot_timestamp)) {
    return by_time
               ? InvalidArgument("read option '{}={}' needs '{}'", k::kStartingStrategy.name,
                                 StartingStrategyName(starting_strategy),
                                 k::kStartSnapshotTimestamp.name)
               : InvalidArgument(
                     "read option '{}' needs '{}=INCREMENTAL_FROM_SNAPSHOT_TIMESTAMP' (it is '{}')",
                     k::kStartSnapshotTimestamp.name, k::kStartingStrategy.name,
                     StartingStrategyName(starting_strategy));
  }
  if (monitor_interval <= std::chrono::nanoseconds(0)) {
    return InvalidArgument("read option '{}' must be positive", k::kMonitorInterval.name);
  }
  if (max_planning_snapshot_count < 1) {
    return InvalidArgument("read option '{}' must be >= 1, got {}",
                           k::kMaxPlanningSnapshotCount.name, max_planning_snapshot_count);
  }
  if (max_allowed_planning_failures < -1) {
    return InvalidArgument("read option '{}' must be -1 or >= 0, got {}",
                           k::kMaxAllowedPlanningFailures.name, max_allowed_planning_failures);
  }
  return Ok();
}

Result<ScanOptions> ScanOptions::FromOptions(const std::map<std::string, std::string>& options,
                                             const std::map<std::string, std::string>& table_properties,
                                             const std::map<std::string, std::string>& session) {
  namespace k = config::keys;
  const uint32_t read = uint32_t(config::Scope::kRead);
  FLOE_RETURN_IF_ERROR(config::CheckOptions(options, read, "read options"));
  FLOE_RETURN_IF_ERROR(config::CheckOptions(session, read, "session read options"));
  // The statement and session layers hold read options only; table
  // properties are consulted for the split options they back.
  config::Resolver r({&options, &session, &table_properties});
  ScanOptions o;
  FLOE_ASSIGN_OR_RETURN(o.snapshot_id, r.Get(k::kSnapshotId));
  FLOE_ASSIGN_OR_RETURN(o.as_of_timestamp, r.Get(k::kAsOfTimestamp));
  FLOE_ASSIGN_OR_RETURN(o.branch, r.Get(k::kBranch));
  FLOE_ASSIGN_OR_RETURN(o.tag, r.Get(k::kTag));
  FLOE_ASSIGN_OR_RETURN(o.start_snapshot_id, r.Get(k::kStartSnapshotId));
  FLOE_ASSIGN_OR_RETURN(o.end_snapshot_id, r.Get(k::kEndSnapshotId));
  FLOE_ASSIGN_OR_RETURN(o.start_tag, r.Get(k::kStartTag));
  FLOE_ASSIGN_OR_RETURN(o.end_tag, r.Get(k::kEndTag));
  FLOE_ASSIGN_OR_RETURN(o.case_sensitive, r.Value(k::kCaseSensitive));
  FLOE_ASSIGN_OR_RETURN(o.limit, r.Value(k::kLimit));
  FLOE_ASSIGN_OR_RETURN(o.include_column_stats, r.Value(k::kIncludeColumnStats));
  FLOE_ASSIGN_OR_RETURN(o.split.split_size, r.Value(k::kSplitSize));
  FLOE_ASSIGN_OR_RETURN(o.split.lookback, r.Value(k::kSplitLookback));
  FLOE_ASSIGN_OR_RETURN(o.split.open_file_cost, r.Value(k::kSplitFileOpenCost));
  FLOE_ASSIGN_OR_RETURN(o.streaming, r.Value(k::kStreaming));
  if (!o.streaming) {
    // Streaming options do nothing in a batch read: refuse rather than ignore.
    for (std::string_view name :
         {k::kMonitorInterval.name, k::kStartingStrategy.name, k::kStartSnapshotTimestamp.name,
          k::kMaxPlanningSnapshotCount.name, k::kMaxAllowedPlanningFailures.name}) {
      if (options.contains(std::string(name)) || session.contains(std::string(name)) ||
          session.contains("connector.iceberg." + std::string(name))) {
        return InvalidArgument("read option '{}' needs '{}=true'", name, k::kStreaming.name);
      }
    }
  }
  FLOE_ASSIGN_OR_RETURN(std::string strategy, r.Value(k::kStartingStrategy));
  for (auto s : {StartingStrategy::kTableScanThenIncremental,
                 StartingStrategy::kIncrementalFromLatestSnapshot,
                 StartingStrategy::kIncrementalFromEarliestSnapshot,
                 StartingStrategy::kIncrementalFromSnapshotId,
                 StartingStrategy::kIncrementalFromSnapshotTimestamp}) {
    if (StartingStrategyName(s) == strategy) o.starting_strategy = s;
  }
  FLOE_ASSIGN_OR_RETURN(o.start_snapshot_timestamp, r.Get(k::kStartSnapshotTimestamp));
  FLOE_ASSIGN_OR_RETURN(std::string interval, r.Value(k::kMonitorInterval));
  FLOE_ASSIGN_OR_RETURN(o.monitor_interval, config::ParseDuration(interval));
  FLOE_ASSIGN_OR_RETURN(o.max_planning_snapshot_count, r.Value(k::kMaxPlanningSnapshotCount));
  FLOE_ASSIGN_OR_RETURN(o.max_allowed_planning_failures, r.Value(k::kMaxAllowedPlanningFailures));
  FLOE_RETURN_IF_ERROR(o.Validate());
  return o;
}

// ------------------------------------------------------------ value helpers

namespace {

Literal ValueToLiteral(const Type& type, const Value& v) {
  Literal l;
  l.type = type.id;
  if (v.is_null()) {
    l.is_null = true;
    return l;
  }
  switch (type.id) {
    case TypeId::kBoolean: l.i = v.as_bool(); break;
    case TypeId::kInt:
    case TypeId::kDate: l.i = v.as_int(); break;
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: l.i = v.as_long(); break;
    case TypeId::kFloat: l.d = v.as_float(); break;
    case TypeId::kDouble: l.d = v.as_double(); break;
    case TypeId::kDecimal:
      l.dec = v.as_decimal();
      l.scale = type.scale;
      break;
    default: l.s = v.as_bytes(); break;
  }
  return l;
}

std::optional<Value> LiteralToValue(const Type& type, const Literal& l) {
  if (l.is_null) return Value::Null();
  switch (type.id) {
    case TypeId::kBoolean: return Value::Boolean(l.i != 0);
    case TypeId::kInt:
    case TypeId::kDate:
      if (l.i < INT32_MIN || l.i > INT32_MAX) return std::nullopt;
      return Value::Int(static_cast<int32_t>(l.i));
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: return Value::Long(l.i);
    case TypeId::kFloat: return Value::Float(static_cast<float>(l.d));
    case TypeId::kDouble: return Value::Double(l.d);
    case TypeId::kDecimal:
      if (l.type != TypeId::kDecimal || l.scale != type.scale) return std::nullopt;
      return Value::Decimal(l.dec);
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kFixed:
    case TypeId::kUuid: return Value::Bytes(l.s);
    default: return std::nullopt;
  }
}

// A byte string identifying a partition tuple (spec-local: all tuples of one
// spec have the same types).
std::string PartitionKey(int32_t spec_id, const iceberg::Values& values) {
  std::string k(reinterpret_cast<const char*>(&spec_id), sizeof(spec_id));
  for (const auto& v : values) {
    k.push_back(static_cast<char>(v.v.index()));
    std::visit(
        [&](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, std::monostate>) {
          } else if constexpr (std::is_same_v<T, std::string>) {
            uint64_t n = x.size();
            k.append(reinterpret_cast<const char*>(&n), sizeof(n));
            k.append(x);
          } else {
            k.append(reinterpret_cast<const char*>(&x), sizeof(x));
          }
        },
        v.v);
  }
  return k;
}


// What is known about the values of one partition field in a set of files:
// a point (one file) or a range (a manifest's summary).
struct PartitionRange {
  std::optional<Literal> lower;
  std::optional<Literal> upper;
  bool all_null = false;
  bool may_have_null = true;
  bool is_point = false;
};

bool IsMonotone(TransformKind k) {
  return k == TransformKind::kTruncate || k == TransformKind::kYear || k == TransformKind::kMonth ||
         k == TransformKind::kDay || k == TransformKind::kHour;
}

// The literal `l` of the source type mapped through the transform, typed by
// the partition field's result type; nullopt when it cannot be computed.
std::optional<Literal> TransformLiteral(const PartitionField& pf, const TypePtr& source,
                                        const TypePtr& result, const Literal& l) {
  auto v = LiteralToValue(*source, l);
  if (!v || v->is_null()) return std::nullopt;
  auto t = pf.transform.Apply(source, *v);
  if (!t || t->is_null()) return std::nullopt;
  return ValueToLiteral(*result, *t);
}

bool InRange(const PartitionRange& r, const Literal& t) {
  if (r.lower && expr::Compare(*r.lower, t) > 0) return false;
  if (r.upper && expr::Compare(*r.upper, t) < 0) return false;
  return true;
}

bool PrefixInRange(const PartitionRange& r, const std::string& prefix) {
  auto cmp = [](std::string_view a, std::string_view b) {
    int c = std::memcmp(a.data(), b.data(), std::min(a.size(), b.size()));
    if (c != 0) return c;
    return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
  };
  if (r.lower && cmp(std::string_view(r.lower->s).substr(0, prefix.size()), prefix) > 0) return false;
  if (r.upper && cmp(std::string_view(r.upper->s).substr(0, prefix.size()), prefix) < 0) return false;
  return true;
}

// May a row whose source value satisfies predicate `e` fall in a file whose
// partition field `pf` has values in `r`?
bool FieldMayMatch(const Expr& e, const PartitionField& pf, const TypePtr& source,
                   const TypePtr& result, const PartitionRange& r) {
  const TransformKind k = pf.transform.kind();
  if (k == TransformKind::kVoid || k == TransformKind::kUnknown) return true;
  // Every non-void transform maps null to null and non-null to non-null.
  switch (e.op) {
    case Op::kIsNull: return r.may_have_null;
    case Op::kNotNull: return !r.all_null;
    default: break;
  }
  if (r.all_null) return false;  // comparisons with null never match
  const bool identity = k == TransformKind::kIdentity;
  const bool floating = source->id == TypeId::kFloat || source->id == TypeId::kDouble;
  switch (e.op) {
    case Op::kIsNan:
    case Op::kNotNan: return true;
    case Op::kNe:
    case Op::kNotIn: {
      if (!identity || !r.is_point || !r.lower || floating) return true;
      for (const auto& l : e.literals) {
        if (expr::Compare(*r.lower, l) == 0) return false;
      }
      return true;
    }
    case Op::kNotStartsWith:
      if (identity && r.is_point && r.lower) {
        return !std::string_view(r.lower->s).starts_with(e.literals[0].s);
      }
      return true;
    default: break;
  }
  if (floating) {
    for (const auto& l : e.literals) {
      if (std::isnan(l.d)) return true;
    }
  }
  if (k == TransformKind::kBucket) {
    if (e.op != Op::kEq && e.op != Op::kIn) return true;
    for (const auto& l : e.literals) {
      auto t = TransformLiteral(pf, source, result, l);
      if (!t || InRange(r, *t)) return true;
    }
    return false;
  }
  if (!identity && !IsMonotone(k)) return true;
  if (e.op == Op::kStartsWith) {
    if (source->id != TypeId::kString && source->id != TypeId::kBinary) return true;
    const std::string& prefix = e.literals[0].s;
    if (identity) return PrefixInRange(r, prefix);
    if (k != TransformKind::kTruncate) return true;
    size_t units = source->id == TypeId::kString ? iceberg::Utf8PrefixBytes(prefix, pf.transform.param())
                                                 : std::min<size_t>(prefix.size(), pf.transform.param());
    if (units < prefix.size()) {
      // The prefix is longer than the width: every matching value truncates
      // to the truncated prefix.
      Literal t = e.literals[0];
      t.s = prefix.substr(0, units);
      return InRange(r, t);
    }
    return PrefixInRange(r, prefix);
  }
  if (e.literals.empty()) return true;
  auto t_or = [&](const Literal& l) { return TransformLiteral(pf, source, result, l); };
  Op op = e.op;
  std::optional<Literal> adjusted;
  if (!identity && (op == Op::kLt || op == Op::kGt)) {
    // On integral types a < V is a <= V-1 and a > V is a >= V+1, which
    // projects more tightly through non-injective transforms.
    Literal l = e.literals[0];
    const int64_t step = op == Op::kLt ? -1 : 1;
    switch (source->id) {
      case TypeId::kInt:
      case TypeId::kLong:
      case TypeId::kDate:
      case TypeId::kTime:
      case TypeId::kTimestamp:
      case TypeId::kTimestampTz:
      case TypeId::kTimestampNs:
      case TypeId::kTimestampTzNs:
        if ((step < 0 && l.i == INT64_MIN) || (step > 0 && l.i == INT64_MAX)) break;
        l.i += step;
        adjusted = l;
        op = op == Op::kLt ? Op::kLe : Op::kGe;
        break;
      case TypeId::kDecimal:
        l.dec += step;
        adjusted = l;
        op = op == Op::kLt ? Op::kLe : Op::kGe;
        break;
      default: break;
    }
  }
  const Literal& first = adjusted ? *adjusted : e.literals[0];
  switch (op) {
    case Op::kEq:
    case Op::kIn:
      for (const auto& l : e.literals) {
        auto t = t_or(l);
        if (!t || InRange(r, *t)) return true;
      }
      return false;
    case Op::kLt:
    case Op::kLe: {
      auto t = t_or(first);
      if (!t || !r.lower) return true;
      int c = expr::Compare(*r.lower, *t);
      return identity && op == Op::kLt ? c < 0 : c <= 0;
    }
    case Op::kGt:
    case Op::kGe: {
      auto t = t_or(first);
      if (!t || !r.upper) return true;
      int c = expr::Compare(*r.upper, *t);
      return identity && op == Op::kGt ? c > 0 : c >= 0;
    }
    default: return true;
  }
}

template <typename RangeOf>
bool PartitionWalk(const Expr& e, const PartitionSpec& spec, const Schema& schema,
                   const std::vector<TypePtr>& result_types, const RangeOf& range_of) {
  switch (e.op) {
    case Op::kTrue: return true;
    case Op::kFalse: return false;
    case Op::kAnd:
      return PartitionWalk(*e.children[0], spec, schema, result_types, range_of) &&
             PartitionWalk(*e.children[1], spec, schema, result_types, range_of);
    case Op::kOr:
      return PartitionWalk(*e.children[0], spec, schema, result_types, range_of) ||
             PartitionWalk(*e.children[1], spec, schema, result_types, range_of);
    case Op::kNot: return true;
    default: break;
  }
  const auto& fields = spec.fields();
  for (size_t i = 0; i < fields.size(); ++i) {
    const auto& pf = fields[i];
    if (pf.source_id != e.field_id || !result_types[i]) continue;
    const NestedField* src = schema.FindField(pf.source_id);
    if (!src) continue;
    std::optional<PartitionRange> r = range_of(i, *result_types[i]);
    if (!r) continue;
    if (!FieldMayMatch(e, pf, src->type, result_types[i], *r)) return false;
  }
  return true;
}

std::vector<TypePtr> ResultTypes(const PartitionSpec& spec, const Schema& schema) {
  std::vector<TypePtr> out;
  for (const auto& pf : spec.fields()) {
    const NestedField* src = schema.FindField(pf.source_id);
    TypePtr t;
    if (src && !pf.transform.is_unknown()) {
      auto r = pf.transform.ResultType(src->type);
      if (r) t = *r;
    }
    out.push_back(t);
  }
  return out;
}

bool IsTrivial(const Expr& e) { return e.op == Op::kTrue; }

}  // namespace

bool PartitionMayMatch(const Expr& filter, const PartitionSpec& spec, const Schema& schema,
                       const iceberg::Values& partition) {
  if (IsTrivial(filter) || spec.fields().empty()) return true;
  ExprPtr nnf = expr::RewriteNot(std::make_shared<Expr>(filter));
  auto types = ResultTypes(spec, schema);
  return PartitionWalk(*nnf, spec, schema, types,
                       [&](size_t i, const Type& type) -> std::optional<PartitionRange> {
                         if (i >= partition.size() || !partition[i].Matches(type)) return std::nullopt;
                         PartitionRange r;
                         r.is_point = true;
                         if (partition[i].is_null()) {
                           r.all_null = true;
                           return r;
                         }
                         r.may_have_null = false;
                         r.lower = r.upper = ValueToLiteral(type, partition[i]);
                         return r;
                       });
}

bool ManifestMayMatch(const Expr& filter, const PartitionSpec& spec, const Schema& schema,
                      const ManifestFile& manifest) {
  if (IsTrivial(filter) || spec.fields().empty()) return true;
  if (manifest.partitions.size() != spec.fields().size()) return true;
  ExprPtr nnf = expr::RewriteNot(std::make_shared<Expr>(filter));
  auto types = ResultTypes(spec, schema);
  return PartitionWalk(*nnf, spec, schema, types,
                       [&](size_t i, const Type& type) -> std::optional<PartitionRange> {
                         const auto& s = manifest.partitions[i];
                         PartitionRange r;
                         r.may_have_null = s.contains_null;
                         if (s.lower_bound) {
                           auto v = iceberg::FromBinary(type, *s.lower_bound);
                           if (!v) return std::nullopt;
                           r.lower = ValueToLiteral(type, *v);
                         }
                         if (s.upper_bound) {
                           auto v = iceberg::FromBinary(type, *s.upper_bound);
                           if (!v) return std::nullopt;
                           r.upper = ValueToLiteral(type, *v);
                         }
                         if (!s.lower_bound && !s.upper_bound) {
                           // No bounds: only nulls (or NaNs) in this field.
                           r.all_null = s.contains_null && !s.contains_nan.value_or(false);
                           if (!r.all_null) return std::nullopt;
                         }
                         return r;
                       });
}

bool MetricsMayMatch(const Expr& filter, const Schema& schema, const DataFile& file) {
  if (IsTrivial(filter)) return true;
  expr::FileMetrics m;
  m.record_count = file.record_count;
  auto count = [](const std::map<int32_t, int64_t>& map) {
    return [&map](int32_t id) -> std::optional<int64_t> {
      auto it = map.find(id);
      if (it == map.end()) return std::nullopt;
      return it->second;
    };
  };
  m.value_count = count(file.value_counts);
  m.null_count = count(file.null_value_counts);
  m.nan_count = count(file.nan_value_counts);
  auto bound = [&schema](const std::map<int32_t, std::string>& map) {
    return [&map, &schema](int32_t id) -> std::optional<Literal> {
      auto it = map.find(id);
      if (it == map.end()) return std::nullopt;
      const NestedField* f = schema.FindField(id);
      if (!f || f->type->is_nested()) return std::nullopt;
      auto v = iceberg::FromBinary(*f->type, it->second);
      if (!v || v->is_null()) return std::nullopt;
      return ValueToLiteral(*f->type, *v);
    };
  };
  m.lower_bound = bound(file.lower_bounds);
  m.upper_bound = bound(file.upper_bounds);
  return expr::MayMatch(filter, m);
}

// ---------------------------------------------------------- manifest files

namespace {

Result<std::unique_ptr<InputFile>> OpenStored(io::FileIO& files, const std::string& stored,
                                              std::string_view what) {
  auto in = files.NewInput(stored);
  if (!in) return Fail(in.error().WithContext(fmt::format("{} {}", what, stored)));
  return std::move(*in);
}

}  // namespace

Result<std::vector<ManifestFile>> FileManifestSource::ReadManifestList(const Snapshot& snapshot) {
  if (!snapshot.manifest_list.empty()) {
    FLOE_ASSIGN_OR_RETURN(auto in, OpenStored(*files_, snapshot.manifest_list, "manifest list"));
    auto list = iceberg::ReadManifestList(*in);
    if (!list) {
      return Fail(list.error().WithContext(
          fmt::format("snapshot {}: manifest list {}", snapshot.snapshot_id, snapshot.manifest_list)));
    }
    return list;
  }
  std::vector<ManifestFile> out;
  for (const auto& path : snapshot.manifests) {
    FLOE_ASSIGN_OR_RETURN(auto in, OpenStored(*files_, path, "manifest"));
    auto m = iceberg::DescribeV1Manifest(*in, metadata_, snapshot.snapshot_id);
    if (!m) return Fail(m.error().WithContext(fmt::format("snapshot {}: manifest {}", snapshot.snapshot_id, path)));
    m->manifest_path = path;
    out.push_back(std::move(*m));
  }
  return out;
}

Result<std::vector<ManifestEntry>> ManifestSource::ReadManifestWithDeleted(
    const ManifestFile& manifest) {
  return Unsupported("this manifest source does not return DELETED entries (manifest {})",
                     manifest.manifest_path);
}

namespace {
Result<std::vector<ManifestEntry>> ReadStoredManifest(io::FileIO& files,
                                                      const TableMetadata& metadata,
                                                      const ManifestFile& manifest,
                                                      bool skip_deleted) {
  FLOE_ASSIGN_OR_RETURN(auto in, OpenStored(files, manifest.manifest_path, "manifest"));
  iceberg::ManifestReadOptions o;
  o.include_column_stats = true;  // metrics pruning needs them; the plan drops them unless asked
  o.skip_deleted = skip_deleted;
  return iceberg::ReadManifest(*in, manifest, metadata, o);
}
}  // namespace

Result<std::vector<ManifestEntry>> FileManifestSource::ReadManifest(const ManifestFile& manifest) {
  return ReadStoredManifest(*files_, metadata_, manifest, true);
}

Result<std::vector<ManifestEntry>> FileManifestSource::ReadManifestWithDeleted(
    const ManifestFile& manifest) {
  return ReadStoredManifest(*files_, metadata_, manifest, false);
}

// ------------------------------------------------------------------ deletes

Status AttachDeletes(const TableMetadata& metadata, const std::vector<DeleteFileTaskPtr>& deletes,
                     std::vector<FileScanTask>* files) {
  struct Group {
    std::vector<DeleteFileTaskPtr> positions;
    std::vector<DeleteFileTaskPtr> equalities;
  };
  std::unordered_map<std::string, Group> by_partition;
  // Position deletes scoped to one data file (referenced_data_file: every
  // deletion vector, and the files of write.delete.granularity=file), by
  // that file: a data file looks up its own instead of passing every delete
  // file of its partition (commits x data files of them after many commits).
  std::unordered_map<std::string, std::vector<DeleteFileTaskPtr>> by_data_file;
  std::vector<DeleteFileTaskPtr> global;
  std::unordered_map<std::string, const DeleteFileTask*> vector_of;  // by referenced data file
  for (const auto& d : deletes) {
    const DataFile& f = d->file;
    if (f.content != DataFileContent::kPositionDeletes &&
        f.content != DataFileContent::kEqualityDeletes) {
      return Internal("AttachDeletes: {} is not a delete file", f.file_path);
    }
    const PartitionSpec* spec = metadata.SpecById(d->spec_id);
    if (!spec) {
      return Corrupt("delete file {} has partition spec id {}, which the table does not define",
                     f.file_path, d->spec_id);
    }
    if (iceberg::IsDeletionVector(f)) {
      // Iceberg spec: Deletion Vectors — a position delete of one data file.
      if (f.content != DataFileContent::kPositionDeletes || f.file_format != iceberg::FileFormat::kPuffin) {
        return Corrupt("{}: a deletion vector must be a position delete file in PUFFIN format",
                       iceberg::DeletionVectorName(f));
      }
      if (!f.referenced_data_file) {
        return Corrupt("{}: referenced_data_file is required for a deletion vector", iceberg::DeletionVectorName(f));
      }
      if (!f.content_offset || !f.content_size_in_bytes) {
        return Corrupt("{}: content_offset and content_size_in_bytes are required for a deletion vector",
                       iceberg::DeletionVectorName(f));
      }
      auto [it, inserted] = vector_of.emplace(*f.referenced_data_file, d.get());
      if (!inserted) {
        return Corrupt(
            "data file {} has two live deletion vectors, {} at offset {} and {} at offset {} (the spec allows one "
            "per data file)",
            *f.referenced_data_file, it->second->file.file_path, *it->second->file.content_offset, f.file_path,
            *f.content_offset);
      }
    }
    if (f.content == DataFileContent::kEqualityDeletes && spec->is_unpartitioned()) {
      global.push_back(d);
      continue;
    }
    if (f.content == DataFileContent::kPositionDeletes && f.referenced_data_file) {
      by_data_file[*f.referenced_data_file].push_back(d);
      continue;
    }
    auto& g = by_partition[PartitionKey(d->spec_id, f.partition)];
    (f.content == DataFileContent::kPositionDeletes ? g.positions : g.equalities).push_back(d);
  }
  for (auto& task : *files) {
    const int64_t seq = task.data_sequence_number;
    task.deletes.clear();
    auto it = by_partition.find(PartitionKey(task.spec_id, task.data_file.partition));
    if (it != by_partition.end()) {
      for (const auto& d : it->second.positions) {
        if (seq > d->data_sequence_number) continue;
        if (d->file.referenced_data_file && *d->file.referenced_data_file != task.data_file.file_path) {
          continue;
        }
        task.deletes.push_back(d);
      }
      for (const auto& d : it->second.equalities) {
        if (seq < d->data_sequence_number) task.deletes.push_back(d);
      }
    }
    if (auto own = by_data_file.find(task.data_file.file_path); own != by_data_file.end()) {
      const std::string task_partition = PartitionKey(task.spec_id, task.data_file.partition);
      for (const auto& d : own->second) {
        if (seq > d->data_sequence_number) continue;
        // The spec's rule holds too: the same partition (of the same spec).
        if (PartitionKey(d->spec_id, d->file.partition) != task_partition) continue;
        task.deletes.push_back(d);
      }
    }
    for (const auto& d : global) {
      if (seq < d->data_sequence_number) task.deletes.push_back(d);
    }
  }
  return Ok();
}

// ----------------------------------------------------------------- planning

Result<const Snapshot*> SelectSnapshot(const TableMetadata& metadata, const ScanOptions& options) {
  if (options.snapshot_id) {
    const Snapshot* s = metadata.SnapshotById(*options.snapshot_id);
    if (!s) return NotFound("read option snapshot-id: snapshot {} is not in the table", *options.snapshot_id);
    return s;
  }
  if (options.as_of_timestamp) {
    auto s = metadata.SnapshotAsOf(*options.as_of_timestamp);
    if (!s) {
      return Fail(s.error().WithContext(fmt::format("read option as-of-timestamp {}", *options.as_of_timestamp)));
    }
    return *s;
  }
  if (options.branch || options.tag) {
    const std::string& name = options.branch ? *options.branch : *options.tag;
    const char* what = options.branch ? "branch" : "tag";
    auto it = metadata.refs.find(name);
    if (it == metadata.refs.end()) {
      if (options.branch && name == iceberg::kMainBranch) return metadata.CurrentSnapshot();
      return NotFound("read option {}: the table has no {} named '{}'", what, what, name);
    }
    if (it->second.is_branch() != bool(options.branch)) {
      return InvalidArgument("read option {}: '{}' is a {}, not a {}", what, name,
                             it->second.is_branch() ? "branch" : "tag", what);
    }
    const Snapshot* s = metadata.SnapshotById(it->second.snapshot_id);
    if (!s) return Corrupt("{} '{}' points at snapshot {}, which is not in the table", what, name, it->second.snapshot_id);
    return s;
  }
  return metadata.CurrentSnapshot();
}

namespace {

Result<const Snapshot*> ResolveIncrementalPoint(const TableMetadata& m, const std::optional<int64_t>& id,
                                                const std::optional<std::string>& tag,
                                                std::string_view id_option, std::string_view tag_option) {
  if (id) {
    const Snapshot* s = m.SnapshotById(*id);
    if (!s) return NotFound("read option {}: snapshot {} is not in the table", id_option, *id);
    return s;
  }
  if (tag) {
    auto it = m.refs.find(*tag);
    if (it == m.refs.end() || it->second.is_branch()) {
      return NotFound("read option {}: the table has no tag named '{}'", tag_option, *tag);
    }
    const Snapshot* s = m.SnapshotById(it->second.snapshot_id);
    if (!s) return Corrupt("tag '{}' points at snapshot {}, which is not in the table", *tag, it->second.snapshot_id);
    return s;
  }
  return static_cast<const Snapshot*>(nullptr);
}

Result<SchemaPtr> Project(const SchemaPtr& schema, const std::vector<std::string>& columns,
                          bool case_sensitive) {
  if (columns.empty()) return schema;
  std::vector<NestedField> fields;
  std::set<int32_t> seen;
  for (const auto& name : columns) {
    const NestedField* f = schema->FindTopLevel(name, case_sensitive);
    if (!f) {
      std::string valid;
      for (const auto& c : schema->fields()) valid += (valid.empty() ? "" : ", ") + c.name;
      return NotFound("column projection: no column '{}' in the schema (columns: {})", name, valid);
    }
    if (!seen.insert(f->id).second) return InvalidArgument("column projection: column '{}' is listed twice", name);
    fields.push_back(*f);
  }
  return std::make_shared<const Schema>(std::move(fields), schema->schema_id());
}

// The schema, projection and bound filter of a plan.
Status BindShape(const SchemaPtr& schema, const ScanOptions& options, ScanPlan* plan) {
  plan->table_schema = schema;
  FLOE_ASSIGN_OR_RETURN(plan->projected_schema,
                        Project(schema, options.columns, options.case_sensitive));
  ExprPtr filter = options.filter;
  if (!options.filter_text.empty()) {
    FLOE_ASSIGN_OR_RETURN(ExprPtr parsed, expr::Parse(options.filter_text));
    filter = filter ? expr::And(filter, parsed) : parsed;
  }
  if (filter) {
    FLOE_ASSIGN_OR_RETURN(plan->filter, expr::Bind(filter, *schema, options.case_sensitive));
  } else {
    plan->filter = expr::True();
  }
  return Ok();
}

}  // namespace

Result<ScanPlan> PlanShape(std::shared_ptr<const TableMetadata> metadata,
                           const ScanOptions& options) {
  ScanPlan plan;
  SchemaPtr schema = metadata->CurrentSchema();
  if (!schema) return Corrupt("table metadata has no current schema");
  plan.metadata = std::move(metadata);
  plan.limit = -1;
  FLOE_RETURN_IF_ERROR(BindShape(schema, options, &plan));
  return plan;
}

Result<ScanPlan> PlanScan(std::shared_ptr<const TableMetadata> metadata_ptr, const ScanOptions& options,
                          ManifestSource* source) {
  FLOE_RETURN_IF_ERROR(options.Validate());
  if (options.streaming) {
    return InvalidArgument(
        "read option '{}=true': a streaming read is planned snapshot by snapshot "
        "(StreamingScan), not as one batch scan",
        config::keys::kStreaming.name);
  }
  const TableMetadata& metadata = *metadata_ptr;
  ScanPlan plan;
  plan.metadata = metadata_ptr;
  plan.limit = options.limit;

  const bool incremental = options.start_snapshot_id || options.start_tag;
  const Snapshot* snapshot = nullptr;
  std::set<int64_t> incremental_ids;
  if (incremental) {
    FLOE_ASSIGN_OR_RETURN(const Snapshot* start,
                          ResolveIncrementalPoint(metadata, options.start_snapshot_id, options.start_tag,
                                                  config::keys::kStartSnapshotId.name,
                                                  config::keys::kStartTag.name));
    FLOE_ASSIGN_OR_RETURN(const Snapshot* end,
                          ResolveIncrementalPoint(metadata, options.end_snapshot_id, options.end_tag,
                                                  config::keys::kEndSnapshotId.name,
                                                  config::keys::kEndTag.name));
    if (!end) end = metadata.CurrentSnapshot();
    if (!end) return InvalidArgument("incremental read: the table has no snapshots");
    bool found = false;
    std::vector<const Snapshot*> range;
    for (const Snapshot* s : metadata.Ancestors(end->snapshot_id)) {
      if (s->snapshot_id == start->snapshot_id) {
        found = true;
        break;
      }
      range.push_back(s);
    }
    if (!found) {
      return InvalidArgument("incremental read: start snapshot {} is not an ancestor of end snapshot {}",
                             start->snapshot_id, end->snapshot_id);
    }
    for (const Snapshot* s : range) {
      if (s->operation != iceberg::SnapshotOperation::kAppend) {
        return Unsupported(
            "incremental read: snapshot {} in ({}, {}] is a '{}' snapshot; only append snapshots can be "
            "read incrementally (as Flink's incremental append scan)",
            s->snapshot_id, start->snapshot_id, end->snapshot_id,
            s->operation ? iceberg::SnapshotOperationName(*s->operation) : std::string_view("unknown"));
      }
      incremental_ids.insert(s->snapshot_id);
    }
    snapshot = end;
  } else {
    FLOE_ASSIGN_OR_RETURN(snapshot, SelectSnapshot(metadata, options));
  }

  // Schema: the current one for the current snapshot (and incremental reads),
  // the snapshot's own for time travel.
  SchemaPtr schema = metadata.CurrentSchema();
  if (snapshot && !incremental && snapshot != metadata.CurrentSnapshot() && snapshot->schema_id) {
    SchemaPtr s = metadata.SchemaById(*snapshot->schema_id);
    if (!s) {
      return Corrupt("snapshot {} has schema id {}, which the table does not define", snapshot->snapshot_id,
                     *snapshot->schema_id);
    }
    schema = s;
  }
  if (!schema) return Corrupt("table metadata has no current schema");
  FLOE_RETURN_IF_ERROR(BindShape(schema, options, &plan));
  if (!snapshot) return plan;
  plan.snapshot_id = snapshot->snapshot_id;

  FLOE_ASSIGN_OR_RETURN(auto manifests, source->ReadManifestList(*snapshot));
  std::vector<DeleteFileTaskPtr> deletes;
  std::unordered_set<std::string> live_paths;
  for (const ManifestFile& manifest : manifests) {
    ++plan.counters.manifests;
    const PartitionSpec* spec = metadata.SpecById(manifest.partition_spec_id);
    if (!spec) {
      return Corrupt("manifest {} has partition spec id {}, which the table does not define",
                     manifest.manifest_path, manifest.partition_spec_id);
    }
    const bool data_manifest = manifest.content == iceberg::ManifestContent::kData;
    if (incremental) {
      if (!data_manifest || !incremental_ids.contains(manifest.added_snapshot_id)) {
        ++plan.counters.manifests_skipped;
        continue;
      }
    }
    if (data_manifest && !ManifestMayMatch(*plan.filter, *spec, *schema, manifest)) {
      ++plan.counters.manifests_skipped;
      continue;
    }
    FLOE_ASSIGN_OR_RETURN(auto entries, source->ReadManifest(manifest));
    for (ManifestEntry& entry : entries) {
      if (!entry.is_live()) continue;
      DataFile& f = entry.data_file;
      // (Several deletion vectors share one Puffin file: DeleteFileKey.)
      if (!live_paths.insert(DeleteFileKey(f)).second) {
        return Corrupt("file {} is live twice in snapshot {} (manifest {})", f.file_path, snapshot->snapshot_id,
                       manifest.manifest_path);
      }
      if (!entry.sequence_number) {
        return Corrupt("manifest {}: entry for {} has no data sequence number", manifest.manifest_path,
                       f.file_path);
      }
      if (f.content == DataFileContent::kData) {
        if (!data_manifest) {
          return Corrupt("manifest {} holds delete files but lists data file {}", manifest.manifest_path,
                         f.file_path);
        }
        if (incremental) {
          if (entry.status != iceberg::ManifestEntryStatus::kAdded || !entry.snapshot_id ||
              !incremental_ids.contains(*entry.snapshot_id)) {
            continue;
          }
        }
        ++plan.counters.data_files;
        if (!PartitionMayMatch(*plan.filter, *spec, *schema, f.partition)) {
          ++plan.counters.data_files_skipped_by_partition;
          continue;
        }
        if (!MetricsMayMatch(*plan.filter, *schema, f)) {
          ++plan.counters.data_files_skipped_by_metrics;
          continue;
        }
        FileScanTask task;
        task.data_sequence_number = *entry.sequence_number;
        task.spec_id = manifest.partition_spec_id;
        task.data_file = std::move(f);
        if (!options.include_column_stats) {
          task.data_file.column_sizes.clear();
          task.data_file.value_counts.clear();
          task.data_file.null_value_counts.clear();
          task.data_file.nan_value_counts.clear();
          task.data_file.lower_bounds.clear();
          task.data_file.upper_bounds.clear();
        }
        plan.files.push_back(std::move(task));
      } else {
        if (incremental) continue;
        ++plan.counters.delete_files;
        auto d = std::make_shared<DeleteFileTask>();
        d->data_sequence_number = *entry.sequence_number;
        d->spec_id = manifest.partition_spec_id;
        d->file = std::move(f);
        deletes.push_back(std::move(d));
      }
    }
  }
  FLOE_RETURN_IF_ERROR(AttachDeletes(metadata, deletes, &plan.files));

  // Splits: files cut at their split offsets (row-group starts), packed.
  std::vector<FileRange> ranges;
  for (size_t i = 0; i < plan.files.size(); ++i) {
    const DataFile& f = plan.files[i].data_file;
    int64_t delete_bytes = 0;
    for (const auto& d : plan.files[i].deletes) delete_bytes += d->file.file_size_in_bytes;
    std::vector<FileRange> r;
    if (f.split_offsets.empty()) {
      // Without row-group offsets a file is read whole.
      SplitOptions whole = options.split;
      whole.split_size = std::max<int64_t>(f.file_size_in_bytes, 1);
      r = SplitFile(static_cast<int64_t>(i), f.file_size_in_bytes, {}, delete_bytes, whole);
    } else {
      r = SplitFile(static_cast<int64_t>(i), f.file_size_in_bytes, f.split_offsets, delete_bytes, options.split);
      if (r.size() > 1 && r.front().start != 0) r.front().start = 0;
    }
    ranges.insert(ranges.end(), r.begin(), r.end());
  }
  plan.splits = PackSplits(ranges, options.split);
  return plan;
}

std::string DeleteFileKey(const DataFile& file) {
  if (!iceberg::IsDeletionVector(file)) return file.file_path;
  return file.file_path + "@" + (file.content_offset ? std::to_string(*file.content_offset) : std::string("?"));
}

}  // namespace floe::table
