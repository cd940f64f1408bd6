/// \file
/// Internal: snapshot and snapshot-reference JSON writers (Iceberg spec,
/// Appendix C), shared by the metadata file writer and the REST commit
/// requests (add-snapshot, set-snapshot-ref carry the same objects).
#pragma once

#include "floe/iceberg/json_internal.h"
#include "floe/iceberg/table_metadata.h"

namespace floe::iceberg {

/// A snapshot object as metadata files hold it; `operation` must be set
/// (v2 requires it in the summary).
Json SnapshotToJsonValue(const Snapshot& snapshot);
/// A ref object (`snapshot-id`, `type`, retention fields when set).
Json SnapshotRefToJsonValue(const SnapshotRef& ref);

}  // namespace floe::iceberg
