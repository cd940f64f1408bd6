// `floe create-namespace | drop-namespace | namespace-properties | drop-table
// | rename-table | register-table`: the catalog operations that change
// namespaces and table entries, through any catalog (hadoop, sql, rest).

#include <nlohmann/json.hpp>

#include "floe/catalog/catalog.h"
#include "floe/catalog/warnings.h"
#include "floe/cli/command.h"
#include "floe/cli/table_args.h"
#include "floe/table/drop_table.h"

namespace floe::cli {

namespace {

Status RunCreateNamespace(const CatalogArgs& c, const std::string& text, const std::vector<std::string>& props) {
  FLOE_ASSIGN_OR_RETURN(auto ns, catalog::ParseNamespace(text));
  FLOE_ASSIGN_OR_RETURN(auto properties, ParseKeyValues(props, "--property"));
  FLOE_ASSIGN_OR_RETURN(auto cat, c.Open());
  return cat->CreateNamespace(ns, properties);
}

Status RunDropNamespace(const CatalogArgs& c, const std::string& text) {
  FLOE_ASSIGN_OR_RETURN(auto ns, catalog::ParseNamespace(text));
  FLOE_ASSIGN_OR_RETURN(auto cat, c.Open());
  return cat->DropNamespace(ns);
}

// Prints the namespace's properties (after the changes, when any) as one
// JSON object; with changes, also what changed.
Status RunNamespaceProperties(const CatalogArgs& c, const std::string& text, const std::vector<std::string>& set,
                              const std::vector<std::string>& remove) {
  FLOE_ASSIGN_OR_RETURN(auto ns, catalog::ParseNamespace(text));
  FLOE_ASSIGN_OR_RETURN(auto updates, ParseKeyValues(set, "--set"));
  FLOE_ASSIGN_OR_RETURN(auto cat, c.Open());
  nlohmann::ordered_json j;
  j["namespace"] = ns.ToString();
  if (!updates.empty() || !remove.empty()) {
    FLOE_ASSIGN_OR_RETURN(auto changes, cat->UpdateNamespaceProperties(ns, updates, remove));
    j["updated"] = changes.updated;
    j["removed"] = changes.removed;
    j["missing"] = changes.missing;
  }
  FLOE_ASSIGN_OR_RETURN(auto props, cat->LoadNamespaceProperties(ns));
  j["properties"] = props;
  StdoutWriter out;
  *out.buffer() = j.dump() + "\n";
  return out.Flush();
}

Status RunDropTable(const CatalogArgs& c, const std::string& text, bool purge) {
  FLOE_ASSIGN_OR_RETURN(auto id, catalog::ParseTableIdentifier(text));
  FLOE_ASSIGN_OR_RETURN(auto cat, c.Open());
  FLOE_ASSIGN_OR_RETURN(auto result, table::DropTable(cat.get(), id, purge));
  if (!result.refused.empty()) {
    std::string list;
    for (size_t i = 0; i < result.refused.size() && i < 5; ++i) list += (i ? ", " : "") + result.refused[i];
    if (result.refused.size() > 5) list += fmt::format(" and {} more", result.refused.size() - 5);
    catalog::Warn(fmt::format(
        "drop-table --purge: {} {} named by table {} {} outside its folders or inside another table's "
        "folder and {} not deleted: {}",
        result.refused.size(), result.refused.size() == 1 ? "file" : "files", id.ToString(),
        result.refused.size() == 1 ? "lies" : "lie", result.refused.size() == 1 ? "was" : "were", list));
  }
  if (!result.not_deleted.empty()) {
    return IoError("table {} was dropped, but {} of its files could not be deleted (now orphans), first {}",
                   id.ToString(), result.not_deleted.size(), result.not_deleted.front());
  }
  return Ok();
}

Status RunRenameTable(const CatalogArgs& c, const std::string& from, const std::string& to) {
  FLOE_ASSIGN_OR_RETURN(auto from_id, catalog::ParseTableIdentifier(from));
  FLOE_ASSIGN_OR_RETURN(auto to_id, catalog::ParseTableIdentifier(to));
  FLOE_ASSIGN_OR_RETURN(auto cat, c.Open());
  return cat->RenameTable(from_id, to_id);
}

Status RunRegisterTable(const CatalogArgs& c, const std::string& text, const std::string& metadata) {
  FLOE_ASSIGN_OR_RETURN(auto id, catalog::ParseTableIdentifier(text));
  FLOE_ASSIGN_OR_RETURN(auto cat, c.Open());
  FLOE_ASSIGN_OR_RETURN(auto loaded, cat->RegisterTable(id, metadata));
  StdoutWriter out;
  *out.buffer() = loaded.metadata_location + "\n";
  return out.Flush();
}

}  // namespace

void AddCatalogAdminCommands(CLI::App* root, CommandContext* ctx) {
  {
    auto* cmd = root->add_subcommand("create-namespace", "Create a namespace (with properties)");
    auto c = std::make_shared<CatalogArgs>();
    auto ns = std::make_shared<std::string>();
    auto props = std::make_shared<std::vector<std::string>>();
    c->AddTo(cmd);
    cmd->add_option("namespace", *ns, "Namespace (a.b)")->required();
    cmd->add_option("--property", *props, "key=value (repeatable)");
    cmd->callback([=] { ctx->action = [=] { return RunCreateNamespace(*c, *ns, *props); }; });
  }
  {
    auto* cmd = root->add_subcommand("drop-namespace", "Drop an empty namespace");
    auto c = std::make_shared<CatalogArgs>();
    auto ns = std::make_shared<std::string>();
    c->AddTo(cmd);
    cmd->add_option("namespace", *ns, "Namespace")->required();
    cmd->callback([=] { ctx->action = [=] { return RunDropNamespace(*c, *ns); }; });
  }
  {
    auto* cmd = root->add_subcommand("namespace-properties",
                                     "Print a namespace's properties (JSON), after --set / --remove changes");
    auto c = std::make_shared<CatalogArgs>();
    auto ns = std::make_shared<std::string>();
    auto set = std::make_shared<std::vector<std::string>>();
    auto remove = std::make_shared<std::vector<std::string>>();
    c->AddTo(cmd);
    cmd->add_option("namespace", *ns, "Namespace")->required();
    cmd->add_option("--set", *set, "key=value to set (repeatable)");
    cmd->add_option("--remove", *remove, "key to remove (repeatable)");
    cmd->callback([=] { ctx->action = [=] { return RunNamespaceProperties(*c, *ns, *set, *remove); }; });
  }
  {
    auto* cmd = root->add_subcommand("drop-table", "Drop a table (--purge: and delete every file it references)");
    auto c = std::make_shared<CatalogArgs>();
    auto table = std::make_shared<std::string>();
    auto purge = std::make_shared<bool>(false);
    c->AddTo(cmd);
    cmd->add_option("--table,table", *table, "NS.TABLE")->required();
    cmd->add_flag("--purge", *purge, "Delete the table's files after dropping it");
    cmd->callback([=] { ctx->action = [=] { return RunDropTable(*c, *table, *purge); }; });
  }
  {
    auto* cmd = root->add_subcommand("rename-table", "Rename a table (rest and sql catalogs)");
    auto c = std::make_shared<CatalogArgs>();
    auto from = std::make_shared<std::string>();
    auto to = std::make_shared<std::string>();
    c->AddTo(cmd);
    cmd->add_option("from", *from, "NS.TABLE")->required();
    cmd->add_option("to", *to, "NS.TABLE")->required();
    cmd->callback([=] { ctx->action = [=] { return RunRenameTable(*c, *from, *to); }; });
  }
  {
    auto* cmd = root->add_subcommand("register-table",
                                     "Add an existing table to the catalog by its metadata file (rest and sql catalogs)");
    auto c = std::make_shared<CatalogArgs>();
    auto table = std::make_shared<std::string>();
    auto metadata = std::make_shared<std::string>();
    c->AddTo(cmd);
    cmd->add_option("--table,table", *table, "NS.TABLE")->required();
    cmd->add_option("metadata", *metadata, "The table's current metadata file")->required();
    cmd->callback([=] { ctx->action = [=] { return RunRegisterTable(*c, *table, *metadata); }; });
  }
}

}  // namespace floe::cli
