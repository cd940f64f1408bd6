#include "floe/config/duration.h"

#include <array>
#include <cstdint>
#include <limits>
#include <utility>

#include "floe/util/strings.h"

namespace floe::config {

namespace {

constexpr std::string_view kUnits =
    "d, h, m/min, s, ms, us, ns (or day, hour, minute, second, milli, micro, nano, plurals "
    "allowed)";

// Nanoseconds per unit; labels are matched lower-cased.
struct Unit {
  std::string_view label;
  int64_t nanos;
};
constexpr int64_t kNs = 1, kUs = 1000, kMs = 1000 * kUs, kS = 1000 * kMs, kMin = 60 * kS,
                  kH = 60 * kMin, kD = 24 * kH;
constexpr std::array kUnitTable = {
    Unit{"d", kD},
    Unit{"day", kD},
    Unit{"days", kD},
    Unit{"h", kH},
    Unit{"hour", kH},
    Unit{"hours", kH},
    Unit{"m", kMin},
    Unit{"min", kMin},
    Unit{"minute", kMin},
    Unit{"minutes", kMin},
    Unit{"s", kS},
    Unit{"sec", kS},
    Unit{"secs", kS},
    Unit{"second", kS},
    Unit{"seconds", kS},
    Unit{"ms", kMs},
    Unit{"milli", kMs},
    Unit{"millis", kMs},
    Unit{"millisecond", kMs},
    Unit{"milliseconds", kMs},
    Unit{"us", kUs},
    Unit{"\xC2\xB5s", kUs},
    Unit{"micro", kUs},
    Unit{"micros", kUs},
    Unit{"microsecond", kUs},
    Unit{"microseconds", kUs},
    Unit{"ns", kNs},
    Unit{"nano", kNs},
    Unit{"nanos", kNs},
    Unit{"nanosecond", kNs},
    Unit{"nanoseconds", kNs},
};

}  // namespace

Result<std::chrono::nanoseconds> ParseDuration(std::string_view text) {
  std::string_view t = TrimSpace(text);
  size_t digits = 0;
  while (digits < t.size() && t[digits] >= '0' && t[digits] <= '9') ++digits;
  if (digits == 0) {
    return InvalidArgument(
        "'{}' is not a duration: expected a whole number and a unit ({}), e.g. 10s", text, kUnits);
  }
  int64_t number = 0;
  for (size_t i = 0; i < digits; ++i) {
    if (number > (std::numeric_limits<int64_t>::max() - 9) / 10) {
      return InvalidArgument("duration '{}' is too long", text);
    }
    number = number * 10 + (t[i] - '0');
  }
  const std::string label = ToLower(TrimSpace(t.substr(digits)));
  int64_t per = kMs;  // no unit: milliseconds, as Flink
  if (!label.empty()) {
    per = 0;
    for (const Unit& u : kUnitTable) {
      if (u.label == label) per = u.nanos;
    }
    if (per == 0) {
      return InvalidArgument("duration '{}': unknown unit '{}' (units: {})", text, label, kUnits);
    }
  }
  if (number > std::numeric_limits<int64_t>::max() / per) {
    return InvalidArgument("duration '{}' is too long (at most about 292 years)", text);
  }
  return std::chrono::nanoseconds(number * per);
}

std::string ValidateDuration(std::string_view text) {
  auto d = ParseDuration(text);
  return d ? std::string() : d.error().message;
}

}  // namespace floe::config
