// Helpers of the CLI-level S3 proofs (s3_table_cli_test.cc,
// s3_fault_cli_test.cc, s3_concurrency_cli_test.cc): the catalogs they run
// through with the warehouse on the S3 test server (testing/s3_server.h),
// what the store holds, a second S3 client that is not floe (curl's own
// SigV4) for planting objects, and the spec-only reference reader
// (verify_table.mjs) reading a table from a mirror of the store.
#pragma once

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_util.h"
#include "testing/s3_server.h"

namespace floe_cli_test {

using floe::test::S3TestServer;

/// The catalogs the S3 proofs run through: "hadoop" (the warehouse on the
/// store, metadata versions published with If-None-Match) and "sql" (a
/// SQLite catalog file in the test folder, the warehouse on the store).
inline const std::vector<std::string> kS3Catalogs = {"hadoop", "sql"};

/// The warehouse of the S3 proofs, inside the server's bucket.
inline std::string S3Warehouse(const S3TestServer& server) {
  return "s3://" + server.bucket() + "/wh";
}

/// " --catalog k=v ..." for catalog `kind` with its warehouse on `server`,
/// reached at `endpoint` (a fault proxy in front of it; "" = the server).
inline std::string S3CatalogArgs(const std::string& kind, const S3TestServer& server,
                                 const fs::path& dir, const std::string& endpoint = "") {
  auto props = server.CatalogProperties(S3Warehouse(server));
  if (!endpoint.empty()) props["s3.endpoint"] = endpoint;
  if (kind == "sql") {
    props["catalog-type"] = "sql";
    props["uri"] = "jdbc:sqlite:file:" + (dir / "catalog.db").string();
  }
  std::string out;
  for (const auto& [k, v] : props) out += " --catalog " + Shell(k + "=" + v);
  return out;
}

/// The keys of the objects in the store that start with `prefix`, sorted
/// (folder markers, keys ending in '/', included).
inline std::set<std::string> StoreKeys(const S3TestServer& server, const std::string& prefix = "") {
  static constexpr std::string_view kSuffix = "._S3rver_object";
  std::set<std::string> out;
  const fs::path root = server.dir() / server.bucket();
  if (!fs::exists(root)) return out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    std::string p = e.path().string();
    if (!e.is_regular_file() || !p.ends_with(kSuffix)) continue;
    std::string key = fs::relative(e.path(), root).string();
    key.resize(key.size() - kSuffix.size());
    if (key.starts_with(prefix)) out.insert(key);
  }
  return out;
}

/// The key of an `s3://bucket/key` location of this server's bucket ("" for
/// another bucket or scheme).
inline std::string KeyOf(const S3TestServer& server, const std::string& location) {
  const std::string head = "s3://" + server.bucket() + "/";
  return location.starts_with(head) ? location.substr(head.size()) : "";
}

/// Puts `data` at `key` with curl's own SigV4 signing (`--aws-sigv4`): an
/// object floe did not write (the store's other clients).
inline RunResult CurlPut(const fs::path& dir, const S3TestServer& server, const std::string& key,
                         const std::string& data) {
  const fs::path body = dir / ".curl_body";
  WriteFile(body, data);
  return RunIn(dir, "h=$(sha256sum " + Shell(body.string()) +
                        " | cut -d' ' -f1) && curl -sS --fail-with-body --aws-sigv4 "
                        "aws:amz:us-east-1:s3 --user " +
                        Shell(server.access_key() + ":" + server.secret_key()) +
                        " -H \"x-amz-content-sha256: $h\" -T " + Shell(body.string()) + " " +
                        Shell(server.endpoint() + "/" + server.bucket() + "/" + key));
}

/// The live rows of the table whose metadata is at `metadata_location`
/// (s3://...), as the spec-only reference reader prints them, reading a
/// fresh mirror of the store (`--map s3://bucket/=<mirror>`); `extra` are
/// more options (`--snapshot-id N`). --strict: a spec warning fails it.
inline RunResult VerifyFromMirror(const fs::path& dir, const S3TestServer& server,
                                  const std::string& metadata_location,
                                  const std::string& extra = "") {
  const fs::path mirror = dir / "mirror";
  if (auto st = server.Mirror(mirror); !st) return RunResult{1, "", st.error().ToString()};
  const std::string key = KeyOf(server, metadata_location);
  if (key.empty()) return RunResult{1, "", "not a location of the store: " + metadata_location};
  std::vector<std::string> args = {(mirror / key).string(), "--strict", "--map",
                                   "s3://" + server.bucket() + "/=" + mirror.string() + "/"};
  for (std::string& a : Words(extra)) args.push_back(std::move(a));  // extra: plain words (no quoting)
  return Node(dir, "verify_table.mjs", args);
}

/// The "id" of each JSON line of `text`, with how often each appears.
/// Parsed with simdjson's DOM parser (its parsing is compiled into the
/// library): a multipart test reads 250,000 rows twice, and nlohmann::json
/// compiled with the tests' -O0 under ASan spent a minute on them.
inline std::map<int64_t, int> IdsOf(const std::string& text) {
  std::map<int64_t, int> out;
  simdjson::dom::parser parser;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    const std::string_view line(text.data() + pos, end - pos);
    pos = end + 1;
    if (line.empty()) continue;
    simdjson::dom::element row;
    int64_t id = 0;
    if (parser.parse(line.data(), line.size()).get(row) || row["id"].get_int64().get(id)) {
      ADD_FAILURE() << "not a row: " << line;
      continue;
    }
    ++out[id];
  }
  return out;
}

/// The keys of `ids` (each must have been read once: a duplicate fails).
inline std::set<int64_t> OnceEach(const std::map<int64_t, int>& ids, const std::string& what) {
  std::set<int64_t> out;
  for (const auto& [id, n] : ids) {
    EXPECT_EQ(n, 1) << what << ": id " << id << " read " << n << " times";
    out.insert(id);
  }
  return out;
}

/// JSONL rows {"id":I,"s":"row I"} for ids [from, to).
inline std::string RowsJsonl(int64_t from, int64_t to) {
  std::string out;
  for (int64_t i = from; i < to; ++i) {
    out += nlohmann::json{{"id", i}, {"s", "row " + std::to_string(i)}}.dump() + "\n";
  }
  return out;
}

inline std::set<int64_t> IdRange(int64_t from, int64_t to) {
  std::set<int64_t> out;
  for (int64_t i = from; i < to; ++i) out.insert(i);
  return out;
}

}  // namespace floe_cli_test
