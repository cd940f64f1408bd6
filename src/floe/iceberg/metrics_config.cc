#include "floe/iceberg/metrics_config.h"

#include <cctype>
#include <charconv>

#include "floe/iceberg/spec_json_internal.h"
#include "floe/iceberg/transform.h"
#include "floe/util/strings.h"

namespace floe::iceberg {

namespace {

// Decodes the UTF-8 code point starting at s[i]; sets *len to its byte length.
// Invalid bytes decode as themselves with length 1.
uint32_t DecodeAt(std::string_view s, size_t i, size_t* len) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = b(i);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
  if (i + n > s.size()) n = 1;
  *len = n;
  if (n == 1) return c;
  uint32_t cp = c & (0xFF >> (n + 1));
  for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (b(i + k) & 0x3F);
  return cp;
}

void Encode(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace

Result<MetricsMode> MetricsMode::Parse(std::string_view text) {
  std::string t = ToLower(text);
  if (t == "none") return None();
  if (t == "counts") return Counts();
  if (t == "full") return Full();
  if (t.starts_with("truncate(") && t.ends_with(")")) {
    std::string_view inner(t.data() + 9, t.size() - 10);
    int32_t n = 0;
    auto [p, ec] = std::from_chars(inner.data(), inner.data() + inner.size(), n);
    if (ec == std::errc() && p == inner.data() + inner.size() && n > 0) return Truncate(n);
    return InvalidArgument("metrics mode '{}': the truncate length must be a positive integer", text);
  }
  return InvalidArgument("metrics mode '{}' is not none, counts, full or truncate(N)", text);
}

std::string MetricsMode::ToString() const {
  switch (kind) {
    case MetricsModeKind::kNone: return "none";
    case MetricsModeKind::kCounts: return "counts";
    case MetricsModeKind::kFull: return "full";
    case MetricsModeKind::kTruncate: return fmt::format("truncate({})", length);
  }
  return "full";
}

Result<MetricsConfig> MetricsConfig::FromProperties(
    const std::map<std::string, std::string>& properties) {
  MetricsConfig config;
  for (const auto& [key, value] : properties) {
    if (key == kMetricsDefaultProperty) {
      auto mode = MetricsMode::Parse(value);
      if (!mode) return InvalidArgument("table property '{}': {}", key, mode.error().message);
      config.default_ = *mode;
    } else if (key.starts_with(kMetricsColumnPrefix)) {
      std::string column = key.substr(kMetricsColumnPrefix.size());
      if (column.empty()) return InvalidArgument("table property '{}' names no column", key);
      auto mode = MetricsMode::Parse(value);
      if (!mode) return InvalidArgument("table property '{}': {}", key, mode.error().message);
      config.columns_[column] = *mode;
    }
  }
  return config;
}

MetricsMode MetricsConfig::ModeFor(std::string_view column_name) const {
  auto it = columns_.find(column_name);
  return it == columns_.end() ? default_ : it->second;
}

Status MetricsConfig::ValidateColumns(const Schema& schema) const {
  auto index = IndexFields(schema);
  for (const auto& [name, mode] : columns_) {
    bool found = false;
    for (const auto& [id, f] : index) found |= f.path == name;
    if (!found) {
      return InvalidArgument("table property '{}{}' names a column that is not in the schema",
                             kMetricsColumnPrefix, name);
    }
  }
  return Ok();
}

std::string TruncateStringLower(std::string_view utf8, int32_t length) {
  return std::string(utf8.substr(0, Utf8PrefixBytes(utf8, length)));
}

std::optional<std::string> TruncateStringUpper(std::string_view utf8, int32_t length) {
  size_t prefix = Utf8PrefixBytes(utf8, length);
  if (prefix == utf8.size()) return std::string(utf8);
  // Code point start offsets of the prefix.
  std::vector<size_t> starts;
  for (size_t i = 0; i < prefix;) {
    size_t n = 0;
    DecodeAt(utf8, i, &n);
    starts.push_back(i);
    i += n;
  }
  for (size_t k = starts.size(); k-- > 0;) {
    size_t n = 0;
    uint32_t cp = DecodeAt(utf8, starts[k], &n);
    uint32_t next = cp + 1;
    if (next >= 0xD800 && next <= 0xDFFF) next = 0xE000;  // skip the surrogates
    if (next > 0x10FFFF) continue;                         // the max code point cannot grow
    std::string out(utf8.substr(0, starts[k]));
    Encode(next, &out);
    return out;
  }
  return std::nullopt;
}

std::string TruncateBinaryLower(std::string_view bytes, int32_t length) {
  return std::string(bytes.substr(0, static_cast<size_t>(length)));
}

std::optional<std::string> TruncateBinaryUpper(std::string_view bytes, int32_t length) {
  if (bytes.size() <= static_cast<size_t>(length)) return std::string(bytes);
  std::string out(bytes.substr(0, static_cast<size_t>(length)));
  while (!out.empty()) {
    auto last = static_cast<unsigned char>(out.back());
    if (last != 0xFF) {
      out.back() = static_cast<char>(last + 1);
      return out;
    }
    out.pop_back();
  }
  return std::nullopt;
}

ColumnMetrics ApplyMetricsMode(const MetricsMode& mode, const Type& type, ColumnMetrics raw) {
  switch (mode.kind) {
    case MetricsModeKind::kNone: return ColumnMetrics{};
    case MetricsModeKind::kCounts:
      raw.lower_bound.reset();
      raw.upper_bound.reset();
      return raw;
    case MetricsModeKind::kFull: return raw;
    case MetricsModeKind::kTruncate: break;
  }
  if (type.id == TypeId::kString) {
    if (raw.lower_bound) raw.lower_bound = TruncateStringLower(*raw.lower_bound, mode.length);
    if (raw.upper_bound) raw.upper_bound = TruncateStringUpper(*raw.upper_bound, mode.length);
  } else if (type.id == TypeId::kBinary) {
    if (raw.lower_bound) raw.lower_bound = TruncateBinaryLower(*raw.lower_bound, mode.length);
    if (raw.upper_bound) raw.upper_bound = TruncateBinaryUpper(*raw.upper_bound, mode.length);
  }
  return raw;
}

}  // namespace floe::iceberg
