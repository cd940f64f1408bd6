/// \file
/// Sort orders (Iceberg spec: Sorting, Appendix C Sort Orders): fields with a
/// transform, source id, direction and null order; order id 0 is unsorted.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "floe/iceberg/transform.h"
#include "floe/types/type.h"
#include "floe/util/status.h"

namespace floe::iceberg {

enum class SortDirection : uint8_t { kAsc, kDesc };
enum class NullOrder : uint8_t { kNullsFirst, kNullsLast };

/// "asc"/"desc" and "nulls-first"/"nulls-last", both ways.
std::string_view SortDirectionName(SortDirection d);
std::string_view NullOrderName(NullOrder n);
Result<SortDirection> ParseSortDirection(std::string_view text);
Result<NullOrder> ParseNullOrder(std::string_view text);

/// One sort key.
struct SortField {
  Transform transform;
  int32_t source_id = 0;
  SortDirection direction = SortDirection::kAsc;
  NullOrder null_order = NullOrder::kNullsFirst;
  bool operator==(const SortField&) const = default;
};

/// A sort order: its id and keys. Id 0 is reserved for the unsorted order.
class SortOrder {
 public:
  /// The unsorted order (id 0, no fields).
  SortOrder() = default;
  SortOrder(int32_t order_id, std::vector<SortField> fields)
      : order_id_(order_id), fields_(std::move(fields)) {}
  static SortOrder Unsorted() { return SortOrder(); }

  int32_t order_id() const { return order_id_; }
  const std::vector<SortField>& fields() const { return fields_; }
  bool is_unsorted() const { return fields_.empty(); }

  /// Id 0 iff no fields; every source exists, is primitive and accepted by
  /// its (known) transform.
  Status Validate(const Schema& schema) const;

  bool operator==(const SortOrder&) const = default;

 private:
  int32_t order_id_ = 0;
  std::vector<SortField> fields_;
};

/// Appendix C sort order object.
Result<std::string> SortOrderToJson(const SortOrder& order);
Result<SortOrder> SortOrderFromJson(std::string_view json);

}  // namespace floe::iceberg
