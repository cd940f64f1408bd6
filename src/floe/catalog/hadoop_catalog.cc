// The hadoop catalog (Iceberg's HadoopCatalog layout on a local file
// system): namespaces are folders, a table is a folder with
// metadata/v<N>.metadata.json; commits publish v<N+1> with
// FileIO::PublishIfAbsent so that concurrent writers cannot both win (see
// hadoop_files.h). Every file and folder is reached through the catalog's
// FileIO (io_), never the file system directly.

#include <algorithm>
#include <mutex>
#include <set>

#include "floe/catalog/catalog.h"
#include "floe/catalog/catalog_file_io.h"
#include "floe/catalog/hadoop_files.h"
#include "floe/catalog/metadata_cache.h"
#include "floe/catalog/table_locations.h"
#include "floe/util/crash_point.h"
#include "floe/catalog/warnings.h"
#include "floe/config/options.h"
#include "floe/iceberg/metadata_updates.h"
#include "floe/io/file_io.h"
#include "floe/io/location.h"

namespace floe::catalog {

namespace {

// A version-hint update that failed after the version was published: the
// commit stands, the caller hears about it (floe prints it on stderr).
void WarnIfHintFailed(const TableIdentifier& id, int64_t version, const Status& st) {
  if (st) return;
  Warn(fmt::format(
      "table {}: version {} was committed, but metadata/version-hint.text could not be "
      "updated ({}); readers that trust the hint may see an older version until the next "
      "commit",
      id.ToString(), version, st.error().message));
}

// The last component of a location.
std::string_view NameOf(std::string_view location) {
  auto slash = location.rfind('/');
  return slash == std::string_view::npos ? location : location.substr(slash + 1);
}

class HadoopCatalog final : public Catalog {
 public:
  HadoopCatalog(std::string name, std::string warehouse, io::FileIOPtr io, bool local)
      : name_(std::move(name)), warehouse_(std::move(warehouse)), local_(local) {
    io_ = std::move(io);
  }

  const std::string& name() const override { return name_; }

