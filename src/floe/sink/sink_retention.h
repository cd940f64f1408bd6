/// \file
/// What snapshot expiry must keep for the CDC sinks registered on a table
/// (sink_token.h): a relaunch finds its newest token by walking the branch's
/// ancestry from its head, so the snapshots from each branch head down to the
/// sink's newest token must stay. A sink released by name (`floe expire
/// --release-sink ID`) is not protected; when the expiry removes part of
/// that walk, its newest token is recorded in the table property
/// `floe.sink-token.<id>` in the same commit, and FindSinkToken resumes from
/// the record when its walk reaches exactly that gap, so a relaunch still
/// continues where the sink stopped.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "floe/iceberg/table_metadata.h"
#include "floe/sink/sink_token.h"
#include "floe/util/status.h"

namespace floe::sink {

/// The table property that records a released sink's newest token.
std::string SinkTokenRecordKey(std::string_view sink_id);

/// The snapshots the registered sinks of `metadata` (the `floe.sink.<id>`
/// properties), other than those in `released`, need kept, by "sink <id>":
/// on each branch, the ancestry from the head down to the sink's newest
/// token; for a sink with no token there, down to the first snapshot older
/// than its registration (so that the walk still ends where it ended). A
/// branch whose walk already fails is left as it is.
std::map<std::string, std::set<int64_t>> SnapshotsSinksNeed(const iceberg::TableMetadata& metadata,
                                                            const std::set<std::string>& released);

/// The property changes that keep the newest tokens of the `released` sinks
/// whose walk `expiring` (the snapshot ids about to expire) cuts: one
/// `floe.sink-token.<id>` record each. kNotFound naming a released sink that
/// is not registered on the table.
Result<std::map<std::string, std::string>> ReleasedSinkRecords(const iceberg::TableMetadata& metadata,
                                                               const std::set<std::string>& released,
                                                               const std::set<int64_t>& expiring);

/// The recorded token of `sink_id` for a walk of `branch` that reached the
/// expired parent of `gap_snapshot_id`: only a record made by the expiry
/// that cut the walk exactly there (nothing newer of the sink can have been
/// expired then). nullopt when there is none; kCorrupt when it is damaged.
Result<std::optional<SinkToken>> RecordedSinkToken(const iceberg::TableMetadata& metadata, std::string_view sink_id,
                                                   std::string_view branch, int64_t gap_snapshot_id);

}  // namespace floe::sink
