/// \file
/// The catalog interface (Iceberg's Catalog: namespaces, tables, atomic
/// metadata swaps) and the registry that opens a catalog from Flink's catalog
/// options (`catalog-type` = hadoop | rest | hive | sql, or `catalog-impl`).
/// A catalog commits a new metadata version only if the caller's base is
/// still current: kCommitFailed otherwise (reload and re-apply), and
/// kCommitStateUnknown when it cannot tell (never clean up files then).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "floe/catalog/identifier.h"
#include "floe/iceberg/partition_spec.h"
#include "floe/iceberg/sort_order.h"
#include "floe/iceberg/table_metadata.h"
#include "floe/io/file_io.h"
#include "floe/types/type.h"
#include "floe/util/status.h"

namespace floe::catalog {

/// A table as loaded: its identifier, the metadata file it came from and the
/// parsed metadata.
struct LoadedTable {
  TableIdentifier id;
  std::string metadata_location;
  iceberg::TableMetadata metadata;
};

/// What a new table is made of.
struct TableDefinition {
  Schema schema;
  iceberg::PartitionSpec spec;
  iceberg::SortOrder sort_order;
  std::map<std::string, std::string> properties;
  std::string location;  ///< empty: the catalog's default location
};

/// What UpdateNamespaceProperties did (the REST spec's
/// UpdateNamespacePropertiesResponse): keys set, keys removed, and keys asked
/// to be removed that were not there.
struct NamespacePropertyChanges {
  std::vector<std::string> updated;
  std::vector<std::string> removed;
  std::vector<std::string> missing;
};

class Catalog {
 public:
  virtual ~Catalog() = default;
  virtual const std::string& name() const = 0;

  virtual Status CreateNamespace(const Namespace& ns, const std::map<std::string, std::string>& properties) = 0;
  /// Direct children of `parent` (the top level when empty).
  virtual Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent) = 0;
  virtual Result<bool> NamespaceExists(const Namespace& ns) = 0;
  /// Fails unless the namespace holds no tables and no namespaces.
  virtual Status DropNamespace(const Namespace& ns) = 0;
  /// The namespace's properties; kNotFound when it does not exist.
  virtual Result<std::map<std::string, std::string>> LoadNamespaceProperties(const Namespace& ns) = 0;
  /// Sets `set` and removes `remove` (a key in both is kInvalidArgument, as
  /// in the REST spec). kUnsupported where the catalog cannot store
  /// properties (hadoop).
  virtual Result<NamespacePropertyChanges> UpdateNamespaceProperties(
      const Namespace& ns, const std::map<std::string, std::string>& set, const std::vector<std::string>& remove) = 0;

  virtual Result<std::vector<TableIdentifier>> ListTables(const Namespace& ns) = 0;
  virtual Result<bool> TableExists(const TableIdentifier& id) = 0;
  virtual Result<LoadedTable> LoadTable(const TableIdentifier& id) = 0;
  /// The table's current version, never a cached one (LoadTable may answer
  /// from the caching catalog's cache: `cache-enabled`).
  virtual Result<LoadedTable> RefreshTable(const TableIdentifier& id) { return LoadTable(id); }
  /// kAlreadyExists when the table exists; the namespace must exist.
  virtual Result<LoadedTable> CreateTable(const TableIdentifier& id, const TableDefinition& def) = 0;
  /// Publishes `updated` as the next version after `base`. kCommitFailed when
  /// `base` is no longer the current version.
  virtual Result<LoadedTable> CommitTable(const LoadedTable& base, iceberg::TableMetadata updated) = 0;
  /// Drops the table from the catalog; with `purge` also deletes every file
  /// its metadata references.
  virtual Status DropTable(const TableIdentifier& id, bool purge) = 0;
  /// Undoes a CreateTable whose first write failed: drops the table only
  /// while it is still exactly `created` (no commit followed; another writer
  /// may have found the new table and committed to it), and removes nothing
  /// another writer added. Returns whether the table was dropped. The
  /// default compares the current metadata location, drops without purge,
  /// then removes the created metadata file (and the table's folders if
  /// empty), best effort.
  virtual Result<bool> DropIfUnchanged(const LoadedTable& created);
  /// kAlreadyExists when `to` exists, kNotFound when `from` or `to`'s
  /// namespace does not.
  virtual Status RenameTable(const TableIdentifier& from, const TableIdentifier& to) = 0;
  /// Adds an existing table to the catalog by its current metadata file
  /// (Iceberg's registerTable). kAlreadyExists when `id` exists.
  virtual Result<LoadedTable> RegisterTable(const TableIdentifier& id, const std::string& metadata_location) = 0;

