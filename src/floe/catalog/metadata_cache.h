/// \file
/// Parsed metadata files, remembered by location and content. A metadata
/// file is written once and never changed (Iceberg spec: every commit writes
/// a new one), so a catalog that reads the same current version again (a
/// server answering and committing to the same table, a refresh that finds
/// no new commit) need not parse it again. The key includes a hash of the
/// bytes read: a path reused for other content (a table dropped and made
/// again, whose first version has the same name) is parsed afresh.
#pragma once

#include <string>
#include <string_view>

#include "floe/iceberg/table_metadata.h"
#include "floe/util/status.h"

namespace floe::catalog {

/// TableMetadataFromJson(text), answered from a small process-wide cache of
/// recently parsed files when `location` with these exact bytes was parsed
/// before. Errors are never cached.
Result<iceberg::TableMetadata> ParseMetadataFile(const std::string& location, std::string_view text);

/// Remembers `metadata` as what `location` with bytes `text` parses to: a
/// catalog that has just written `text` (TableMetadataToJson(metadata)) for
/// a commit, so that the next load of that version skips the parse.
void RememberMetadataFile(const std::string& location, std::string_view text, const iceberg::TableMetadata& metadata);

}  // namespace floe::catalog
