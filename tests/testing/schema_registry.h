/// \file
/// Test support: the Schema Registry fixture (tests/testing/schema_registry.mjs,
/// node's http module) started per test on a free loopback port, stopped at
/// teardown; and the messages of the avro-confluent formats encoded by avsc
/// (tests/testing/avro_confluent_encode.mjs), one file each, registered in it.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "floe/util/status.h"

namespace floe::test {

class SchemaRegistryServer {
 public:
  /// Starts the registry; with a `user`, every request needs basic auth with
  /// `user:password`. Fails (never skips) when node cannot run it.
  static Result<std::unique_ptr<SchemaRegistryServer>> Start(const std::string& user = "",
                                                             const std::string& password = "");
  ~SchemaRegistryServer();
  SchemaRegistryServer(const SchemaRegistryServer&) = delete;
  SchemaRegistryServer& operator=(const SchemaRegistryServer&) = delete;

  /// `http://127.0.0.1:PORT`.
  const std::string& url() const { return url_; }
  /// How often the registry was asked for `route` ("GET /schemas/ids/1").
  int Requests(const std::string& route) const;

  /// Runs avro_confluent_encode.mjs with `args` (`--schema F --rows F`,
  /// `--connect F [--connect-schema F]`), registering under `subject`,
  /// writing the messages into `out_dir`: the files, in order. Relative
  /// paths in `args` are relative to the folder `out_dir` is in.
  Result<std::vector<std::string>> Encode(const std::string& subject, const std::filesystem::path& out_dir,
                                          const std::string& args) const;

 private:
  SchemaRegistryServer() = default;
  pid_t pid_ = -1;
  std::string url_;
  std::string user_, password_;
};

}  // namespace floe::test