  /// Fails unless `table`'s metadata `location` is where this catalog keeps
  /// the table. A table folder copied (`cp -a`) or moved by hand still names
  /// the original folder in its metadata and manifests (absolute locations,
  /// Iceberg spec: Paths in Metadata), so writing to it, expiring it or
  /// removing its orphan files would change the original's files. Called
  /// where a write or a delete starts (commit, expire, orphan removal), not
  /// on load: reading such a table still works. The default accepts every
  /// table (a catalog that stores the location as given has nothing to check).
  virtual Status CheckLocation(const LoadedTable& table) { return Ok(); }

  /// The root under which this catalog keeps the tables it makes (the
  /// `warehouse`, as a location URI or local path), empty when it has none
  /// that it writes to (a REST catalog: its server decides). `floe serve`
  /// accepts client-given locations under it (and under the prefixes an
  /// operator allows).
  virtual std::string WarehouseLocation() const { return {}; }

  /// The FileIO through which this catalog and the tables loaded from it
  /// read, write, list and delete files (table::Table takes it from here).
  /// The local file system unless replaced.
  const io::FileIOPtr& io() const { return io_; }
  /// Replaces the FileIO, before tables are loaded: usually a decorator of
  /// io() (prefix mappings for `--map`, fault injection in tests).
  /// A wrapper passes it on to the catalog it wraps.
  virtual void SetFileIO(io::FileIOPtr io) { io_ = std::move(io); }

 protected:
  io::FileIOPtr io_ = io::LocalFileIO();
};

/// Opens a catalog from catalog options (see docs/options.md, "Catalog
/// options"); with no `catalog-type` / `catalog-impl` it is the hadoop
/// catalog at `warehouse` (default ./warehouse). Unknown types name the
/// valid ones.
Result<std::unique_ptr<Catalog>> OpenCatalog(const std::string& name,
                                             const std::map<std::string, std::string>& options);

/// The checks OpenCatalog makes on the options before it opens anything (no
/// I/O): catalog-type / catalog-impl, hive refused naming the alternatives,
/// options of another built-in type (an option that would do nothing), the
/// cache options. Commands call it to report bad options as usage errors.
Status CheckCatalogOptions(const std::string& name, const std::map<std::string, std::string>& options);

/// Makes a catalog from its options; registered by type name.
using CatalogFactory = std::function<Result<std::unique_ptr<Catalog>>(
    const std::string& name, const std::map<std::string, std::string>& options)>;
/// Registers a catalog type (`catalog-type` value or `catalog-impl` class
/// name). Later registrations of the same name replace earlier ones.
void RegisterCatalog(const std::string& type, CatalogFactory factory);

/// The hadoop catalog: `<warehouse>/<ns...>/<table>/metadata/v<N>.metadata.json`.
/// Its FileIO comes from the registry by the warehouse's scheme
/// (io::OpenFileIO): a local folder, as the layout needs an atomic publish
/// and folders; other schemes are refused with the registry's message.
Result<std::unique_ptr<Catalog>> OpenHadoopCatalog(const std::string& name, const std::string& warehouse,
                                                   const std::map<std::string, std::string>& options = {});

}  // namespace floe::catalog
