/// \file
/// Warnings: things that went wrong without failing the operation (a commit
/// that landed but whose `version-hint.text` could not be updated). The
/// library never prints; it hands each warning to one process-wide handler,
/// which the `floe` command sets to print `floe: warning: ...` on stderr.
#pragma once

#include <functional>
#include <string>

namespace floe::catalog {

/// Receives one warning, a full sentence naming what went wrong and what
/// still holds.
using WarningHandler = std::function<void(const std::string& warning)>;

/// Sets the handler (nullptr: warnings are dropped, the default). Thread-safe.
void SetWarningHandler(WarningHandler handler);

/// Hands `warning` to the handler, if any. Thread-safe.
void Warn(const std::string& warning);

}  // namespace floe::catalog
