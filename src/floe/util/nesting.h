/// \file
/// Nesting limits for untrusted input, in one place. Table metadata, schemas
/// (Iceberg JSON and the Avro schemas manifests embed), name mappings and
/// filters are walked by recursive code: without a limit checked first, a
/// hostile or broken file nests deeply enough to overflow the stack (issue 7).
/// A limit turns that into an error naming the limit and where it was passed.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace floe {

/// How deep a schema's types may nest (struct in list in map ...), counted
/// one level per nested type. Parquet files cap deeper still (64 schema
/// levels, reader_schema.h); the SQL column-list parser uses the same 200.
inline constexpr int kMaxTypeDepth = 200;

/// How deep JSON text floe reads may nest arrays and objects. A schema at
/// kMaxTypeDepth costs three JSON levels per struct inside table metadata, so
/// this leaves room for every legal document.
inline constexpr int kMaxJsonDepth = 1000;

/// Where JSON text first opens a level past `limit`: the byte offset of that
/// '[' or '{', or nullopt if the text stays within it. Brackets inside strings
/// do not count (escapes honoured). The text need not be valid JSON; syntax is
/// the parser's business, this only keeps the parser and every walk of its
/// result within a bounded depth. One pass, no allocation.
std::optional<size_t> JsonNestingBeyond(std::string_view text, int limit = kMaxJsonDepth);

}  // namespace floe
