/// \file
/// The JSONL decoder's fast path for the common flat row (internal to the
/// format module): one hand-written pass over a line that both validates it
/// as JSON (RFC 8259 grammar for objects, strings, numbers and literals;
/// UTF-8 checked; control characters in strings rejected) and decodes its
/// values straight into the batch's columns, without simdjson's stage 1.
/// Values go in as they are read; if the line turns out not to be one for
/// the fast path, the values it appended are taken back (nulls are appended
/// only once the line is known to be good, as a first null materializes the
/// column's validity vector).
///
/// It accepts a strict subset of what the simdjson path (jsonl_reader.cc)
/// accepts and produces bit-identical values for it. Anything else makes
/// Decode() return false, and the reader decodes the line with simdjson, which
/// gives the result or the error message. Handled: keys without escapes that
/// name a top-level column (any order, each at most once); values null,
/// true/false, JSON numbers and escape-free strings for every primitive type,
/// null for nested columns. Falls back on: escapes, unknown or duplicate
/// keys, a non-null nested value, a missing or null NOT NULL column, any
/// value the type rejects, and any malformed or unusual input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "floe/format/value_parse.h"
#include "floe/types/column_vector.h"
#include "floe/types/type.h"

namespace floe::format {

namespace internal {
/// Turns the fast path on or off for JsonlReaders created afterwards
/// (process-wide; default on). For the differential tests and fuzzer.
void SetJsonlFastPathEnabled(bool enabled);
/// Whether readers created now use the fast path.
bool JsonlFastPathEnabled();
/// Lines decoded by the fast path in this process so far (tests).
int64_t JsonlFastPathLines();
/// Adds `n` to JsonlFastPathLines() (the reader, once per batch).
void AddJsonlFastPathLines(int64_t n);
}  // namespace internal

/// Decodes one flat JSONL line straight into the columns of a batch.
class JsonlFastPath {
 public:
  /// A plan for the top-level columns of `schema`.
  explicit JsonlFastPath(const Schema& schema);

  /// Tries the line starting at `p`, appending its row to `cols` (one column
  /// per top-level field, in schema order). The buffer must hold, after the
  /// valid bytes, a NUL byte and then at least 63 more readable bytes
  /// (ByteStream's zeroed padding): the scanner stops at the NUL without
  /// bounds checks and reads up to 32 bytes at a time. On success
  /// `*line_len` is the offset of the '\n' that ends the line. On false the
  /// columns are as before the call: decode the line another way.
  bool Decode(const char* p, ColumnVector* cols, size_t* line_len);

 private:
  enum class Kind : uint8_t {
    kBool,
    kInt,
    kLong,
    kFloat,
    kDouble,
    kDecimal,
    kString,
    kDate,
    kTime,
    kTimestamp,
    kUuid,
    kHex,
    kOther,  // kOther: nested (and anything else): null only
  };
  struct Column {
    const Type* type = nullptr;
    Kind kind = Kind::kOther;
    bool required = false;
    bool raw_name = false;  ///< the name may be matched against raw key bytes
    int width = 0;          ///< bytes per value of a fixed-width column (0: offsets)
    std::string name;
    uint64_t key0 = 0, key1 = 0;    ///< name + '"', first 16 bytes, zero-padded
    uint64_t mask0 = 0, mask1 = 0;  ///< which of those bytes to compare
  };
  /// One column's state in the line being decoded.
  struct Slot {
    uint32_t gen = 0;       ///< == gen_ when the key was seen in this line
    bool null = false;      ///< the value was null (appended at the end of the line)
    bool appended = false;  ///< a value was appended (taken back if the line fails)
  };

  bool ScanLine(const char* p, ColumnVector* cols, size_t* line_len);
  // Inlined into ScanLine() (defined in the .cc, used only there).
  [[gnu::always_inline]] inline const char* ScanValue(const Column& c, ColumnVector& col, Slot& s,
                                                      const char* p);
  [[gnu::always_inline]] inline bool KeyIs(const char* p, const Column& c) const;
  /// Takes back the values a failed line appended.
  void Rollback(ColumnVector* cols);

  std::vector<Column> cols_;
  std::vector<Slot> slots_;
  std::vector<int> required_;
  std::unordered_map<std::string_view, int> index_;
  uint32_t gen_ = 0;
  DateCache date_cache_;
  std::string hex_;
};

}  // namespace floe::format
