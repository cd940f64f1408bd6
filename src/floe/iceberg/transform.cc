#include "floe/iceberg/transform.h"

#include <bit>
#include <cctype>
#include <charconv>
#include <cstring>

#include "floe/iceberg/murmur3.h"
#include "floe/iceberg/temporal.h"
#include "floe/util/strings.h"

namespace floe::iceberg {

namespace {

bool IsTimestamp(TypeId id) {
  return id == TypeId::kTimestamp || id == TypeId::kTimestampTz || id == TypeId::kTimestampNs ||
         id == TypeId::kTimestampTzNs;
}


// A fixed-width column mapped value by value; validity is copied.
template <typename In, typename Out, typename F>
ColumnVector MapFixed(const ColumnVector& src, TypePtr result_type, F f) {
  ColumnVector out(std::move(result_type));
  const int64_t n = src.length;
  out.values.Resize(static_cast<size_t>(n) * sizeof(Out));
  const In* in = src.data<In>();
  Out* o = out.mutable_data<Out>();
  for (int64_t i = 0; i < n; ++i) o[i] = f(in[i]);
  out.validity = src.validity;
  out.length = n;
  return out;
}

// A string/binary/fixed/uuid column mapped to a fixed-width output.
template <typename Out, typename F>
ColumnVector MapBytes(const ColumnVector& src, TypePtr result_type, F f) {
  ColumnVector out(std::move(result_type));
  const int64_t n = src.length;
  out.values.Resize(static_cast<size_t>(n) * sizeof(Out));
  Out* o = out.mutable_data<Out>();
  for (int64_t i = 0; i < n; ++i) o[i] = f(src.bytes(i));
  out.validity = src.validity;
  out.length = n;
  return out;
}

int32_t TruncateInt(int32_t v, int32_t w) {
  int64_t m = ((static_cast<int64_t>(v) % w) + w) % w;
  return static_cast<int32_t>(static_cast<uint32_t>(v) - static_cast<uint32_t>(m));
}

int64_t TruncateLong(int64_t v, int32_t w) {
  int64_t m = ((v % w) + w) % w;
  return static_cast<int64_t>(static_cast<uint64_t>(v) - static_cast<uint64_t>(m));
}

int128_t TruncateDecimal(int128_t v, int32_t w) { return v - (((v % w) + w) % w); }

}  // namespace

size_t Utf8PrefixBytes(std::string_view s, int64_t max_code_points) {
  int64_t seen = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    // A code point starts at every byte that is not a continuation byte.
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      if (seen == max_code_points) return i;
      ++seen;
    }
  }
  return s.size();
}

Result<Transform> Transform::Parse(std::string_view text, bool allow_unknown) {
  std::string t = ToLower(text);
  if (t == "identity") return Identity();
  if (t == "year") return Year();
  if (t == "month") return Month();
  if (t == "day") return Day();
  if (t == "hour") return Hour();
  if (t == "void") return Void();
  auto parametric = [&](std::string_view prefix, TransformKind kind) -> std::optional<Result<Transform>> {
    if (!t.starts_with(prefix) || !t.ends_with("]")) return std::nullopt;
    std::string_view inner(t.data() + prefix.size(), t.size() - prefix.size() - 1);
    int32_t n = 0;
    auto [p, ec] = std::from_chars(inner.data(), inner.data() + inner.size(), n);
    if (ec != std::errc() || p != inner.data() + inner.size() || n <= 0) {
      return Result<Transform>(InvalidArgument(
          "transform '{}': the parameter must be a positive integer", text));
    }
    return Result<Transform>(Transform(kind, n));
  };
  if (auto r = parametric("bucket[", TransformKind::kBucket)) return *r;
  if (auto r = parametric("truncate[", TransformKind::kTruncate)) return *r;
  if (!allow_unknown) {
    return InvalidArgument(
        "unknown transform '{}' (known: identity, bucket[N], truncate[W], year, month, day, hour, "
        "void)",
        text);
  }
  Transform out(TransformKind::kUnknown, 0);
  out.unknown_text_ = std::string(text);
  return out;
}

bool Transform::is_time() const {
  return kind_ == TransformKind::kYear || kind_ == TransformKind::kMonth ||
         kind_ == TransformKind::kDay || kind_ == TransformKind::kHour;
}

