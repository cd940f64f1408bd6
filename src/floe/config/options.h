/// \file
/// The option registry: every option floe understands, declared once with its
/// names (Iceberg table property, Flink read/write/catalog option, Beam write
/// configuration key), type, default, scope and doc. YAML configs, `--set`,
/// SQL `WITH (...)` and `/*+ OPTIONS(...) */` hints all resolve through it,
/// with Flink's precedence: per-statement option > session configuration >
/// table property > default. The user documentation (docs/options.md) is
/// generated from this table and a test keeps the two equal.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "floe/util/status.h"

namespace floe::config {

enum class OptionType : uint8_t { kString, kBool, kInt, kLong, kDouble, kEnum, kList, kMap };

/// Where an option is accepted. A bit set: one option may live in several.
enum class Scope : uint32_t {
  kTable = 1,    ///< Iceberg table property (stored in table metadata)
  kWrite = 2,    ///< Flink write option (job / `--set` / SQL hint)
  kRead = 4,     ///< Flink read option (scan `--set` / SQL hint)
  kCatalog = 8,  ///< catalog property (`--catalog`, CREATE CATALOG WITH)
  kBeam = 16,    ///< Beam Iceberg write configuration key (YAML `--config`)
};
constexpr uint32_t operator|(Scope a, Scope b) { return uint32_t(a) | uint32_t(b); }
constexpr uint32_t operator|(uint32_t a, Scope b) { return a | uint32_t(b); }

std::string_view ScopeName(Scope scope);

struct OptionDef {
  std::string_view key;          ///< canonical name; a trailing '.' marks a prefix (`...column.`)
  uint32_t scopes;               ///< Scope bits
  OptionType type;
  std::string_view default_value;  ///< empty: no default
  std::string_view doc;
  std::vector<std::string_view> enum_values = {};  ///< kEnum
  std::string_view overrides = {};  ///< for a job option: the table property it takes precedence over

  bool is_prefix() const { return !key.empty() && key.back() == '.'; }
};

/// All declared options, in documentation order.
std::span<const OptionDef> AllOptions();

/// The option named `key` in any of `scopes` (prefix options match keys that
/// start with them and have a non-empty rest), or nullptr.
const OptionDef* FindOption(std::string_view key, uint32_t scopes);

/// Checks that `value` is well-typed for `def`; the error names the option,
/// the value and the expected type or values.
Status CheckValue(const OptionDef& def, std::string_view key, std::string_view value);

/// Checks a whole set of options for one scope set: an unknown key is an error
/// that names it, says where it was given (`origin`, e.g. "--set") and lists
/// the valid options (with the closest names first).
Status CheckOptions(const std::map<std::string, std::string>& options, uint32_t scopes,
                    std::string_view origin);

/// Typed reads with declared defaults. `layers` are searched first to last
/// (statement options, session configuration, table properties); for a job
/// option the table property it overrides is consulted after the job layers.
class Resolver {
 public:
  explicit Resolver(std::vector<const std::map<std::string, std::string>*> layers)
      : layers_(std::move(layers)) {}

  /// The raw value (or declared default); nullopt when unset without default.
  Result<std::optional<std::string>> Get(std::string_view key) const;
  Result<std::optional<int64_t>> GetLong(std::string_view key) const;
  Result<std::optional<bool>> GetBool(std::string_view key) const;
  Result<std::optional<double>> GetDouble(std::string_view key) const;

 private:
  std::vector<const std::map<std::string, std::string>*> layers_;
};

/// Markdown reference of every option (docs/options.md).
std::string RenderMarkdown();

}  // namespace floe::config
