/// \file
/// Compact-protocol (de)serialization of the generated Parquet Thrift structs.
/// Internal to the parquet module: includes the heavy generated header.
/// Thrift throws; these helpers catch at the module edge and return Errors.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "floe/parquet/thrift/parquet_types.h"
#include "floe/util/buffer.h"
#include "floe/util/status.h"

namespace floe::parquet {


/// Limits applied when decoding untrusted metadata: no string or container in
/// a footer or page header may claim more than what the buffer holds.
struct ThriftLimits {
  int64_t max_string_bytes = 256 << 20;
  int64_t max_container_items = 64 << 20;
};

/// The integer value of a decoded Thrift enum field. Untrusted files can hold
/// any int32 there, outside the enum's range; reading the field as the enum
/// type would be undefined behaviour (UBSan flags it), so copy its bytes.
template <typename E>
inline int32_t EnumValue(const E& e) {
  static_assert(sizeof(E) == sizeof(int32_t));
  int32_t v;
  std::memcpy(&v, &e, sizeof(v));
  return v;
}

/// Appends the compact-protocol encoding of `value` to `out`.
template <typename T>
Status SerializeThrift(const T& value, Buffer* out);

/// Decodes `value` from [data, data+*size); on success *size becomes the
/// number of bytes consumed. `what` names the structure in errors.
template <typename T>
Status DeserializeThrift(const uint8_t* data, uint32_t* size, T* value, const char* what,
                         ThriftLimits limits = {});

}  // namespace floe::parquet
