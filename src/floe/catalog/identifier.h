/// \file
/// Namespaces and table identifiers, as Iceberg catalogs name them
/// (`db.events`, multi-level `a.b.events`).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "floe/util/status.h"

namespace floe::catalog {

/// A namespace: zero or more levels.
struct Namespace {
  std::vector<std::string> levels;

  bool empty() const { return levels.empty(); }
  /// Levels joined by '.'.
  std::string ToString() const;
  bool operator==(const Namespace&) const = default;
  auto operator<=>(const Namespace&) const = default;
};

/// A table: its namespace and name.
struct TableIdentifier {
  Namespace ns;
  std::string name;

  std::string ToString() const;
  bool operator==(const TableIdentifier&) const = default;
  auto operator<=>(const TableIdentifier&) const = default;
};

/// Parses `a.b` into levels (the empty text is the top level); an empty
/// level (`.a`, `a..b`, `a.`) is refused and every level is checked with
/// ValidateName (no `.`, `..`, `/`, `\`, control characters).
Result<Namespace> ParseNamespace(std::string_view text);
/// Parses `ns.table` / `a.b.table`; the last level is the table name, and a
/// table needs at least one namespace level. Parts are checked as in
/// ParseNamespace: `.t` is refused rather than read as a table at the
/// warehouse root. Errors quote the whole identifier.
Result<TableIdentifier> ParseTableIdentifier(std::string_view text);

}  // namespace floe::catalog
