/// \file
/// The page checksum of Parquet (parquet.thrift, PageHeader.crc): the standard
/// CRC-32 (polynomial 0x04C11DB7, bit-reflected, as in gzip) of the page's bytes
/// as stored after its header, i.e. after compression. It covers every page type:
/// for v1 data pages the compressed levels and values, for v2 data pages the
/// uncompressed level bytes and the (optionally compressed) values, and for
/// dictionary pages the compressed dictionary. The header itself is not covered.
/// Internal to the parquet module.
#pragma once

#include <cstddef>
#include <cstdint>

namespace floe::parquet {

/// CRC-32 of [data, data + size), as written to PageHeader.crc (an i32 holding
/// the unsigned value's bits); the same value as zlib's crc32(0, data, size).
/// Every page written and read goes through it, so on x86-64 CPUs with PCLMULQDQ
/// it folds 64 bytes a step with carry-less multiplication (several times
/// zlib's table-driven speed); elsewhere, and for short inputs, it is zlib's.
uint32_t PageCrc(const uint8_t* data, size_t size);

}  // namespace floe::parquet
