/// \file
/// Test support: the S3 test server (shared/interop/s3_server.cjs, npm's
/// s3rver with SigV4 checks and conditional writes) started per test on a
/// free port in a fresh folder, stopped at teardown; and a mirror of its
/// store as a plain folder tree, for the independent readers that read a
/// table through `--map s3://bucket/=<dir>`. A server without conditional
/// writes (plain s3rver: If-None-Match ignored) is there for the tests of
/// the refusal of such a store.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "floe/util/status.h"

namespace floe::test {

struct S3ServerOptions {
  std::string bucket = "warehouse";
  std::string access_key = "floe-test-key";
  std::string secret_key = "floe-test-secret";
  /// false: plain s3rver, which ignores If-None-Match / If-Match.
  bool conditional_writes = true;
  /// The folder the store's folder is made in ("" = /tmp): a test of a full
  /// store passes a small tmpfs.
  std::string parent_dir = {};
};

class S3TestServer {
 public:
  /// Starts a server with its store in a fresh folder; fails (never skips)
  /// with a message when node or s3rver is missing.
  static Result<std::unique_ptr<S3TestServer>> Start(S3ServerOptions options = {});
  ~S3TestServer();
  S3TestServer(const S3TestServer&) = delete;
  S3TestServer& operator=(const S3TestServer&) = delete;

  /// `http://127.0.0.1:PORT`.
  const std::string& endpoint() const { return endpoint_; }
  int port() const { return port_; }
  const std::string& bucket() const { return options_.bucket; }
  const std::string& access_key() const { return options_.access_key; }
  const std::string& secret_key() const { return options_.secret_key; }
  /// The folder the server keeps its objects in.
  const std::filesystem::path& dir() const { return dir_; }

  /// Catalog properties that reach this server (endpoint, credentials,
  /// path-style addressing); `warehouse` added when given.
  std::map<std::string, std::string> CatalogProperties(const std::string& warehouse = "") const;
  /// The same as `--catalog k=v` arguments for the floe command, shell-quoted.
  std::string CatalogArgs(const std::string& warehouse = "") const;

  /// Mirrors the objects under `prefix` (a key prefix; "" for the whole
  /// bucket) into `target` as symbolic links named by their keys, so that
  /// `s3://bucket/` maps to `target` (`--map s3://bucket/=target`). Replaces
  /// what `target` held.
  Status Mirror(const std::filesystem::path& target, const std::string& prefix = "") const;

  /// Freezes the server process (SIGSTOP): the kernel still accepts
  /// connections and buffers requests, nothing answers (a stalled store).
  void Pause();
  /// Lets a paused server go on (SIGCONT): it reads what was buffered.
  void Resume();

  /// Stops the server (also done by the destructor; a paused one too).
  void Stop();

 private:
  S3TestServer() = default;
  S3ServerOptions options_;
  std::filesystem::path dir_;
  std::string endpoint_;
  int port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace floe::test
