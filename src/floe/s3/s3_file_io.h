/// \file
/// The S3 FileIO: `s3://bucket/key` locations (also `s3a://`, `s3n://`) on
/// AWS S3 or any store that speaks its REST API (MinIO, the test server).
/// Configured with Iceberg's S3FileIO property names (s3.endpoint,
/// s3.access-key-id, s3.secret-access-key, s3.session-token,
/// s3.path-style-access, client.region, s3.multipart.part-size-bytes), the
/// AWS_* environment variables as a fallback.
///
/// How FileIO's model maps onto a store without folders:
/// - outputs stream: parts of s3.multipart.part-size-bytes are uploaded in
///   the background while the writer goes on (at most max_parts_in_flight at
///   once, so an output holds at most (max_parts_in_flight + 1) parts in
///   memory); a file smaller than one part is a single PUT at Commit. Commit
///   without overwrite sends `If-None-Match: *`, so an existing object is
///   never replaced (kAlreadyExists). Abort aborts the multipart upload; a
///   store that refuses the abort (405) is a warning, not an error.
/// - PublishIfAbsent is one conditional PUT (`If-None-Match: *`): 412 is
///   kAlreadyExists. When the outcome of a send is unknown (connection lost
///   after sending, 5xx), it is sent again: a success is ours; a 412 then is
///   ours only if the object holds exactly our bytes (read back and
///   compared), else another writer's, unless the object holds a strict
///   prefix of our bytes (the empty object included): what a store whose
///   writes are not atomic keeps of an attempt it failed (a full disk, a
///   request cut off after a stall). Then an output's Commit removes that
///   object and fails naming the first attempt's error; PublishIfAbsent
///   leaves it (another writer may be writing it on such a store) and is
///   kCommitStateUnknown. Attempts exhausted while the outcome is unknown:
///   kCommitStateUnknown.
/// - retries and time-outs: s3.retry.num-retries, s3.retry.min-wait-ms,
///   s3.retry.max-wait-ms, s3.connection-timeout-ms, s3.socket-timeout-ms
///   (S3Config; README "Object storage").
/// - folders are key prefixes: a folder exists when some key is below it.
///   CreateFolders writes a zero-byte marker `key/` (as Hadoop's S3A does
///   for mkdirs), so that an empty namespace of the hadoop catalog exists;
///   NewOutput's create_parents makes nothing. RemoveFolderIfEmpty removes
///   the marker when nothing else is below. Listings skip markers as files.
/// - inputs: a HEAD for the size at open, then ranged GETs with explicit
///   `bytes=a-b` ranges (never a suffix range); small reads are served from
///   a read-ahead window, a read near the end takes the window ending at the
///   end (the Parquet footer and its length in one request).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "floe/io/file_io.h"
#include "floe/s3/s3_client.h"
#include "floe/util/status.h"

namespace floe::s3 {

/// The Java class name that `io-impl` selects this FileIO with.
inline constexpr std::string_view kS3FileIOClass = "org.apache.iceberg.aws.s3.S3FileIO";

/// A parsed `s3://bucket/key` location.
struct S3Location {
  std::string scheme;  ///< as written, lower case: s3, s3a or s3n
  std::string bucket;
  std::string key;  ///< without a leading slash; "" for the bucket itself
};

/// Parses `s3://bucket/key` (s3, s3a, s3n); kInvalidArgument naming the
/// location otherwise.
Result<S3Location> ParseS3Location(std::string_view location);

/// The configuration from catalog properties, the AWS_* environment
/// variables filling what the properties leave out (the credentials as a
/// set: AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN only
/// when s3.access-key-id is not given; AWS_REGION, then
/// AWS_DEFAULT_REGION, when client.region is not).
Result<S3Config> S3ConfigFromProperties(const std::map<std::string, std::string>& properties);

/// The S3 FileIO over `client` (tests keep the client to count requests).
io::FileIOPtr MakeS3FileIO(std::shared_ptr<S3Client> client);

/// Registers the S3 FileIO for the schemes s3, s3a and s3n (io::RegisterFileIO).
/// Called where floe's built-ins are set up: the CLI's main and the catalog
/// layer's FileIO opening (catalog::OpenCatalogFileIO); calling it again is
/// harmless.
void RegisterS3FileIO();

}  // namespace floe::s3
