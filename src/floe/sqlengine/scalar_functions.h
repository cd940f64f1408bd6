/// \file
/// Flink's built-in scalar functions that ETL uses daily, with Flink's
/// semantics (SqlFunctionUtils, BinaryStringDataUtil, DateTimeUtils):
/// strings (SUBSTRING 1-based with a negative start counting from the end,
/// TRIM / LTRIM / RTRIM, REPLACE, REGEXP_REPLACE, REGEXP_EXTRACT, SPLIT_INDEX,
/// CONCAT_WS, LPAD / RPAD, POSITION, INITCAP, and Unicode UPPER / LOWER),
/// math (ROUND half-up, FLOOR, CEIL, POWER, SQRT, LN, LOG10, EXP, SIGN,
/// TRUNCATE), time (DATE_FORMAT, TO_TIMESTAMP, TO_DATE, UNIX_TIMESTAMP,
/// FROM_UNIXTIME, EXTRACT, TIMESTAMPADD, TIMESTAMPDIFF, DATE / TIMESTAMP ±
/// INTERVAL), JSON_VALUE / JSON_QUERY, MD5 / SHA256.
///
/// Case mapping and regular expressions are ICU's (Debian's libicu): its
/// case mapping is the full Unicode mapping Java's String.toUpperCase /
/// toLowerCase applies (ß upper-cases to SS), and its regular expressions
/// follow java.util.regex's syntax, which Flink's REGEXP_* functions use.
/// Positions and lengths count code points (Java counts UTF-16 units: the two
/// differ only for characters outside the Basic Multilingual Plane).
/// The session time zone is UTC (floe's only one): UNIX_TIMESTAMP,
/// FROM_UNIXTIME and the TIMESTAMP_LTZ values read and print in UTC.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "floe/sqlengine/expr_eval.h"

namespace floe::sqlengine {

enum class ScalarFn : uint8_t {
  kSubstring,
  kTrim,  ///< unit: BOTH / LEADING / TRAILING; args [s] or [s, chars]
  kReplace,
  kRegexpReplace,
  kRegexpExtract,
  kSplitIndex,
  kConcatWs,
  kLpad,
  kRpad,
  kPosition,  ///< args [needle, haystack]
  kInitcap,
  kUpper,
  kLower,
  kRound,     ///< args [x] or [x, digits]
  kFloor,
  kCeil,
  kTruncate,
  kSign,
  kPower,
  kSqrt,
  kLn,
  kLog10,
  kExp,
  kDateFormat,     ///< args [timestamp, format]
  kToTimestamp,    ///< args [string] or [string, format]
  kToDate,         ///< args [string] or [string, format]
  kUnixTimestamp,  ///< args [string] or [string, format]
  kFromUnixtime,   ///< args [seconds] or [seconds, format]
  kExtract,        ///< unit; args [date or timestamp]
  kTimestampAdd,   ///< unit; args [n, date or timestamp]
  kTimestampDiff,  ///< unit; args [a, b]
  kAddInterval,    ///< months, micros (signed); args [date or timestamp]
  kJsonValue,
  kJsonQuery,
  kMd5,
  kSha256,
};

/// Evaluates a kScalar call over `args` (already evaluated, of the types
/// the binder cast them to) for `n` rows.
Result<ColumnVector> EvaluateScalar(const BoundExpr& e, const std::vector<ColumnVector>& args,
                                    int64_t n);

/// The signatures of a function floe implements, for the "No match found for
/// function signature" error ("SUBSTRING(<CHARACTER>, <INTEGER>[, <INTEGER>])");
/// empty for a name floe does not know.
std::string ScalarSignatures(std::string_view upper_name);

/// Months and microseconds of an INTERVAL literal ('1' DAY, '1-2' YEAR TO
/// MONTH, '1 02:03:04.5' DAY TO SECOND); false when the value does not fit
/// the unit.
bool ParseIntervalLiteral(std::string_view value, std::string_view unit, bool negative,
                          int64_t* months, int64_t* micros);

/// A date-time pattern (Java's letters y M d H m s S, quoted 'text', any
/// other character literal) checked: empty when fine, else why not.
std::string CheckDateTimePattern(std::string_view pattern);

}  // namespace floe::sqlengine
