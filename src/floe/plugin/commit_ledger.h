/// \file
/// What this process has committed so far: Iceberg snapshots of the SQL
/// engine's sinks, commits of plugin sinks and plugin catalogs. The plugin
/// guard (plugin_internal.h) reads it when a plugin crashes or exits inside
/// a call, so that its message says exactly whether anything was committed
/// before (and its exit code whether a retry of the whole run is safe:
/// internal::kCrashExitCode when nothing was, kCrashAfterCommitExitCode
/// otherwise). Entries are never removed: a retry repeats the whole process.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace floe::plugin {

/// Records one commit that landed, as a phrase for messages
/// ("Iceberg table c.db.t snapshot 42"). Thread-safe; the text is kept up to a
/// fixed size (later entries are counted, not spelled out).
void NoteCommitted(std::string_view what);

/// The number of commits noted so far.
int64_t CommittedCount();

/// The commits noted so far, "; "-separated ("" when none).
std::string CommittedSoFar();

}  // namespace floe::plugin
