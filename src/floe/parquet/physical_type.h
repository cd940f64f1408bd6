/// \file
/// Parquet physical types, shared by the writer's schema mapping and the
/// reader's decoders; the values are those of parquet.thrift `Type`.
#pragma once

#include <cstdint>

namespace floe::parquet {

enum class PhysicalType : uint8_t {
  kBoolean = 0,
  kInt32 = 1,
  kInt64 = 2,
  kInt96 = 3,
  kFloat = 4,
  kDouble = 5,
  kByteArray = 6,
  kFixedLenByteArray = 7,
};

}  // namespace floe::parquet