std::string Transform::ToString() const {
  switch (kind_) {
    case TransformKind::kIdentity: return "identity";
    case TransformKind::kBucket: return fmt::format("bucket[{}]", param_);
    case TransformKind::kTruncate: return fmt::format("truncate[{}]", param_);
    case TransformKind::kYear: return "year";
    case TransformKind::kMonth: return "month";
    case TransformKind::kDay: return "day";
    case TransformKind::kHour: return "hour";
    case TransformKind::kVoid: return "void";
    case TransformKind::kUnknown: return unknown_text_;
  }
  return unknown_text_;
}

bool Transform::CanTransform(const Type& source) const {
  const TypeId id = source.id;
  switch (kind_) {
    case TransformKind::kIdentity: return !source.is_nested();
    case TransformKind::kVoid: return true;
    case TransformKind::kBucket:
      return id == TypeId::kInt || id == TypeId::kLong || id == TypeId::kDecimal ||
             id == TypeId::kDate || id == TypeId::kTime || IsTimestamp(id) ||
             id == TypeId::kString || id == TypeId::kUuid || id == TypeId::kFixed ||
             id == TypeId::kBinary;
    case TransformKind::kTruncate:
      return id == TypeId::kInt || id == TypeId::kLong || id == TypeId::kDecimal ||
             id == TypeId::kString || id == TypeId::kBinary;
    case TransformKind::kYear:
    case TransformKind::kMonth:
    case TransformKind::kDay: return id == TypeId::kDate || IsTimestamp(id);
    case TransformKind::kHour: return IsTimestamp(id);
    case TransformKind::kUnknown: return false;
  }
  return false;
}

Result<TypePtr> Transform::ResultType(const TypePtr& source) const {
  if (kind_ == TransformKind::kUnknown) {
    return Unsupported("transform '{}' is not supported: it cannot be applied", unknown_text_);
  }
  if (!source) return InvalidArgument("transform {}: no source type", ToString());
  if (!CanTransform(*source)) {
    return InvalidArgument("transform {} cannot be applied to type {}", ToString(),
                           source->ToString());
  }
  switch (kind_) {
    case TransformKind::kIdentity:
    case TransformKind::kTruncate:
    case TransformKind::kVoid: return source;
    case TransformKind::kDay: return DateType();
    default: return IntType();
  }
}

Result<ColumnVector> Transform::Apply(const ColumnVector& src) const {
  FLOE_ASSIGN_OR_RETURN(TypePtr rt, ResultType(src.type));
  const TypeId id = src.type->id;
  const int32_t p = param_;
  switch (kind_) {
    case TransformKind::kIdentity: return src;
    case TransformKind::kVoid: {
      ColumnVector out(rt);
      for (int64_t i = 0; i < src.length; ++i) out.AppendNull();
      return out;
    }
    case TransformKind::kBucket: {
      auto bucket_long = [p](int64_t v) { return BucketOfHash(HashLong(v), p); };
      switch (id) {
        case TypeId::kInt:
        case TypeId::kDate: return MapFixed<int32_t, int32_t>(src, rt, bucket_long);
        case TypeId::kTimestampNs:
        case TypeId::kTimestampTzNs:
          return MapFixed<int64_t, int32_t>(src, rt, [p](int64_t v) {
            return BucketOfHash(HashLong(FloorDiv(v, kNanosPerMicro)), p);
          });
        case TypeId::kDecimal:
          return MapFixed<int128_t, int32_t>(
              src, rt, [p](int128_t v) { return BucketOfHash(HashDecimal(v), p); });
        case TypeId::kString:
        case TypeId::kBinary:
        case TypeId::kFixed:
        case TypeId::kUuid:
          return MapBytes<int32_t>(
              src, rt, [p](std::string_view b) { return BucketOfHash(HashBytes(b), p); });
        default: return MapFixed<int64_t, int32_t>(src, rt, bucket_long);
      }
    }
    case TransformKind::kTruncate: {
      switch (id) {
        case TypeId::kInt:
          return MapFixed<int32_t, int32_t>(src, rt, [p](int32_t v) { return TruncateInt(v, p); });
        case TypeId::kLong:
          return MapFixed<int64_t, int64_t>(src, rt, [p](int64_t v) { return TruncateLong(v, p); });
        case TypeId::kDecimal:
          return MapFixed<int128_t, int128_t>(src, rt,
                                              [p](int128_t v) { return TruncateDecimal(v, p); });
        default: {  // string (code points) or binary (bytes)
          ColumnVector out(rt);
          out.values.Reserve(src.values.size());
          out.offsets.reserve(static_cast<size_t>(src.length) + 1);
          const bool is_string = id == TypeId::kString;
          for (int64_t i = 0; i < src.length; ++i) {
            std::string_view b = src.bytes(i);
            size_t n = is_string ? Utf8PrefixBytes(b, p) : std::min<size_t>(b.size(), p);
            out.values.Append(b.data(), n);
            out.offsets.push_back(static_cast<int64_t>(out.values.size()));
          }
          out.validity = src.validity;
          out.length = src.length;
          return out;
        }
      }
    }
    case TransformKind::kYear:
    case TransformKind::kMonth:
    case TransformKind::kDay:
    case TransformKind::kHour: {
      const TransformKind k = kind_;
      if (id == TypeId::kDate) {
        // day of a date is the date itself; hour never takes a date.
        return MapFixed<int32_t, int32_t>(src, rt, [k](int32_t d) {
          if (k == TransformKind::kYear) return YearsFromDays(d);
          if (k == TransformKind::kMonth) return MonthsFromDays(d);
          return d;
        });
      }
      const int64_t scale = IsNanosTimestamp(id) ? kNanosPerMicro : 1;
      const int64_t per_day = kMicrosPerDay * scale;
      const int64_t per_hour = kMicrosPerHour * scale;
      switch (k) {
        case TransformKind::kYear:
          return MapFixed<int64_t, int32_t>(
              src, rt, [per_day](int64_t v) { return YearsFromDays(FloorDiv(v, per_day)); });
        case TransformKind::kMonth:
          return MapFixed<int64_t, int32_t>(
              src, rt, [per_day](int64_t v) { return MonthsFromDays(FloorDiv(v, per_day)); });
        case TransformKind::kDay:
          return MapFixed<int64_t, int32_t>(
              src, rt, [per_day](int64_t v) { return static_cast<int32_t>(FloorDiv(v, per_day)); });
        default:
          return MapFixed<int64_t, int32_t>(
              src, rt, [per_hour](int64_t v) { return static_cast<int32_t>(FloorDiv(v, per_hour)); });
      }
    }
    case TransformKind::kUnknown: break;
  }
  return Unsupported("transform '{}' is not supported: it cannot be applied", ToString());
}

