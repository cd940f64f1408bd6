/// \file
/// Internal: snapshot and snapshot-reference JSON (Iceberg spec: Snapshots,
/// Snapshot References; the REST spec's Snapshot and SnapshotReference) as
/// nlohmann values, shared by table metadata files and the REST commit
/// model (add-snapshot and set-snapshot-ref carry the same objects).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "floe/iceberg/json_internal.h"
#include "floe/iceberg/table_metadata.h"

namespace floe::iceberg {

/// Reads `snapshots[index]` of a format `format_version` document (v1 allows
/// `manifests` and a summary without operation). kCorrupt naming the field.
Result<Snapshot> SnapshotFromJson(const Json& j, int32_t format_version, size_t index);
/// Reads the ref named `name`. kCorrupt naming `refs.<name>` and the field.
Result<SnapshotRef> RefFromJson(const Json& j, const std::string& name);
/// The v2 snapshot object (the summary carries `operation`).
Json SnapshotToJson(const Snapshot& s);
/// The ref object (`type` lower case, optional retention fields).
Json RefToJson(const SnapshotRef& r);

}  // namespace floe::iceberg
