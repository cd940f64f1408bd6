// The connector registry and Flink's option checks (connector.h).
#include "floe/sqlengine/connector.h"

#include <mutex>

#include <fmt/format.h>

namespace floe::sqlengine {

std::string TableHandle::Connector() const {
  if (iceberg) return "iceberg";
  auto it = options.find("connector");
  if (it != options.end()) return it->second;
  // DLI's legacy key for user-defined sinks.
  auto legacy = options.find("connector.type");
  if (legacy != options.end()) return legacy->second;
  return "";
}

Result<std::unique_ptr<RowSource>> Connector::OpenSource(const TableHandle& table,
                                                         const ReadRequest&,
                                                         const EngineContext&) const {
  return Fail(
      Error{ErrorKind::kInvalidArgument,
            fmt::format("Connector '{}' can only be used as a sink. It cannot be used as a source.",
                        identifier()),
            false});
}

Result<std::unique_ptr<RowSink>> Connector::OpenSink(const TableHandle& table, const WriteRequest&,
                                                     const EngineContext&) const {
  return Fail(
      Error{ErrorKind::kInvalidArgument,
            fmt::format("Connector '{}' can only be used as a source. It cannot be used as a sink.",
                        identifier()),
            false});
}

namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, std::shared_ptr<const Connector>> connectors;
};

Registry& GetRegistry() {
  static Registry r;
  return r;
}

}  // namespace

void RegisterConnector(std::shared_ptr<const Connector> connector) {
  Registry& r = GetRegistry();
  std::lock_guard lock(r.mu);
  r.connectors[connector->identifier()] = std::move(connector);
}

Result<std::shared_ptr<const Connector>> FindConnector(const std::string& identifier) {
  Registry& r = GetRegistry();
  std::lock_guard lock(r.mu);
  auto it = r.connectors.find(identifier);
  if (it != r.connectors.end()) return it->second;
  std::string names;
  for (const auto& [name, c] : r.connectors) names += "\n" + name;
  return Fail(
      Error{ErrorKind::kInvalidArgument,
            fmt::format("Could not find any factory for identifier '{}' that implements "
                        "'DynamicTableFactory' in floe.\n\nAvailable factory identifiers are:\n{}",
                        identifier, names),
            false});
}

Result<std::shared_ptr<const Connector>> ConnectorOf(const TableHandle& table) {
  const std::string id = table.Connector();
  if (id.empty()) {
    std::string opts;
    for (const auto& [k, v] : table.options) opts += fmt::format("\n'{}'='{}'", k, v);
    return Fail(
        Error{ErrorKind::kInvalidArgument,
              fmt::format(
                  "Table options do not contain an option key 'connector' for discovering a "
                  "connector. Therefore, Flink assumes a managed table. However, a managed table "
                  "factory that implements org.apache.flink.table.factories.ManagedTableFactory is "
                  "not in floe.\n\nTable '{}' options are:{}",
                  table.FullName(), opts.empty() ? "\n(none)" : opts),
              false});
  }
  return FindConnector(id);
}

Status CheckConnectorOptions(const std::string& identifier,
                             const std::map<std::string, std::string>& options,
                             const std::set<std::string>& required,
                             const std::set<std::string>& optional) {
  std::vector<std::string> missing;
  for (const std::string& key : required) {
    if (!options.contains(key)) missing.push_back(key);
  }
  if (!missing.empty()) {
    std::string list;
    for (const auto& k : missing) list += "\n" + k;
    return InvalidArgument(
        "One or more required options are missing.\n\nMissing required options are:\n{}", list);
  }
  auto accepted = [&](const std::string& key) {
    if (required.contains(key) || optional.contains(key)) return true;
    for (const std::string& o : optional) {
      if (!o.empty() && o.back() == '#' && key.size() > o.size() - 1 &&
          key.starts_with(o.substr(0, o.size() - 1))) {
        return true;
      }
    }
    return false;
  };
  std::vector<std::string> unsupported;
  for (const auto& [key, value] : options) {
    if (!accepted(key)) unsupported.push_back(key);
  }
  if (unsupported.empty()) return Ok();
  std::set<std::string> supported(required.begin(), required.end());
  for (const std::string& o : optional) supported.insert(o);
  std::string bad, good;
  for (const auto& k : unsupported) bad += (bad.empty() ? "" : "\n") + k;
  for (const auto& k : supported) good += (good.empty() ? "" : "\n") + k;
  return InvalidArgument(
      "Unsupported options found for '{}'.\n\nUnsupported options:\n\n{}\n\nSupported "
      "options:\n\n{}",
      identifier, bad, good);
}

Result<int64_t> LongOption(const std::map<std::string, std::string>& options,
                           const std::string& key, int64_t default_value) {
  auto it = options.find(key);
  if (it == options.end()) return default_value;
  const std::string& v = it->second;
  int64_t out = 0;
  size_t i = 0;
  bool neg = false;
  if (!v.empty() && (v[0] == '-' || v[0] == '+')) {
    neg = v[0] == '-';
    i = 1;
  }
  if (i == v.size()) return InvalidArgument("Could not parse value '{}' for key '{}'.", v, key);
  for (; i < v.size(); ++i) {
    if (v[i] < '0' || v[i] > '9' || out > (INT64_MAX - 9) / 10) {
      return InvalidArgument("Could not parse value '{}' for key '{}'.", v, key);
    }
    out = out * 10 + (v[i] - '0');
  }
  return neg ? -out : out;
}

}  // namespace floe::sqlengine
