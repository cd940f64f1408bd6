/// \file
/// Iceberg's reserved field ids (Iceberg spec: Reserved Field IDs), declared
/// once: the ids of metadata columns and of the position delete schema count
/// down from Integer.MAX_VALUE - 1, and user field ids stay at or below
/// Integer.MAX_VALUE - 200.
#pragma once

#include <cstdint>

namespace floe::iceberg {

/// The highest id a table's own fields may use (Integer.MAX_VALUE - 200).
inline constexpr int32_t kMaxUserFieldId = 2147483447;

/// Metadata columns.
inline constexpr int32_t kFileFieldId = 2147483646;     ///< `_file`: path of the data file
inline constexpr int32_t kPosFieldId = 2147483645;      ///< `_pos`: ordinal of the row in the file
inline constexpr int32_t kDeletedFieldId = 2147483644;  ///< `_deleted`: the row is deleted
inline constexpr int32_t kSpecIdFieldId = 2147483643;   ///< `_spec_id`: partition spec of the file
inline constexpr int32_t kPartitionFieldId = 2147483642;  ///< `_partition`: partition tuple

/// Position delete files (Iceberg spec: Position Delete Files).
inline constexpr int32_t kDeleteFilePathFieldId = 2147483546;  ///< `file_path`
inline constexpr int32_t kDeleteFilePosFieldId = 2147483545;   ///< `pos`
inline constexpr int32_t kDeleteRowFieldId = 2147483544;       ///< `row` (optional, not written)

/// Change-log scans.
inline constexpr int32_t kChangeTypeFieldId = 2147483543;        ///< `_change_type`
inline constexpr int32_t kChangeOrdinalFieldId = 2147483542;     ///< `_change_ordinal`
inline constexpr int32_t kCommitSnapshotIdFieldId = 2147483541;  ///< `_commit_snapshot_id`

/// True for ids in the reserved range above kMaxUserFieldId.
constexpr bool IsReservedFieldId(int32_t id) { return id > kMaxUserFieldId; }

}  // namespace floe::iceberg
