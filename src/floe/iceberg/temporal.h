/// \file
/// Iceberg's temporal transforms on day counts (Iceberg spec: Partition
/// Transforms, `year` and `month`). The calendar arithmetic itself lives in
/// floe/util/civil_time.h; its names are brought into floe::iceberg here for
/// the transform and partition code.
#pragma once

#include <cstdint>

#include "floe/util/civil_time.h"

namespace floe::iceberg {

using civil::CivilDate;
using civil::CivilFromDays;
using civil::DaysFromCivil;
using civil::FloorDiv;
using civil::FloorMod;
using civil::kMicrosPerDay;
using civil::kMicrosPerHour;
using civil::kMicrosPerSecond;
using civil::kNanosPerMicro;

/// Years since 1970 of a day count (Iceberg `year` transform).
constexpr int32_t YearsFromDays(int64_t days) {
  return static_cast<int32_t>(CivilFromDays(days).year - 1970);
}

/// Months since 1970-01 of a day count (Iceberg `month` transform).
constexpr int32_t MonthsFromDays(int64_t days) {
  CivilDate c = CivilFromDays(days);
  return static_cast<int32_t>((c.year - 1970) * 12 + (c.month - 1));
}

}  // namespace floe::iceberg
