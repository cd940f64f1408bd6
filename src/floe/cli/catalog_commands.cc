// `floe namespaces|tables|describe|snapshots|options` and the catalog/table
// argument helpers shared by every table command.
#include <nlohmann/json.hpp>

#include "floe/catalog/identifier.h"
#include "floe/cli/table_args.h"
#include "floe/io/file_io.h"
#include "floe/config/options.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/schema_json.h"
#include "floe/iceberg/sort_order.h"
#include "floe/types/sql_schema.h"

namespace floe::cli {

Result<std::map<std::string, std::string>> ParseKeyValues(const std::vector<std::string>& items,
                                                          std::string_view flag) {
  std::map<std::string, std::string> out;
  for (const std::string& kv : items) {
    size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      return UsageError(fmt::format("{} '{}': expected key=value", flag, kv));
    }
    out[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return out;
}

void CatalogArgs::AddTo(CLI::App* cmd) {
  cmd->add_option("--catalog", properties,
                  "Catalog property key=value (catalog-type, warehouse, uri, ...); default: hadoop at ./warehouse")
      ->allow_extra_args(false);
  cmd->add_option("--catalog-name", name, "Catalog name");
}

Result<std::unique_ptr<catalog::Catalog>> CatalogArgs::Open(
    const std::map<std::string, std::string>& extra) const {
  FLOE_ASSIGN_OR_RETURN(auto props, ParseKeyValues(properties, "--catalog"));
  for (const auto& [k, v] : extra) props.emplace(k, v);
  if (Status st = config::CheckOptions(props, uint32_t(config::Scope::kCatalog), "--catalog"); !st) {
    return UsageError(st.error().message);
  }
  if (Status st = catalog::CheckCatalogOptions(name, props); !st) return UsageError(st.error().message);
  return catalog::OpenCatalog(name, props);
}

Result<LocationMapper> ParseMaps(const std::vector<std::string>& items) {
  LocationMapper mapper;
  for (const std::string& m : items) {
    size_t eq = m.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == m.size()) {
      return UsageError(fmt::format("--map '{}': expected PREFIX=DIR", m));
    }
    mapper.AddMapping(m.substr(0, eq), AbsolutePath(m.substr(eq + 1)));
  }
  return mapper;
}

Status ApplyMaps(catalog::Catalog* catalog, const std::vector<std::string>& items) {
  if (items.empty()) return Ok();
  FLOE_ASSIGN_OR_RETURN(LocationMapper mapper, ParseMaps(items));
  catalog->SetFileIO(io::MappedFileIO(std::move(mapper), catalog->io()));
  return Ok();
}

namespace {

nlohmann::json ParseJson(const std::string& text) { return nlohmann::json::parse(text); }

nlohmann::ordered_json SnapshotJson(const iceberg::Snapshot& s) {
  nlohmann::ordered_json j;
  j["snapshot-id"] = s.snapshot_id;
  j["parent-snapshot-id"] = s.parent_snapshot_id ? nlohmann::json(*s.parent_snapshot_id) : nlohmann::json();
  j["sequence-number"] = s.sequence_number;
  j["timestamp-ms"] = s.timestamp_ms;
  j["operation"] = s.operation ? std::string(iceberg::SnapshotOperationName(*s.operation)) : std::string();
  j["summary"] = s.summary;
  if (s.schema_id) j["schema-id"] = *s.schema_id;
  j["manifest-list"] = s.manifest_list;
  return j;
}

Result<catalog::LoadedTable> LoadTable(const CatalogArgs& c, const std::string& table,
                                       std::unique_ptr<catalog::Catalog>* cat_out) {
  FLOE_ASSIGN_OR_RETURN(auto id, catalog::ParseTableIdentifier(table));
  FLOE_ASSIGN_OR_RETURN(auto cat, c.Open());
  auto loaded = cat->LoadTable(id);
  if (!loaded) return Fail(loaded.error());
  if (cat_out) *cat_out = std::move(cat);
  return loaded;
}

Status RunNamespaces(const CatalogArgs& c, const std::string& parent) {
  FLOE_ASSIGN_OR_RETURN(auto cat, c.Open());
  catalog::Namespace ns;
  if (!parent.empty()) {
    FLOE_ASSIGN_OR_RETURN(ns, catalog::ParseNamespace(parent));
  }
  FLOE_ASSIGN_OR_RETURN(auto list, cat->ListNamespaces(ns));
  StdoutWriter out;
  for (const auto& n : list) *out.buffer() += n.ToString() + "\n";
  return out.Flush();
}

Status RunTables(const CatalogArgs& c, const std::string& ns_text) {
  FLOE_ASSIGN_OR_RETURN(auto cat, c.Open());
  std::vector<catalog::Namespace> namespaces;
  if (!ns_text.empty()) {
    FLOE_ASSIGN_OR_RETURN(auto ns, catalog::ParseNamespace(ns_text));
    namespaces.push_back(std::move(ns));
  } else {
    // Every namespace, depth first.
    std::vector<catalog::Namespace> todo{catalog::Namespace{}};
    while (!todo.empty()) {
      catalog::Namespace n = std::move(todo.back());
      todo.pop_back();
      FLOE_ASSIGN_OR_RETURN(auto children, cat->ListNamespaces(n));
      for (auto it = children.rbegin(); it != children.rend(); ++it) todo.push_back(*it);
      if (!n.empty()) namespaces.push_back(std::move(n));
    }
  }
  StdoutWriter out;
  for (const auto& ns : namespaces) {
    FLOE_ASSIGN_OR_RETURN(auto tables, cat->ListTables(ns));
    for (const auto& t : tables) *out.buffer() += t.ToString() + "\n";
  }
  return out.Flush();
}

Status RunDescribe(const CatalogArgs& c, const std::string& table) {
  FLOE_ASSIGN_OR_RETURN(auto loaded, LoadTable(c, table, nullptr));
  const iceberg::TableMetadata& m = loaded.metadata;
  nlohmann::ordered_json j;
  j["table"] = loaded.id.ToString();
  j["metadata-location"] = loaded.metadata_location;
  j["location"] = m.location;
  j["format-version"] = m.format_version;
  j["table-uuid"] = m.table_uuid;
  SchemaPtr schema = m.CurrentSchema();
  if (schema) {
    j["columns"] = FormatSqlColumns(*schema);
    FLOE_ASSIGN_OR_RETURN(auto sj, iceberg::SchemaToJson(*schema));
    j["schema"] = ParseJson(sj);
  }
  if (const iceberg::PartitionSpec* spec = m.DefaultSpec()) {
    FLOE_ASSIGN_OR_RETURN(auto pj, iceberg::PartitionSpecToJson(*spec));
    j["partition-spec"] = ParseJson(pj);
  }
  if (const iceberg::SortOrder* order = m.SortOrderById(m.default_sort_order_id)) {
    FLOE_ASSIGN_OR_RETURN(auto oj, iceberg::SortOrderToJson(*order));
    j["sort-order"] = ParseJson(oj);
  }
  j["properties"] = m.properties;
  if (const iceberg::Snapshot* s = m.CurrentSnapshot()) {
    j["current-snapshot"] = SnapshotJson(*s);
  } else {
    j["current-snapshot"] = nullptr;
  }
  nlohmann::json refs = nlohmann::json::object();
  for (const auto& [name, ref] : m.refs) {
    refs[name] = {{"snapshot-id", ref.snapshot_id}, {"type", ref.is_branch() ? "branch" : "tag"}};
  }
  j["refs"] = refs;
  StdoutWriter out;
  *out.buffer() = j.dump(2) + "\n";
  return out.Flush();
}

Status RunSnapshots(const CatalogArgs& c, const std::string& table) {
  FLOE_ASSIGN_OR_RETURN(auto loaded, LoadTable(c, table, nullptr));
  StdoutWriter out;
  for (const iceberg::Snapshot& s : loaded.metadata.snapshots) {
    nlohmann::ordered_json j = SnapshotJson(s);
    std::vector<std::string> refs;
    for (const auto& [name, ref] : loaded.metadata.refs) {
      if (ref.snapshot_id == s.snapshot_id) refs.push_back(name);
    }
    j["refs"] = refs;
    *out.buffer() += j.dump() + "\n";
  }
  return out.Flush();
}

Status RunOptions(bool markdown) {
  StdoutWriter out;
  if (markdown) {
    *out.buffer() = config::RenderMarkdown();
    return out.Flush();
  }
  for (const config::OptionDef& def : config::AllOptions()) {
    std::string scopes;
    for (config::Scope s : {config::Scope::kTable, config::Scope::kWrite, config::Scope::kRead,
                            config::Scope::kCatalog, config::Scope::kBeam, config::Scope::kRewrite, config::Scope::kSource}) {
      if (def.scopes & uint32_t(s)) {
        if (!scopes.empty()) scopes += ", ";
        scopes += config::ScopeName(s);
      }
    }
    *out.buffer() += fmt::format("{}{}  [{}]{}  ({})  {}\n", def.key, def.is_prefix() ? "<column>" : "", scopes,
                                 def.default_value.empty() ? "" : fmt::format(" default {}", def.default_value),
                                 config::SupportName(def.support), def.doc);
  }
  return out.Flush();
}

}  // namespace

void AddCatalogCommands(CLI::App* root, CommandContext* ctx) {
  {
    auto* cmd = root->add_subcommand("namespaces", "List namespaces (children of NS when given)");
    auto c = std::make_shared<CatalogArgs>();
    auto parent = std::make_shared<std::string>();
    c->AddTo(cmd);
    cmd->add_option("namespace", *parent, "Parent namespace");
    cmd->callback([=] { ctx->action = [=] { return RunNamespaces(*c, *parent); }; });
  }
  {
    auto* cmd = root->add_subcommand("tables", "List tables (of NS, or of every namespace)");
    auto c = std::make_shared<CatalogArgs>();
    auto ns = std::make_shared<std::string>();
    c->AddTo(cmd);
    cmd->add_option("namespace", *ns, "Namespace");
    cmd->callback([=] { ctx->action = [=] { return RunTables(*c, *ns); }; });
  }
  {
    auto* cmd = root->add_subcommand("describe", "Schema, partition spec, sort order, properties, current snapshot");
    auto c = std::make_shared<CatalogArgs>();
    auto table = std::make_shared<std::string>();
    c->AddTo(cmd);
    cmd->add_option("--table,table", *table, "NS.TABLE")->required();
    cmd->callback([=] { ctx->action = [=] { return RunDescribe(*c, *table); }; });
  }
  {
    auto* cmd = root->add_subcommand("snapshots", "Snapshots of a table (JSON lines)");
    auto c = std::make_shared<CatalogArgs>();
    auto table = std::make_shared<std::string>();
    c->AddTo(cmd);
    cmd->add_option("--table,table", *table, "NS.TABLE")->required();
    cmd->callback([=] { ctx->action = [=] { return RunSnapshots(*c, *table); }; });
  }
  {
    auto* cmd = root->add_subcommand("options", "Every option floe understands");
    auto markdown = std::make_shared<bool>(false);
    cmd->add_flag("--markdown", *markdown, "The reference as Markdown (docs/options.md)");
    cmd->callback([=] { ctx->action = [=] { return RunOptions(*markdown); }; });
  }
}

}  // namespace floe::cli