Result<Value> Transform::Apply(const TypePtr& source, const Value& value) const {
  if (!source) return InvalidArgument("transform {}: no source type", ToString());
  if (!value.Matches(*source)) {
    return InvalidArgument("transform {}: value does not have the physical form of {}", ToString(),
                           source->ToString());
  }
  ColumnVector column(source);
  FLOE_RETURN_IF_ERROR(AppendValue(&column, value));
  FLOE_ASSIGN_OR_RETURN(ColumnVector out, Apply(column));
  return ValueAt(out, 0);
}

std::string Transform::DefaultPartitionName(std::string_view source_name) const {
  std::string s(source_name);
  switch (kind_) {
    case TransformKind::kIdentity: return s;
    case TransformKind::kBucket: return s + "_bucket";
    case TransformKind::kTruncate: return s + "_trunc";
    case TransformKind::kYear: return s + "_year";
    case TransformKind::kMonth: return s + "_month";
    case TransformKind::kDay: return s + "_day";
    case TransformKind::kHour: return s + "_hour";
    case TransformKind::kVoid: return s + "_null";
    case TransformKind::kUnknown: return s + "_" + unknown_text_;
  }
  return s;
}

Result<int32_t> HashValue(const Type& type, const Value& value) {
  if (value.is_null()) return InvalidArgument("a null {} has no hash", type.ToString());
  if (!value.Matches(type)) {
    return InvalidArgument("value does not have the physical form of {}", type.ToString());
  }
  switch (type.id) {
    case TypeId::kBoolean: return HashLong(value.as_bool() ? 1 : 0);
    case TypeId::kInt:
    case TypeId::kDate: return HashLong(value.as_int());
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: return HashLong(value.as_long());
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: return HashLong(FloorDiv(value.as_long(), kNanosPerMicro));
    case TypeId::kFloat:
    case TypeId::kDouble: {
      // Appendix B note 5: floats hash as doubles; NaN and -0.0 canonicalized.
      double d = type.id == TypeId::kFloat ? static_cast<double>(value.as_float()) : value.as_double();
      uint64_t bits = d != d ? 0x7ff8000000000000ULL : std::bit_cast<uint64_t>(d == 0.0 ? 0.0 : d);
      return HashLong(static_cast<int64_t>(bits));
    }
    case TypeId::kDecimal: return HashDecimal(value.as_decimal());
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kFixed:
    case TypeId::kUuid: return HashBytes(value.as_bytes());
    default: break;
  }
  return InvalidArgument("{} values cannot be hashed", type.ToString());
}

}  // namespace floe::iceberg
