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

Status ProbeConditionalWrites(io::FileIO& io, const std::string& folder) {
  const std::string probe =
      folder + (folder.ends_with("/") ? "" : "/") + ".floe-conditional-write-probe-" + RandomUuid();
  FLOE_RETURN_IF_ERROR(io.PublishIfAbsent(probe, "1", false));
  Status second = io.PublishIfAbsent(probe, "2", false);
  (void)io.Delete(probe);  // best effort: a left-over probe is a small orphan, nothing reads it
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
