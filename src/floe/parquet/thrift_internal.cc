#include "floe/parquet/thrift_internal.h"

#include <thrift/protocol/TCompactProtocol.h>
#include <thrift/transport/TBufferTransports.h>

#include <exception>

namespace floe::parquet {

using apache::thrift::protocol::TCompactProtocolT;
using apache::thrift::transport::TMemoryBuffer;

template <typename T>
Status SerializeThrift(const T& value, Buffer* out) {
  try {
    auto mem = std::make_shared<TMemoryBuffer>(1024);
    TCompactProtocolT<TMemoryBuffer> proto(mem);
    value.write(&proto);
    uint8_t* p = nullptr;
    uint32_t n = 0;
    mem->getBuffer(&p, &n);
    out->Append(p, n);
    return Ok();
  } catch (const std::exception& e) {
    return Internal("thrift serialization failed: {}", e.what());
  }
}

template <typename T>
Status DeserializeThrift(const uint8_t* data, uint32_t* size, T* value, const char* what,
                         ThriftLimits limits) {
  // Thrift's memory transport does pointer arithmetic on the buffer even when
  // it is empty, which is undefined on a null pointer.
  if (data == nullptr || *size == 0) return Corrupt("cannot decode Parquet {}: no bytes", what);
  try {
    auto mem = std::make_shared<TMemoryBuffer>(const_cast<uint8_t*>(data), *size,
                                               TMemoryBuffer::OBSERVE);
    // A string or container can never hold more than the bytes available.
    int64_t cap = static_cast<int64_t>(*size);
    TCompactProtocolT<TMemoryBuffer> proto(mem, std::min(limits.max_string_bytes, cap),
                                           std::min(limits.max_container_items, cap));
    value->read(&proto);
    *size = *size - mem->available_read();
    return Ok();
  } catch (const std::exception& e) {
    return Corrupt("cannot decode Parquet {}: {}", what, e.what());
  }
}

#define FLOE_THRIFT_INSTANTIATE(T)                                                      \
  template Status SerializeThrift<T>(const T&, Buffer*);                                \
  template Status DeserializeThrift<T>(const uint8_t*, uint32_t*, T*, const char*, ThriftLimits);
FLOE_THRIFT_INSTANTIATE(format::FileMetaData)
FLOE_THRIFT_INSTANTIATE(format::PageHeader)
FLOE_THRIFT_INSTANTIATE(format::ColumnIndex)
FLOE_THRIFT_INSTANTIATE(format::OffsetIndex)
FLOE_THRIFT_INSTANTIATE(format::BloomFilterHeader)
#undef FLOE_THRIFT_INSTANTIATE

}  // namespace floe::parquet
