#include "floe/iceberg/sort_order.h"

#include "floe/iceberg/spec_json_internal.h"

namespace floe::iceberg {

namespace ji = json_internal;

std::string_view SortDirectionName(SortDirection d) {
  return d == SortDirection::kAsc ? "asc" : "desc";
}

std::string_view NullOrderName(NullOrder n) {
  return n == NullOrder::kNullsFirst ? "nulls-first" : "nulls-last";
}

Result<SortDirection> ParseSortDirection(std::string_view text) {
  if (text == "asc" || text == "ASC") return SortDirection::kAsc;
  if (text == "desc" || text == "DESC") return SortDirection::kDesc;
  return InvalidArgument("sort direction '{}' is not 'asc' or 'desc'", text);
}

Result<NullOrder> ParseNullOrder(std::string_view text) {
  if (text == "nulls-first" || text == "NULLS_FIRST") return NullOrder::kNullsFirst;
  if (text == "nulls-last" || text == "NULLS_LAST") return NullOrder::kNullsLast;
  return InvalidArgument("null order '{}' is not 'nulls-first' or 'nulls-last'", text);
}

Status SortOrder::Validate(const Schema& schema) const {
  if (order_id_ == 0 && !fields_.empty()) {
    return InvalidArgument("sort order 0 is reserved for the unsorted order but has {} fields",
                           fields_.size());
  }
  if (order_id_ != 0 && fields_.empty()) {
    return InvalidArgument("sort order {} has no fields: only order 0 may be unsorted", order_id_);
  }
  auto index = IndexFields(schema);
  for (const auto& f : fields_) {
    std::string ctx = fmt::format("sort order {}: field with source id {}", order_id_, f.source_id);
    if (f.transform.is_unknown()) {
      return Unsupported("{}: transform '{}' is unknown", ctx, f.transform.ToString());
    }
    auto it = index.find(f.source_id);
    if (it == index.end()) return InvalidArgument("{}: the source id is not in the schema", ctx);
    const auto& source = it->second;
    if (source.field->type->is_nested() || source.in_collection) {
      return InvalidArgument("{}: column '{}' must be a primitive outside lists and maps", ctx,
                             source.path);
    }
    if (!f.transform.CanTransform(*source.field->type)) {
      return InvalidArgument("{}: transform {} cannot be applied to column '{}' of type {}", ctx,
                             f.transform.ToString(), source.path, source.field->type->ToString());
    }
  }
  return Ok();
}

Json SortOrderToJsonValue(const SortOrder& order) {
  Json j = Json::object();
  j["order-id"] = order.order_id();
  Json fields = Json::array();
  for (const auto& f : order.fields()) {
    Json fj = Json::object();
    fj["transform"] = f.transform.ToString();
    fj["source-id"] = f.source_id;
    fj["direction"] = SortDirectionName(f.direction);
    fj["null-order"] = NullOrderName(f.null_order);
    fields.push_back(std::move(fj));
  }
  j["fields"] = std::move(fields);
  return j;
}

Result<SortOrder> SortOrderFromJsonValue(const Json& j) {
  if (!j.is_object()) return Corrupt("sort order must be an object, got {}", ji::KindName(j));
  FLOE_ASSIGN_OR_RETURN(int32_t order_id, ji::GetInt(j, "order-id", "sort order"));
  std::string ctx = fmt::format("sort order {}", order_id);
  const Json* fields = ji::Find(j, "fields");
  if (!fields || !fields->is_array()) return Corrupt("{}: 'fields' must be an array", ctx);
  std::vector<SortField> out;
  for (size_t i = 0; i < fields->size(); ++i) {
    const Json& f = (*fields)[i];
    std::string where = fmt::format("{}: fields[{}]", ctx, i);
    SortField field;
    if (!ji::Find(f, "source-id") && ji::Find(f, "source-ids")) {
      return Unsupported("{}: multi-argument transforms ('source-ids') are not supported", where);
    }
    FLOE_ASSIGN_OR_RETURN(field.source_id, ji::GetInt(f, "source-id", where));
    FLOE_ASSIGN_OR_RETURN(std::string transform, ji::GetString(f, "transform", where));
    auto t = Transform::Parse(transform, /*allow_unknown=*/true);
    if (!t) return Corrupt("{}: {}", where, t.error().message);
    field.transform = *t;
    FLOE_ASSIGN_OR_RETURN(std::string direction, ji::GetString(f, "direction", where));
    auto d = ParseSortDirection(direction);
    if (!d) return Corrupt("{}: {}", where, d.error().message);
    field.direction = *d;
    FLOE_ASSIGN_OR_RETURN(std::string null_order, ji::GetString(f, "null-order", where));
    auto n = ParseNullOrder(null_order);
    if (!n) return Corrupt("{}: {}", where, n.error().message);
    field.null_order = *n;
    out.push_back(std::move(field));
  }
  return SortOrder(order_id, std::move(out));
}

Result<std::string> SortOrderToJson(const SortOrder& order) {
  return ji::Dump(SortOrderToJsonValue(order));
}

Result<SortOrder> SortOrderFromJson(std::string_view json) {
  FLOE_ASSIGN_OR_RETURN(Json j, ji::Parse(json, "sort order JSON"));
  return SortOrderFromJsonValue(j);
}

}  // namespace floe::iceberg