  Status CreateNamespace(const Namespace& ns, const std::map<std::string, std::string>& props) override {
    if (ns.empty()) return InvalidArgument("cannot create the empty namespace");
    if (!props.empty()) {
      return Unsupported("the hadoop catalog cannot store namespace properties (got {})", props.begin()->first);
    }
    FLOE_ASSIGN_OR_RETURN(bool exists, NamespaceExists(ns));
    if (exists) return AlreadyExists("namespace {} already exists", ns.ToString());
    FLOE_RETURN_IF_ERROR(CheckNewNamespaceLocation(*io_, NamespaceDir(ns), ns));
    FLOE_RETURN_IF_ERROR(CheckConditionalWrites());
    if (Status st = io_->CreateFolders(NamespaceDir(ns), nullptr); !st) {
      return IoError("cannot create namespace {}: {}", ns.ToString(), st.error().message);
    }
    return Ok();
  }

  Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent) override {
    std::vector<Namespace> out;
    FLOE_ASSIGN_OR_RETURN(auto entries, ListIfFolder(NamespaceDir(parent)));
    if (!parent.empty() && !entries) return NotFound("namespace {} does not exist", parent.ToString());
    if (!entries) return out;
    for (const auto& e : *entries) {
      std::string n(NameOf(e.location));
      if (e.kind != io::EntryKind::kFolder || n.starts_with(".") || IsTableDir(e.location)) continue;
      if (!parent.empty() && (n == "metadata" || n == "data")) continue;
      Namespace child = parent;
      child.levels.push_back(n);
      out.push_back(std::move(child));
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  Result<bool> NamespaceExists(const Namespace& ns) override {
    if (ns.empty()) return true;
    const std::string dir = NamespaceDir(ns);
    FLOE_ASSIGN_OR_RETURN(auto entries, ListIfFolder(dir));
    return entries.has_value() && !IsTableDir(dir);
  }

  Status DropNamespace(const Namespace& ns) override {
    FLOE_ASSIGN_OR_RETURN(bool exists, NamespaceExists(ns));
    if (ns.empty() || !exists) return NotFound("namespace {} does not exist", ns.ToString());
    FLOE_ASSIGN_OR_RETURN(auto entries, ListIfFolder(NamespaceDir(ns)));
    if (entries && !entries->empty()) return InvalidArgument("namespace {} is not empty", ns.ToString());
    auto removed = io_->RemoveFolderIfEmpty(NamespaceDir(ns));
    if (!removed) return IoError("cannot drop namespace {}: {}", ns.ToString(), removed.error().message);
    if (!*removed) return InvalidArgument("namespace {} is not empty", ns.ToString());
    return Ok();
  }

  // As Java's HadoopCatalog: the only property is the folder's location;
  // nothing can be stored.
  Result<std::map<std::string, std::string>> LoadNamespaceProperties(const Namespace& ns) override {
    FLOE_ASSIGN_OR_RETURN(bool exists, NamespaceExists(ns));
    if (!exists) return NotFound("namespace {} does not exist", ns.ToString());
    return std::map<std::string, std::string>{{"location", UriOf(NamespaceDir(ns))}};
  }

  Result<NamespacePropertyChanges> UpdateNamespaceProperties(const Namespace& ns,
                                                             const std::map<std::string, std::string>& set,
                                                             const std::vector<std::string>& remove) override {
    FLOE_ASSIGN_OR_RETURN(bool exists, NamespaceExists(ns));
    if (!exists) return NotFound("namespace {} does not exist", ns.ToString());
    return Unsupported("the hadoop catalog cannot store namespace properties (use a rest or sql catalog)");
  }

  Result<std::vector<TableIdentifier>> ListTables(const Namespace& ns) override {
    FLOE_ASSIGN_OR_RETURN(bool exists, NamespaceExists(ns));
    if (!exists) return NotFound("namespace {} does not exist", ns.ToString());
    std::vector<TableIdentifier> out;
    FLOE_ASSIGN_OR_RETURN(auto entries, ListIfFolder(NamespaceDir(ns)));
    if (!entries) return out;
    for (const auto& e : *entries) {
      if (e.kind == io::EntryKind::kFolder && IsTableDir(e.location)) {
        out.push_back(TableIdentifier{ns, std::string(NameOf(e.location))});
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  Result<bool> TableExists(const TableIdentifier& id) override {
    return IsTableDir(TableDir(id));
  }

  Result<LoadedTable> LoadTable(const TableIdentifier& id) override {
    MetadataDir md(TableDir(id), io_);
    FLOE_ASSIGN_OR_RETURN(auto version, md.CurrentVersion());
    if (!version) return NotFound("table {} does not exist", id.ToString());
    FLOE_ASSIGN_OR_RETURN(std::string path, md.ExistingVersionPath(*version));
    if (IsGzip(path)) return Unsupported("{}: gzip metadata is not supported by the hadoop catalog yet", path);
    FLOE_ASSIGN_OR_RETURN(std::string text, io::ReadFile(*io_, path));
    if (auto why = CutOffMetadata(text)) return LoadBelowCutOff(id, md, *version, path, *why);
    FLOE_ASSIGN_OR_RETURN(LoadedTable loaded, ParseAt(id, path, text));
    // A writer killed between publishing a version and pointing the hint at
    // it leaves the hint behind; readers that trust it verbatim (DuckDB) would
    // miss that commit until the next one. Repair it here, best effort and
    // quietly (a read-only warehouse keeps its stale hint; floe and Java probe
    // past it), and only now that the version has been read whole. WriteHint
    // never moves the hint back.
    if (md.HintIsBehind(*version)) (void)md.WriteHint(*version);
    return loaded;
  }

  Result<LoadedTable> CreateTable(const TableIdentifier& id, const TableDefinition& def) override {
    FLOE_ASSIGN_OR_RETURN(bool ns_exists, NamespaceExists(id.ns));
    if (!ns_exists) return NotFound("namespace {} does not exist", id.ns.ToString());
    FLOE_ASSIGN_OR_RETURN(bool exists, TableExists(id));
    if (exists) return AlreadyExists("table {} already exists", id.ToString());
    if (!def.location.empty() && !IsTableDirLocation(def.location, id)) {
      return InvalidArgument("the hadoop catalog keeps tables at {}: a custom location is not allowed",
                             TableDir(id));
    }
    // Not inside another table's folder (`ns.t.data.y` while ns.t is a
    // table: the folder <ns>/t/data exists, so the namespace seems to), nor
    // around one.
    FLOE_RETURN_IF_ERROR(CheckNewTableLocation(*io_, TableDir(id), id));
    iceberg::NewTableOptions o;
    o.location = UriOf(TableDir(id));
    o.schema = def.schema;
    o.spec = def.spec;
    o.sort_order = def.sort_order;
    o.properties = def.properties;
    // A reserved property, recorded as the metadata's format-version (the
    // registry allows the versions floe writes: 2 and 3).
    FLOE_ASSIGN_OR_RETURN(auto format_version, config::Resolver(o.properties).Value(config::keys::kFormatVersion));
    o.format_version = static_cast<int32_t>(format_version);
    o.properties.erase(std::string(config::keys::kFormatVersion.name));
    o.now_ms = iceberg::NowMillis();
    FLOE_ASSIGN_OR_RETURN(auto metadata, iceberg::NewTableMetadata(o));
    FLOE_ASSIGN_OR_RETURN(std::string json, iceberg::TableMetadataToJson(metadata));
    MetadataDir md(TableDir(id), io_);
    FLOE_RETURN_IF_ERROR(CheckConditionalWrites());
    Status st = md.Publish(1, json);
    if (!st) {
      if (st.error().kind == ErrorKind::kCommitFailed) return AlreadyExists("table {} already exists", id.ToString());
      return Fail(st.error());
    }
    WarnIfHintFailed(id, 1, md.WriteHint(1));
    return LoadedTable{id, md.VersionPath(1), std::move(metadata)};
  }

  Result<LoadedTable> CommitTable(const LoadedTable& base, iceberg::TableMetadata updated) override {
    FLOE_RETURN_IF_ERROR(CheckLocation(base));
    // A table is its folder: a commit that moves the metadata's location
    // (set-location) elsewhere would leave a table that CheckLocation then
    // refuses to write, expire or clean.
    if (updated.location != base.metadata.location && !IsTableFolder(updated.location, TableDir(base.id))) {
      return InvalidArgument(
          "table {}: the hadoop catalog keeps the table at {} (a table is its folder): a commit that "
          "moves its location to {} would leave a table that can no longer be written; refused",
          base.id.ToString(), TableDir(base.id), updated.location);
    }
    MetadataDir md(TableDir(base.id), io_);
    auto base_version = ParseVersionFileName(NameOf(base.metadata_location));
    if (!base_version) return InvalidArgument("{} is not a hadoop-catalog metadata file", base.metadata_location);
    FLOE_ASSIGN_OR_RETURN(auto current, md.CurrentVersion());
    if (!current || *current != *base_version) {
      // A cut-off version right above the base is no other writer's commit
      // to reload and retry on: it blocks every commit until it is removed.
      if (current && *current > *base_version) FLOE_RETURN_IF_ERROR(RefuseCutOff(md, base.id, *base_version + 1));
      return CommitFailed("table {} changed: version {} is current, the commit was based on version {}",
                          base.id.ToString(), current ? *current : 0, *base_version);
    }
    FLOE_ASSIGN_OR_RETURN(const int32_t keep_versions,
                          config::Resolver(updated.properties).Value(config::keys::kMetadataPreviousVersionsMax));
    const size_t keep = static_cast<size_t>(keep_versions);
    iceberg::AddMetadataLogEntry(&updated, UriOf(base.metadata_location), base.metadata.last_updated_ms, keep);
    updated.last_updated_ms = std::max(updated.last_updated_ms, iceberg::NowMillis());
    FLOE_ASSIGN_OR_RETURN(std::string json, iceberg::TableMetadataToJson(updated));
    int64_t next = *base_version + 1;
    FLOE_RETURN_IF_ERROR(CheckConditionalWrites());
    CrashPoint("catalog.before-publish");
    FLOE_RETURN_IF_ERROR(md.Publish(next, json));
    CrashPoint("catalog.published");
    RememberMetadataFile(md.VersionPath(next), json, updated);
    // The commit stands either way (readers probe past a stale hint), but a
    // reader that trusts the hint verbatim (DuckDB) sees the old version.
    WarnIfHintFailed(base.id, next, md.WriteHint(next));
    return LoadedTable{base.id, md.VersionPath(next), std::move(updated)};
  }

  Status DropTable(const TableIdentifier& id, bool purge) override {
    FLOE_ASSIGN_OR_RETURN(bool exists, TableExists(id));
    if (!exists) return NotFound("table {} does not exist", id.ToString());
    // Files outside the table folder (write.data.path) are only removed by purge,
    // through the table layer; the folder itself always goes, as in Java's HadoopCatalog,
    // except the folders of other tables inside it (made by another engine, or
    // before floe refused such tables): they are not this table's.
    const std::string dir = TableDir(id);
    auto nested = TableFoldersBelow(*io_, dir);
    if (!nested) return IoError("cannot drop table {}: {}", id.ToString(), nested.error().message);
    Status st = nested->empty() ? io_->DeletePrefix(dir) : DeleteAllBut(dir, *nested);
    if (!st) return IoError("cannot drop table {}: {}", id.ToString(), st.error().message);
    if (!nested->empty()) {
      std::string list;
      for (const auto& n : *nested) list += (list.empty() ? "" : ", ") + n;
      Warn(fmt::format("table {} was dropped; its folder {} still holds other tables, which were kept: {}",
                       id.ToString(), dir, list));
    }
    (void)purge;
    return Ok();
  }

  Result<bool> DropIfUnchanged(const LoadedTable& created) override {
    MetadataDir md(TableDir(created.id), io_);
    auto version = ParseVersionFileName(NameOf(created.metadata_location));
    if (!version) return InvalidArgument("{} is not a hadoop-catalog metadata file", created.metadata_location);
    FLOE_ASSIGN_OR_RETURN(auto current, md.CurrentVersion());
    if (!current || *current != *version) return false;  // another writer committed: the table stays
    // Unpublish the version this caller created. A writer that loaded it can
    // no longer commit on top of it (its base is gone: kCommitFailed, then
    // NotFound); one that was already publishing the next version wins, and
    // the table lives on from that version.
    if (Status st = io_->Delete(created.metadata_location); !st) {
      return IoError("cannot remove {}: {}", created.metadata_location, st.error().message);
    }
    FLOE_ASSIGN_OR_RETURN(auto after, md.CurrentVersion());
    if (after) return false;
    // Nothing else is published: remove the hint, then the folders if empty
    // (a folder holding anything another writer put there stays), innermost first.
    (void)io_->Delete(md.dir() + "/version-hint.text");
    for (const std::string& dir : {md.dir(), TableDir(created.id) + "/data", TableDir(created.id)}) {
      (void)io_->RemoveFolderIfEmpty(dir);
    }
    return true;
  }

  Status CheckLocation(const LoadedTable& table) override {
    const std::string dir = TableDir(table.id);
    const std::string& location = table.metadata.location;
    if (IsTableFolder(location, dir)) return Ok();
    std::string hint;
    if (io::SchemeOf(location) != "file") {
      hint = fmt::format(" If this folder is a local copy of {}, map it: --map {}={}", location, location, dir);
    }
    return InvalidArgument(
        "table {} was found at {}, but its metadata names {} as the table location: the folder was "
        "copied or moved (cp -a keeps the absolute locations in the metadata and manifests), so "
        "writing to it, expiring it or removing its orphan files would change the files at {}; "
        "refused (reading it still works).{}",
        table.id.ToString(), dir, location, location, hint);
  }

  // Rename is not supported, as in Java's HadoopCatalog, by decision: rename(2) of the
  // table folder (even with RENAME_NOREPLACE, which would make it atomic and
  // safe against an existing target) moves the files but not what points at
  // them. In format v1/v2 the metadata's `location`, every manifest-list,
  // manifest_path, file_path and metadata-log entry is an absolute URI
  // (Iceberg spec: Paths in Metadata; PITFALLS 98), so the renamed table would
  // still name the old folder: readers would fail, or read a new table made
  // under the old name. Rewriting every manifest and metadata file is a copy,
  // not an atomic rename, and concurrent writers of the old name would keep
  // committing to a folder that moved. Relative paths arrive only in v4.
  Status RenameTable(const TableIdentifier& from, const TableIdentifier& to) override {
    return Unsupported(
        "the hadoop catalog cannot rename tables: the metadata stores absolute file locations under {} "
        "(use a rest or sql catalog, or copy the table)",
        TableDir(from));
  }

  std::string WarehouseLocation() const override { return UriOf(warehouse_); }

  // Whether `location` names the table folder `dir`. Through the FileIO: a
  // location mapped (--map) to this folder is this folder; file: URIs and
  // absolute paths are compared as they are.
  bool IsTableFolder(const std::string& location, const std::string& dir) const {
    if (auto local = io_->Canonical(location); local && local->starts_with("/")) {
      if (*local == dir) return true;
      auto a = io_->Resolve(location);
      auto b = io_->Resolve(dir);
      if (a && b && *a == *b) return true;  // the same folder by another path (a symlink)
    } else if (!local_ && local) {
      // Object storage: s3a://b/t and s3://b/t are one table.
      auto here = io_->Canonical(dir);
      if (here && *here == *local) return true;
    }
    return false;
  }

  // As Java's HadoopCatalog: a table is wherever its folder is, so there is
  // no pointer to register.
  Result<LoadedTable> RegisterTable(const TableIdentifier& id, const std::string& metadata_location) override {
    return Unsupported(
        "the hadoop catalog cannot register tables: a table is its folder {} (use a rest or sql catalog)",
        TableDir(id));
  }

 private:
  // Removes everything below `dir` except the folders `keep` (and the
  // folders leading to them), then `dir` itself if it is empty.
  Status DeleteAllBut(const std::string& dir, const std::vector<std::string>& keep) {
    FLOE_ASSIGN_OR_RETURN(auto entries, io_->ListFolder(dir));
    for (const auto& e : entries) {
      bool kept = false, leads = false;
      for (const auto& k : keep) {
        kept |= k == e.location;
        leads |= k.size() > e.location.size() && k.starts_with(e.location) && k[e.location.size()] == '/';
      }
      if (kept) continue;
      if (e.kind == io::EntryKind::kFolder) {
        FLOE_RETURN_IF_ERROR(leads ? DeleteAllBut(e.location, keep) : io_->DeletePrefix(e.location));
      } else {
        FLOE_RETURN_IF_ERROR(io_->Delete(e.location));
      }
    }
    FLOE_RETURN_IF_ERROR(io_->RemoveFolderIfEmpty(dir));
    return Ok();
  }

  std::string NamespaceDir(const Namespace& ns) const {
    std::string p = warehouse_;
    for (const auto& l : ns.levels) p += (p.ends_with("/") ? "" : "/") + l;
    return p;
  }
  // The location URI of a folder or file of this catalog: file: URIs for a
  // local warehouse, the location itself in object storage.
  std::string UriOf(const std::string& path) const { return local_ ? FileUri(path) : path; }

  // Whether a custom table location names the folder the catalog keeps `id` in.
  bool IsTableDirLocation(const std::string& location, const TableIdentifier& id) const {
    if (local_) return AbsolutePath(location) == TableDir(id);
    auto a = io_->Canonical(location);
    auto b = io_->Canonical(TableDir(id));
    return a && b && *a == *b;
  }

  std::string TableDir(const TableIdentifier& id) const {
    std::string ns = NamespaceDir(id.ns);
    return ns + (ns.ends_with("/") ? "" : "/") + id.name;
  }

  // The entries of the folder `dir`; nullopt when it is not a folder.
  Result<std::optional<std::vector<io::FileInfo>>> ListIfFolder(const std::string& dir) const {
    auto entries = io_->ListFolder(dir);
    if (entries) return std::optional<std::vector<io::FileInfo>>(std::move(*entries));
    if (entries.error().kind == ErrorKind::kNotFound) return std::optional<std::vector<io::FileInfo>>();
    return Fail(entries.error());
  }

  // A folder holding metadata/v<N>.metadata.json.
  bool IsTableDir(const std::string& dir) const {
    auto md = ListIfFolder(dir + "/metadata");
    if (!md || !*md) return false;
    for (const auto& e : **md) {
      if (ParseVersionFileName(NameOf(e.location))) return true;
    }
    return false;
  }

  Result<LoadedTable> ParseAt(const TableIdentifier& id, const std::string& path, std::string_view text) {
    if (IsGzip(path)) return Unsupported("{}: gzip metadata is not supported by the hadoop catalog yet", path);
    auto md = ParseMetadataFile(path, text);
    if (!md) return Fail(md.error().WithContext(path));
    return LoadedTable{id, path, std::move(*md)};
  }

  // The newest version, `version` at `path`, is cut off (CutOffMetadata says
  // `why`): a publish that did not complete on a store whose writes are not
  // atomic. Nobody can have committed it, so readers get the newest intact
  // version below it, with a warning; commits are refused while it is there
  // (RefuseCutOff), since removing it is safe only when no writer is still
  // writing it, which floe cannot tell.
  Result<LoadedTable> LoadBelowCutOff(const TableIdentifier& id, const MetadataDir& md, int64_t version,
                                      const std::string& path, const std::string& why) {
    for (int64_t v = version - 1; v >= 0; --v) {
      auto older = md.ExistingVersionPath(v);
      if (!older && older.error().kind == ErrorKind::kNotFound) break;
      if (!older) return Fail(older.error());
      if (IsGzip(*older)) return ParseAt(id, *older, "");  // refused as unsupported
      FLOE_ASSIGN_OR_RETURN(std::string text, io::ReadFile(*io_, *older));
      if (CutOffMetadata(text)) continue;
      FLOE_ASSIGN_OR_RETURN(LoadedTable loaded, ParseAt(id, *older, text));
      {
        // Once per object and catalog: a command loads a table more than once.
        std::lock_guard lock(probe_mu_);
        if (!warned_cut_off_.insert(path).second) return loaded;
      }
      Warn(fmt::format(
          "table {}: its newest metadata version {} ({}) is {}: a publish that did not complete; reading "
          "version {}, the newest intact one. Commits to the table are refused until that object is "
          "removed: {}",
          id.ToString(), version, path, why, v, CutOffWayOut(path, v)));
      return loaded;
    }
    return Corrupt(
        "table {}: its newest metadata version {} ({}) is {}: a publish that did not complete, and no "
        "earlier version is intact; if no writer is publishing it, remove that object (the table then "
        "does not exist)",
        id.ToString(), version, path, why);
  }

  // kCorrupt naming the version and the way out when `version` of the table
  // is a cut-off publish; Ok otherwise (another writer's commit, or gone).
  Status RefuseCutOff(const MetadataDir& md, const TableIdentifier& id, int64_t version) {
    auto path = md.ExistingVersionPath(version);
    if (!path || IsGzip(*path)) return Ok();
    auto text = io::ReadFile(*io_, *path);
    if (!text) return Ok();  // the commit fails as changed, and the reload says what is wrong
    auto why = CutOffMetadata(*text);
    if (!why) return Ok();
    return Corrupt(
        "table {}: metadata version {} ({}) is {}: a publish that did not complete, so no later version "
        "can be published; refused: {}",
        id.ToString(), version, *path, *why, CutOffWayOut(*path, version - 1));
  }

  static bool IsGzip(std::string_view path) { return path.ends_with(".gz.metadata.json"); }

  static std::string CutOffWayOut(const std::string& path, int64_t intact) {
    return fmt::format(
        "if no writer is still publishing it, remove {} (with any S3 client, or rm for a local "
        "warehouse); the table then reads and commits on top of version {}",
        path, intact);
  }

  // The hadoop catalog on object storage publishes with conditional writes:
  // before its first write (a namespace folder, a metadata version), it
  // checks once that the store honours them (ProbeConditionalWrites), so that
  // opening the catalog to read writes nothing.
  Status CheckConditionalWrites() {
    if (local_) return Ok();
    std::lock_guard lock(probe_mu_);
    if (conditional_writes_checked_) return Ok();
    if (Status st = ProbeConditionalWrites(*io_, warehouse_); !st) {
      return Fail(st.error().WithContext(fmt::format("hadoop catalog {}", name_)));
    }
    conditional_writes_checked_ = true;
    return Ok();
  }

  std::string name_;
  std::string warehouse_;
  bool local_ = true;  // the warehouse is on the local file system (else object storage)
  std::mutex probe_mu_;
  bool conditional_writes_checked_ = false;  // under probe_mu_
  std::set<std::string> warned_cut_off_;     // under probe_mu_: cut-off versions warned about
};

}  // namespace

Result<bool> Catalog::DropIfUnchanged(const LoadedTable& created) {
  FLOE_ASSIGN_OR_RETURN(LoadedTable current, LoadTable(created.id));
  if (current.metadata_location != created.metadata_location) return false;
  FLOE_RETURN_IF_ERROR(DropTable(created.id, /*purge=*/false));
  // The created version is referenced by nothing now: remove it, and the
  // folders if empty, so that a later create of the same table is not
  // refused for the metadata left there (CheckNewTableLocation). Best effort
  // (a REST client may not reach the table's storage).
  (void)io_->Delete(created.metadata_location);
  (void)io_->RemoveFolderIfEmpty(created.metadata.location + "/metadata");
  (void)io_->RemoveFolderIfEmpty(created.metadata.location);
  return true;
}

Result<std::unique_ptr<Catalog>> OpenHadoopCatalog(const std::string& name, const std::string& warehouse,
                                                   const std::map<std::string, std::string>& options) {
  // The FileIO by the warehouse's scheme: local for file: URIs and paths,
  // S3 for s3://, s3a://, s3n:// (catalog_file_io.h).
  auto io = OpenCatalogFileIO(warehouse, options);
  if (!io) return Fail(io.error().WithContext(fmt::format("hadoop catalog {}: warehouse {}", name, warehouse)));
  auto local = (*io)->LocalPath(warehouse);
  if (!local && io::SchemeOf(warehouse) != "file") {
    // Object storage. Namespaces are folders, kept as folder markers (the
    // warehouse is a key prefix: nothing to create); a version is published
    // with a conditional write, so a store that does not honour one is
    // refused before the catalog's first write (CheckConditionalWrites), not
    // here: reading needs no write permission and no free space.
    std::string wh = warehouse;
    while (wh.size() > 1 && wh.ends_with("/") && !wh.ends_with("://")) wh.pop_back();
    return std::unique_ptr<Catalog>(new HadoopCatalog(name, wh, std::move(*io), /*local=*/false));
  }
  if (!local) {
    return Unsupported("hadoop catalog {}: warehouse {} is not a local folder ({})", name, warehouse,
                       local.error().message);
  }
  const std::string wh = AbsolutePath(*local);
  if (Status st = (*io)->CreateFolders(wh, nullptr); !st) {
    return IoError("cannot create warehouse {}: {}", wh, st.error().message);
  }
  return std::unique_ptr<Catalog>(new HadoopCatalog(name, wh, std::move(*io), /*local=*/true));
}

}  // namespace floe::catalog
