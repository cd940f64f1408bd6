/// \file
/// Text forms of primitive values, shared by the JSONL and CSV decoders: the
/// Iceberg spec's JSON single-value forms (Appendix D, the forms
/// floe/types/json_value.h prints) and the natural spellings people write.
///
///   boolean   true / false (any case)
///   int, long decimal digits with an optional sign; range-checked
///   float, double  a decimal number, NaN, Infinity, -Infinity (also inf, nan)
///   decimal   [-+]digits[.digits][e[-+]N]: exact (no binary floating point);
///             fraction digits beyond the scale must be zeros, and the total
///             must fit the precision
///   date      YYYY-MM-DD (other years with a sign and 4 to 9 digits: +010000, -0001)
///   time      HH:MM[:SS[.f...]] up to 9 fraction digits (beyond 6 must be zeros)
///   timestamp YYYY-MM-DD[(T| )HH:MM[:SS[.f...]]] without a zone; for the tz
///             types a zone Z, +HH:MM, +HHMM or +HH may follow (none = UTC);
///             fraction digits beyond the unit (6, or 9 for _ns) must be zeros
///   uuid      8-4-4-4-12 hex digits (or 32 hex digits), any case
///   fixed, binary  hex digits, any case, even count (fixed: exactly L bytes)
/// A failure is kInvalidArgument with a message naming the value and the rule,
/// without the line or column (the decoders add those).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "floe/types/sql_schema.h"
#include "floe/types/type.h"
#include "floe/util/civil_time.h"
#include "floe/util/status.h"

namespace floe::format {

/// Quotes a value for a message, cut to 64 bytes: '2024-13-01'.
std::string QuoteValue(std::string_view text);

Result<bool> ParseBoolText(std::string_view text);
/// An integer of a column of type `type` (int, long): range-checked for int.
Result<int64_t> ParseIntegerText(std::string_view text, const Type& type);
Result<double> ParseDoubleText(std::string_view text);
Result<float> ParseFloatText(std::string_view text);
/// The common shapes only, for a decoder's hot loop: true with the value the
/// Text parser gives, false when the Text parser must decide (any other
/// shape, and every error). Int64: "-"? and 1 to 18 digits. Double: "-"?,
/// digits, then "." and digits, at most 15 digits in all (so m / 10^k of two
/// exact doubles, which one division rounds correctly).
bool ParseInt64Fast(std::string_view text, int64_t* out);
bool ParseDoubleFast(std::string_view text, double* out);
/// The unscaled value of a decimal(P, S) column.
Result<int128_t> ParseDecimalText(std::string_view text, const Type& type);
/// Days since 1970-01-01.
Result<int32_t> ParseDateText(std::string_view text);
/// Microseconds since midnight.
Result<int64_t> ParseTimeText(std::string_view text);
/// The date part of the last timestamp parsed (consecutive rows usually share it).
using DateCache = civil::DateCache;

/// Microseconds (or nanoseconds for the _ns types) since the epoch, for any
/// of the four timestamp types. `cache` (optional) skips re-parsing a date
/// equal to the previous one.
Result<int64_t> ParseTimestampText(std::string_view text, const Type& type,
                                   DateCache* cache = nullptr);
/// Only the fixed-position shape "YYYY-MM-DD[T ]HH:MM:SS[.ffffff]" of
/// ParseTimestampText (the common one, checked 8 bytes at a time): true with
/// the same value ParseTimestampText gives, or false when it must decide
/// (any other shape and every error). Never allocates.
bool ParseTimestampFast(std::string_view text, const Type& type, DateCache* cache, int64_t* out);
/// 16 bytes, big-endian, into `out`.
Status ParseUuidText(std::string_view text, uint8_t out[16]);
/// Hex digits into bytes appended to `out`; `expected_len` >= 0 requires that many bytes.
Status ParseHexText(std::string_view text, int32_t expected_len, std::string* out);

/// Standard base64 (RFC 4648 section 4, `=` padding required when the length
/// is not a multiple of 4 of the encoded bytes: Java's Base64 encoder, which
/// Kafka Connect's JSON converter uses for bytes) into bytes appended to `out`;
/// `expected_len` >= 0 requires that many bytes.
Status ParseBase64Text(std::string_view text, int32_t expected_len, std::string* out);

/// A decimal(P, S) column's unscaled value from `bytes`, a big-endian two's
/// complement integer (Kafka Connect's Decimal, Java's
/// BigInteger.toByteArray()) of scale `scale`: rescaled to S exactly (a value
/// with non-zero digits beyond S is an error), then checked against P.
/// `text` is the encoded value, for messages.
Result<int128_t> DecimalFromUnscaledBytes(std::string_view bytes, int32_t scale, const Type& type,
                                          std::string_view text);

}  // namespace floe::format
