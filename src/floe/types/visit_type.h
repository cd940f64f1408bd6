/// \file
/// One dispatch over the type id: VisitType(type, visitor) calls
/// `visitor(TypeTag<id>{})` with a tag that carries the compile-time facts of
/// that type (its Iceberg name, whether it is nested or parameterized, the C++
/// type and byte width a ColumnVector stores its values in). Code that needs
/// something per type writes one generic lambda with `if constexpr` on the
/// tag's facts instead of a switch with 19 cases that repeat the same groups
/// (the idea of iceberg-cpp's util/visit_type.h, written for floe's flat Type).
///
/// The dispatch is a switch, so it costs what a switch costs; still, keep it
/// out of loops that dispatch per value: dispatch once per column and loop
/// inside the visitor.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>

#include "floe/types/type.h"

namespace floe {

/// How a ColumnVector lays out the values of a type (column_vector.h).
enum class ValueLayout {
  kFixedWidth,  ///< `width` bytes per value in `values`
  kOffsets,     ///< variable-length bytes in `values`, bounds in `offsets`
  kStruct,      ///< children, one per field
  kList,        ///< `offsets` into child 0
  kMap,         ///< `offsets` into children 0 (keys) and 1 (values)
};

/// Compile-time facts of one type id; VisitType passes one of these.
template <TypeId kId>
struct TypeTag;

namespace type_tag_internal {
template <TypeId kId, typename C, int kW, ValueLayout kL, bool kParam = false>
struct Base {
  static constexpr TypeId id = kId;
  /// The C++ type a ColumnVector holds one value in (void for nested types;
  /// std::string_view for byte types, read with ColumnVector::bytes).
  using CType = C;
  /// Bytes per value for fixed-width layouts; 0 when the type decides (fixed[L]) or
  /// the values vary in length.
  static constexpr int width = kW;
  static constexpr ValueLayout layout = kL;
  static constexpr bool is_nested =
      kL == ValueLayout::kStruct || kL == ValueLayout::kList || kL == ValueLayout::kMap;
  /// Decimal and fixed carry parameters; their name alone is no complete type.
  static constexpr bool is_parameterized = kParam;
};
}  // namespace type_tag_internal

#define FLOE_TYPE_TAG(ID, NAME, CTYPE, WIDTH, LAYOUT, ...)                        \
  template <>                                                                     \
  struct TypeTag<TypeId::ID>                                                      \
      : type_tag_internal::Base<TypeId::ID, CTYPE, WIDTH,                         \
                                ValueLayout::LAYOUT __VA_OPT__(, ) __VA_ARGS__> { \
    /** Iceberg's name ("decimal" and "fixed" without their parameters). */       \
    static constexpr std::string_view name = NAME;                                \
  }

// Iceberg spec: Schemas and Data Types (names); column_vector.h (layouts).
FLOE_TYPE_TAG(kBoolean, "boolean", uint8_t, 1, kFixedWidth);
FLOE_TYPE_TAG(kInt, "int", int32_t, 4, kFixedWidth);
FLOE_TYPE_TAG(kLong, "long", int64_t, 8, kFixedWidth);
FLOE_TYPE_TAG(kFloat, "float", float, 4, kFixedWidth);
FLOE_TYPE_TAG(kDouble, "double", double, 8, kFixedWidth);
FLOE_TYPE_TAG(kDecimal, "decimal", int128_t, 16, kFixedWidth, true);
FLOE_TYPE_TAG(kDate, "date", int32_t, 4, kFixedWidth);
FLOE_TYPE_TAG(kTime, "time", int64_t, 8, kFixedWidth);
FLOE_TYPE_TAG(kTimestamp, "timestamp", int64_t, 8, kFixedWidth);
FLOE_TYPE_TAG(kTimestampTz, "timestamptz", int64_t, 8, kFixedWidth);
FLOE_TYPE_TAG(kTimestampNs, "timestamp_ns", int64_t, 8, kFixedWidth);
FLOE_TYPE_TAG(kTimestampTzNs, "timestamptz_ns", int64_t, 8, kFixedWidth);
FLOE_TYPE_TAG(kString, "string", std::string_view, 0, kOffsets);
FLOE_TYPE_TAG(kUuid, "uuid", std::string_view, 16, kFixedWidth);
FLOE_TYPE_TAG(kFixed, "fixed", std::string_view, 0, kFixedWidth, true);
FLOE_TYPE_TAG(kBinary, "binary", std::string_view, 0, kOffsets);
FLOE_TYPE_TAG(kStruct, "struct", void, 0, kStruct);
FLOE_TYPE_TAG(kList, "list", void, 0, kList);
FLOE_TYPE_TAG(kMap, "map", void, 0, kMap);

#undef FLOE_TYPE_TAG

/// Every type id, in declaration order (for tables and tests that walk all of them).
inline constexpr TypeId kAllTypeIds[] = {
    TypeId::kBoolean,   TypeId::kInt,         TypeId::kLong,        TypeId::kFloat,
    TypeId::kDouble,    TypeId::kDecimal,     TypeId::kDate,        TypeId::kTime,
    TypeId::kTimestamp, TypeId::kTimestampTz, TypeId::kTimestampNs, TypeId::kTimestampTzNs,
    TypeId::kString,    TypeId::kUuid,        TypeId::kFixed,       TypeId::kBinary,
    TypeId::kStruct,    TypeId::kList,        TypeId::kMap};

/// Calls `visitor(TypeTag<id>{})` for the tag of `id` and returns what it
/// returns (every call must return the same type). The switch has no default,
/// so a new TypeId without a tag fails to compile (-Wswitch) here, once.
template <typename Visitor>
constexpr decltype(auto) VisitTypeId(TypeId id, Visitor&& visitor) {
#define FLOE_VISIT_CASE(ID) \
  case TypeId::ID: return std::forward<Visitor>(visitor)(TypeTag<TypeId::ID>{})
  switch (id) {
    FLOE_VISIT_CASE(kBoolean);
    FLOE_VISIT_CASE(kInt);
    FLOE_VISIT_CASE(kLong);
    FLOE_VISIT_CASE(kFloat);
    FLOE_VISIT_CASE(kDouble);
    FLOE_VISIT_CASE(kDecimal);
    FLOE_VISIT_CASE(kDate);
    FLOE_VISIT_CASE(kTime);
    FLOE_VISIT_CASE(kTimestamp);
    FLOE_VISIT_CASE(kTimestampTz);
    FLOE_VISIT_CASE(kTimestampNs);
    FLOE_VISIT_CASE(kTimestampTzNs);
    FLOE_VISIT_CASE(kString);
    FLOE_VISIT_CASE(kUuid);
    FLOE_VISIT_CASE(kFixed);
    FLOE_VISIT_CASE(kBinary);
    FLOE_VISIT_CASE(kStruct);
    FLOE_VISIT_CASE(kList);
    FLOE_VISIT_CASE(kMap);
  }
#undef FLOE_VISIT_CASE
  // An id outside the enum (a corrupt byte): treat it as boolean rather than
  // fall off the end; every caller validated its types long before.
  return std::forward<Visitor>(visitor)(TypeTag<TypeId::kBoolean>{});
}

/// VisitTypeId on `type.id`; the visitor reads parameters and fields from `type`.
template <typename Visitor>
constexpr decltype(auto) VisitType(const Type& type, Visitor&& visitor) {
  return VisitTypeId(type.id, std::forward<Visitor>(visitor));
}

/// Iceberg's name of a type id ("timestamptz", "decimal", "list").
constexpr std::string_view TypeIdName(TypeId id) {
  return VisitTypeId(id, [](auto tag) { return decltype(tag)::name; });
}

}  // namespace floe
