/// \file
/// Test support: bytes as lowercase hex and back, for expected encodings
/// written as hex strings (Avro, Iceberg single values, Parquet statistics).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace floe::test {

/// Lowercase hex, two digits a byte ("\x01\xff" -> "01ff").
std::string Hex(std::string_view bytes);
std::string Hex(const void* data, size_t size);

/// The bytes of a hex text; an odd trailing digit is ignored. A digit that is
/// not hex fails the running test (the expected value itself is wrong).
std::string Unhex(std::string_view hex);

}  // namespace floe::test
