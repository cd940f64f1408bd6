/// \file
/// Java-compatible sanitizing of column names for Avro and Parquet schemas
/// (one implementation for both, so a column's Parquet and Avro names agree)
/// (Iceberg Java AvroSchemaUtil.makeCompatibleName; PITFALLS 44): names must
/// match [A-Za-z_][A-Za-z0-9_]*; a leading digit d becomes "_d", any other
/// invalid character c becomes "_x" + uppercase hex of its code point
/// ("a b" -> "a_x20b"). The original name is kept by the caller (Avro
/// `iceberg-field-name`). Java treats non-ASCII letters as valid; floe keeps
/// names ASCII and escapes them, so they agree for ASCII names only.
#pragma once

#include <string>
#include <string_view>

namespace floe {

/// True if `name` is a valid Avro name ([A-Za-z_][A-Za-z0-9_]*).
bool IsValidAvroName(std::string_view name);

/// The sanitized name; valid names are returned unchanged.
std::string SanitizeName(std::string_view name);

}  // namespace floe
