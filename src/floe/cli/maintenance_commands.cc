// `floe rewrite-data-files`: table maintenance commands (Spark's
// rewrite_data_files procedure, with its option names given as --set).
#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <optional>

#include "floe/catalog/identifier.h"
#include "floe/cli/table_args.h"
#include "floe/config/options.h"
#include "floe/expr/expression.h"
#include "floe/table/rewrite_data_files.h"
#include "floe/table/rewrite_position_deletes.h"
#include "floe/table/table.h"

namespace floe::cli {
namespace {

struct MaintenanceArgs {
  CatalogArgs catalog;
  std::string table;
  std::vector<std::string> sets;  ///< --set key=value (rewrite options)
  std::vector<std::string> maps;  ///< --map PREFIX=DIR
  std::string where;
};

// What both rewrite commands start with: their --set options checked, the
// table loaded through the catalog (which the Table points into).
struct RewriteTarget {
  std::map<std::string, std::string> sets;
  std::unique_ptr<catalog::Catalog> catalog;
  std::optional<table::Table> table;
};

Result<RewriteTarget> OpenRewriteTarget(const MaintenanceArgs& a) {
  RewriteTarget t;
  FLOE_ASSIGN_OR_RETURN(auto sets, ParseKeyValues(a.sets, "--set"));
  if (Status st = config::CheckOptions(sets, uint32_t(config::Scope::kRewrite), "--set"); !st) {
    return UsageError(st.error().message);
  }
  t.sets = std::move(sets);
  if (!a.where.empty()) {
    if (auto e = expr::Parse(a.where); !e) return UsageError(fmt::format("--where: {}", e.error().message));
  }
  FLOE_ASSIGN_OR_RETURN(auto id, catalog::ParseTableIdentifier(a.table));
  FLOE_ASSIGN_OR_RETURN(t.catalog, a.catalog.Open());
  FLOE_RETURN_IF_ERROR(ApplyMaps(t.catalog.get(), a.maps));
  FLOE_ASSIGN_OR_RETURN(auto loaded, t.catalog->LoadTable(id));
  t.table.emplace(t.catalog.get(), std::move(loaded));
  return t;
}

// A refused option is a usage error (exit 2); anything else fails the command.
Error OptionsError(Error e) {
  if (e.kind == ErrorKind::kInvalidArgument || e.kind == ErrorKind::kUnsupported) {
    return UsageError(e.message).error();
  }
  return e;
}

Status RunRewriteDataFiles(const MaintenanceArgs& a) {
  FLOE_ASSIGN_OR_RETURN(RewriteTarget target, OpenRewriteTarget(a));
  table::Table& t = *target.table;
  auto options = table::RewriteDataFilesOptions::Resolve(t.metadata(), target.sets);
  if (!options) return std::unexpected<Error>(OptionsError(std::move(options).error()));
  options->where = a.where;
  FLOE_ASSIGN_OR_RETURN(auto r, table::RewriteDataFiles(&t, *options));
  nlohmann::ordered_json j;
  j["table"] = a.table;
  j["starting-snapshot-id"] = r.starting_snapshot_id ? nlohmann::json(*r.starting_snapshot_id) : nlohmann::json();
  j["file-groups"] = r.file_groups;
  j["rewritten_data_files_count"] = r.rewritten_data_files_count;
  j["added_data_files_count"] = r.added_data_files_count;
  j["rewritten_bytes_count"] = r.rewritten_bytes_count;
  j["removed_delete_files_count"] = r.removed_delete_files_count;
  j["failed_data_files_count"] = r.failed_data_files_count;
  j["snapshot-ids"] = r.snapshot_ids;
  j["errors"] = r.errors;
  StdoutWriter out;
  *out.buffer() = j.dump() + "\n";
  FLOE_RETURN_IF_ERROR(out.Flush());
  if (!r.errors.empty()) {
    return CommitFailed("rewrite-data-files: {} of {} commits failed (the others stay committed); first: {}",
                        r.errors.size(), r.errors.size() + r.snapshot_ids.size(), r.errors.front());
  }
  return Ok();
}

Status RunRewritePositionDeletes(const MaintenanceArgs& a) {
  FLOE_ASSIGN_OR_RETURN(RewriteTarget target, OpenRewriteTarget(a));
  table::Table& t = *target.table;
  auto options = table::RewritePositionDeletesOptions::Resolve(t.metadata(), target.sets);
  if (!options) return std::unexpected<Error>(OptionsError(std::move(options).error()));
  FLOE_ASSIGN_OR_RETURN(auto r, table::RewritePositionDeletes(&t, *options));
  nlohmann::ordered_json j;
  j["table"] = a.table;
  j["starting-snapshot-id"] = r.starting_snapshot_id ? nlohmann::json(*r.starting_snapshot_id) : nlohmann::json();
  j["rewritten_delete_files_count"] = r.rewritten_delete_files_count;
  j["added_delete_files_count"] = r.added_delete_files_count;
  j["rewritten_bytes_count"] = r.rewritten_bytes_count;
  j["added_bytes_count"] = r.added_bytes_count;
  j["snapshot-id"] = r.snapshot_id ? nlohmann::json(*r.snapshot_id) : nlohmann::json();
  StdoutWriter out;
  *out.buffer() = j.dump() + "\n";
  return out.Flush();
}

void AddMaintenanceOptions(CLI::App* cmd, MaintenanceArgs* a) {
  a->catalog.AddTo(cmd);
  cmd->add_option("--table", a->table, "NS.TABLE")->required();
  cmd->add_option("--map", a->maps, "PREFIX=DIR: the table's locations under PREFIX are the files under DIR")
      ->allow_extra_args(false);
  cmd->add_option("--set", a->sets,
                  "Rewrite option key=value (Spark's rewrite_data_files names: target-file-size-bytes, "
                  "min-input-files, rewrite-all, partial-progress.enabled, ...; `floe options`)")
      ->allow_extra_args(false);
}

}  // namespace

void AddMaintenanceCommands(CLI::App* root, CommandContext* ctx) {
  auto* cmd = root->add_subcommand(
      "rewrite-data-files",
      "Compact small data files and apply their deletes (Iceberg's RewriteDataFiles, bin-pack); one "
      "`replace` commit validated against the snapshot it read");
  auto a = std::make_shared<MaintenanceArgs>();
  AddMaintenanceOptions(cmd, a.get());
  cmd->add_option("--where", a->where, "Only files that may hold rows matching this filter (whole files are "
                                       "rewritten), e.g. \"region = 'eu'\"");
  cmd->callback([=] { ctx->action = [=] { return RunRewriteDataFiles(*a); }; });
  auto* pd = root->add_subcommand(
      "rewrite-position-delete-files",
      "Compact position deletes: one position delete file per partition (v2), one deletion vector per data "
      "file (v3); deletes of data files no longer live dropped");
  auto p = std::make_shared<MaintenanceArgs>();
  AddMaintenanceOptions(pd, p.get());
  pd->callback([=] { ctx->action = [=] { return RunRewritePositionDeletes(*p); }; });
}

}  // namespace floe::cli
