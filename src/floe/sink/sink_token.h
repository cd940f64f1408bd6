/// \file
/// The exactly-once token of a sink (ARCHITECTURE "Exactly-once"): every
/// commit of a sink with a `sink_id` carries, in its snapshot summary, the
/// id, a commit number (1, 2, ... per destination table) and the input
/// position the commit covers (every change at or before it is in the
/// table). A relaunch finds its newest token by walking the branch's
/// ancestry from its head, and skips the input up to that position.
///
/// A sink registers itself in a table property (`floe.sink.<id>` = the time
/// of registration, ms) with a metadata-only commit before its first data
/// commit. So when the walk reaches a snapshot whose parent has been expired
/// without finding the token, floe knows whether the token could be in the
/// expired part: for a sink registered before that snapshot it could, and the
/// sink stops (a second commit of the same changes is possible otherwise); a
/// sink registered after it, or not at all, has not committed there.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "floe/iceberg/table_metadata.h"
#include "floe/table/table.h"
#include "floe/util/status.h"

namespace floe::sink {

/// One commit's token, as found in a snapshot summary.
struct SinkToken {
  int64_t commit_number = 0;
  int64_t position = 0;  ///< the input position the commit covers
  int64_t snapshot_id = 0;
  int64_t timestamp_ms = 0;
  std::string source_position;  ///< `floe.source-position` (empty: not stored)
  std::string input;            ///< `floe.input` (empty: not stored)
};

/// The table property that registers `sink_id`.
std::string SinkPropertyKey(std::string_view sink_id);

/// The newest token of `sink_id` among the ancestors of `branch`'s head
/// (main when empty); nullopt when the sink has not committed there. A
/// summary whose token fields are damaged is kCorrupt; a registered sink
/// whose walk ends at an expired parent is kFailedPrecondition saying so.
Result<std::optional<SinkToken>> FindSinkToken(const iceberg::TableMetadata& metadata, std::string_view sink_id,
                                               std::string_view branch);

/// Registers `sink_id` on `table` (a property commit, retried under the
/// table's commit.retry.* properties) unless it is registered already.
Status RegisterSink(table::Table* table, std::string_view sink_id);

}  // namespace floe::sink
