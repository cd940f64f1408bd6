/// \file
/// Column metrics configuration (Iceberg table properties
/// `write.metadata.metrics.default` and `write.metadata.metrics.column.<name>`;
/// modes none, counts, truncate(N), full; default truncate(16)) and applying a
/// mode to a column's raw metrics: counts-only drops bounds, none drops
/// everything, truncate(N) shortens string bounds to N code points and binary
/// bounds to N bytes, with the upper bound rounded up so it still bounds every
/// value (Iceberg Java MetricsConfig, UnicodeUtil, BinaryUtil; PITFALLS 92).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "floe/config/options.h"
#include "floe/types/type.h"
#include "floe/util/status.h"

namespace floe::iceberg {

inline constexpr std::string_view kMetricsDefaultProperty = config::keys::kMetricsDefault.name;
inline constexpr std::string_view kMetricsColumnPrefix = config::keys::kMetricsColumn.name;

enum class MetricsModeKind : uint8_t { kNone, kCounts, kTruncate, kFull };

/// One metrics mode.
struct MetricsMode {
  MetricsModeKind kind = MetricsModeKind::kTruncate;
  int32_t length = 16;  ///< truncate(N) only

  static MetricsMode None() { return {MetricsModeKind::kNone, 0}; }
  static MetricsMode Counts() { return {MetricsModeKind::kCounts, 0}; }
  static MetricsMode Full() { return {MetricsModeKind::kFull, 0}; }
  static MetricsMode Truncate(int32_t n) { return {MetricsModeKind::kTruncate, n}; }

  /// "none", "counts", "full", "truncate(N)" with N > 0 (case-insensitive).
  static Result<MetricsMode> Parse(std::string_view text);
  std::string ToString() const;
  bool operator==(const MetricsMode&) const = default;
};

/// The table's metrics configuration: a default mode and per-column modes.
class MetricsConfig {
 public:
  /// truncate(16) for every column.
  MetricsConfig() = default;

  /// Reads the metrics properties; a bad mode is kInvalidArgument naming the property.
  static Result<MetricsConfig> FromProperties(const std::map<std::string, std::string>& properties);

  /// The mode for a column by its full dotted name ("loc.lat").
  MetricsMode ModeFor(std::string_view column_name) const;
  const MetricsMode& default_mode() const { return default_; }

  /// Every per-column property names a column of the schema.
  Status ValidateColumns(const Schema& schema) const;

 private:
  MetricsMode default_;
  std::map<std::string, MetricsMode, std::less<>> columns_;
};

/// One column's metrics in a data file: counts and binary single-value bounds.
struct ColumnMetrics {
  std::optional<int64_t> column_size;
  std::optional<int64_t> value_count;
  std::optional<int64_t> null_count;
  std::optional<int64_t> nan_count;
  std::optional<std::string> lower_bound;
  std::optional<std::string> upper_bound;
  bool operator==(const ColumnMetrics&) const = default;
};

/// Applies a mode to the raw (full-value) metrics of a column of `type`.
ColumnMetrics ApplyMetricsMode(const MetricsMode& mode, const Type& type, ColumnMetrics raw);

/// The first `length` code points of a UTF-8 string (a valid lower bound).
std::string TruncateStringLower(std::string_view utf8, int32_t length);
/// A string of at most `length` code points that is >= every string with
/// `utf8`'s prefix: the prefix with its last code point incremented (dropping
/// trailing code points that cannot be incremented). The value itself when it
/// is short enough; nullopt when no such bound exists.
std::optional<std::string> TruncateStringUpper(std::string_view utf8, int32_t length);
/// The first `length` bytes.
std::string TruncateBinaryLower(std::string_view bytes, int32_t length);
/// The first `length` bytes with the last byte below 0xFF incremented; nullopt
/// when all are 0xFF.
std::optional<std::string> TruncateBinaryUpper(std::string_view bytes, int32_t length);

}  // namespace floe::iceberg
