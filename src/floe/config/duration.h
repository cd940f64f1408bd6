/// \file
/// Durations written as Flink writes them in its configuration (Flink
/// Configuration: Duration type; `monitor-interval` of the Iceberg Flink
/// source): a whole number, optional white space, then an optional unit —
/// d/day(s), h/hour(s), m/min/minute(s), s/sec(s)/second(s), ms/milli(s)/
/// millisecond(s), us/µs/micro(s)/microsecond(s), ns/nano(s)/nanosecond(s);
/// no unit means milliseconds; units are case-insensitive ("1s", "500 ms",
/// "1 min").
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "floe/util/status.h"

namespace floe::config {

/// Parses `text` into nanoseconds; kInvalidArgument naming the text and the
/// units when it is not a duration, negative or too long for 64 bits of
/// nanoseconds (about 292 years).
Result<std::chrono::nanoseconds> ParseDuration(std::string_view text);

/// For OptionDef::validate: empty when `text` is a duration, else what is wrong.
std::string ValidateDuration(std::string_view text);

}  // namespace floe::config
