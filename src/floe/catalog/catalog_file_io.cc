// Opening a catalog's FileIO (catalog_file_io.h).
#include "floe/catalog/catalog_file_io.h"

#include <mutex>

#include "floe/catalog/warnings.h"
#include "floe/config/options.h"
#include "floe/s3/s3_file_io.h"
#include "floe/util/uuid.h"

namespace floe::catalog {

Result<io::FileIOPtr> OpenCatalogFileIO(std::string_view location,
                                        const std::map<std::string, std::string>& options) {
  static std::once_flag once;
  std::call_once(once, [] {
    s3::RegisterS3FileIO();
    s3::SetS3WarningHandler([](const std::string& w) { Warn(w); });
  });
  FLOE_ASSIGN_OR_RETURN(auto impl, config::Resolver(options).Get(config::keys::kIoImpl));
  const std::string scheme = io::SchemeOf(location);
  if (impl && *impl == s3::kS3FileIOClass && scheme != "s3" && scheme != "s3a" && scheme != "s3n") {
    return InvalidArgument("io-impl={} needs an s3://, s3a:// or s3n:// location, not '{}'", *impl,
                           location);
  }
  return io::OpenFileIO(location, options);
}

namespace {

/// OpenResolvingCatalogFileIO's FileIO: one inner FileIO per scheme.
class ResolvingFileIO final : public io::FileIO {
 public:
  explicit ResolvingFileIO(std::map<std::string, std::string> options)
      : options_(std::move(options)) {}

  std::string_view name() const override { return "resolving"; }

  Result<std::unique_ptr<InputFile>> NewInput(std::string_view location) override {
    FLOE_ASSIGN_OR_RETURN(auto io, For(location));
    return io->NewInput(location);
  }
  Result<std::unique_ptr<OutputFile>> NewOutput(std::string_view location,
                                                const io::OutputOptions& options) override {
    FLOE_ASSIGN_OR_RETURN(auto io, For(location));
    return io->NewOutput(location, options);
  }
  Status PublishIfAbsent(std::string_view location, std::string_view data, bool sync) override {
    FLOE_ASSIGN_OR_RETURN(auto io, For(location));
    return io->PublishIfAbsent(location, data, sync);
  }
  Status Delete(std::string_view location) override {
    FLOE_ASSIGN_OR_RETURN(auto io, For(location));
    return io->Delete(location);
  }
  Result<bool> Exists(std::string_view location) override {
    FLOE_ASSIGN_OR_RETURN(auto io, For(location));
    return io->Exists(location);
  }
  Result<io::FileInfo> Stat(std::string_view location) override {
    FLOE_ASSIGN_OR_RETURN(auto io, For(location));
    return io->Stat(location);
  }
  Status ListFiles(std::string_view location,
                   const std::function<Status(const io::FileInfo&)>& visit) override {
    FLOE_ASSIGN_OR_RETURN(auto io, For(location));
    return io->ListFiles(location, visit);
  }
  Result<std::vector<io::FileInfo>> ListFolder(std::string_view location) override {
    FLOE_ASSIGN_OR_RETURN(auto io, For(location));
    return io->ListFolder(location);
  }
  Status CreateFolders(std::string_view location, std::vector<std::string>* created) override {
    FLOE_ASSIGN_OR_RETURN(auto io, For(location));
    return io->CreateFolders(location, created);
  }
  Result<bool> RemoveFolderIfEmpty(std::string_view location) override {
    FLOE_ASSIGN_OR_RETURN(auto io, For(location));
    return io->RemoveFolderIfEmpty(location);
  }
  Status DeletePrefix(std::string_view location) override {
    FLOE_ASSIGN_OR_RETURN(auto io, For(location));
    return io->DeletePrefix(location);
  }
  void ReleaseFolders(std::string_view location, std::set<std::string>* created) override {
    if (auto io = For(location)) (*io)->ReleaseFolders(location, created);
  }
  Result<std::string> Canonical(std::string_view location) override {
    FLOE_ASSIGN_OR_RETURN(auto io, For(location));
    return io->Canonical(location);
  }
  Result<std::string> Resolve(std::string_view location) override {
    FLOE_ASSIGN_OR_RETURN(auto io, For(location));
    return io->Resolve(location);
  }
  Result<std::string> LocalPath(std::string_view location) override {
    FLOE_ASSIGN_OR_RETURN(auto io, For(location));
    return io->LocalPath(location);
  }

 private:
  // The FileIO of `location`'s scheme; s3, s3a and s3n share one (the S3
  // FileIO reads every spelling). A failure to open is not kept: the next
  // call opens again and reports the same error.
  Result<io::FileIOPtr> For(std::string_view location) {
    std::string scheme = io::SchemeOf(location);
    if (scheme == "s3a" || scheme == "s3n") scheme = "s3";
    std::lock_guard lock(mu_);
    if (auto it = by_scheme_.find(scheme); it != by_scheme_.end()) return it->second;
    FLOE_ASSIGN_OR_RETURN(io::FileIOPtr io, OpenCatalogFileIO(location, options_));
    by_scheme_.emplace(scheme, io);
    return io;
  }

  const std::map<std::string, std::string> options_;
  std::mutex mu_;
  std::map<std::string, io::FileIOPtr> by_scheme_;
};

}  // namespace

io::FileIOPtr OpenResolvingCatalogFileIO(std::map<std::string, std::string> options) {
  return std::make_shared<ResolvingFileIO>(std::move(options));
}

Status ProbeConditionalWrites(io::FileIO& io, const std::string& folder) {
  const std::string probe =
      folder + (folder.ends_with("/") ? "" : "/") + ".floe-conditional-write-probe-" + RandomUuid();
  // The first write as an output (If-None-Match on S3): a store that fails
  // it and keeps a cut-off object (a full disk) has that object removed.
  if (Status first = io::WriteFile(io, probe, "1", /*overwrite=*/false); !first) {
    (void)io.Delete(probe);  // whatever the failed write left (usually nothing)
    return Fail(first.error().WithContext(
        "checking that the store honours conditional writes before the first commit (a write of a "
        "probe object, removed again)"));
  }
  Status second = io.PublishIfAbsent(probe, "2", false);
  // Best effort: a left-over probe is a small orphan that nothing reads.
  (void)io.Delete(probe);
  if (second) {
    return Unsupported(
        "the store behind {} does not honour conditional writes (a second PUT with If-None-Match: "
        "* "
        "replaced the object instead of failing with 412): two writers could both publish the same "
        "metadata version, so the hadoop catalog refuses it; use a store that supports conditional "
        "writes (AWS S3 since 2024, MinIO) or a sql / rest catalog",
        folder);
  }
  if (second.error().kind != ErrorKind::kAlreadyExists) return Fail(second.error());
  return Ok();
}

}  // namespace floe::catalog
