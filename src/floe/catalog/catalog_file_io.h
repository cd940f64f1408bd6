/// \file
/// The FileIO of a catalog's warehouse: picked by the location's scheme
/// (io::OpenFileIO) after the built-in object-storage FileIOs are
/// registered, with `io-impl` honoured (Iceberg's class names) and the S3
/// FileIO's warnings (an abort the store refused) passed on as catalog
/// warnings. The hadoop and sql catalogs open their FileIO here.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "floe/io/file_io.h"
#include "floe/util/status.h"

namespace floe::catalog {

/// The FileIO for `location` (a warehouse or table location) from catalog
/// `options`. io-impl=org.apache.iceberg.aws.s3.S3FileIO requires an
/// s3/s3a/s3n location; ResolvingFileIO and HadoopFileIO pick by scheme.
Result<io::FileIOPtr> OpenCatalogFileIO(std::string_view location,
                                        const std::map<std::string, std::string>& options);

/// A FileIO for a catalog whose tables may live anywhere (the REST catalog:
/// the server decides the locations): each call goes to the FileIO of its
/// location's scheme, opened from `options` (OpenCatalogFileIO) on first
/// use and kept. So a REST catalog reaches `s3://` tables with the `s3.*`
/// properties of its options and of the server's config response, and
/// needs no S3 credentials while its tables are local.
io::FileIOPtr OpenResolvingCatalogFileIO(std::map<std::string, std::string> options);

/// Checks that the store behind `io` honours conditional writes
/// (`If-None-Match: *`) at `folder`: writes a probe object, publishes it
/// again and expects that to be refused, then removes it (also when a write
/// failed). A store that accepts both would let two writers both win a
/// metadata version: kUnsupported. The hadoop catalog calls it before its
/// first write, never for reading.
Status ProbeConditionalWrites(io::FileIO& io, const std::string& folder);

}  // namespace floe::catalog
