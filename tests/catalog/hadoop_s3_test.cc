// The hadoop catalog with its warehouse on the S3 test server (floe issue 23,
// items 1 and 2):
// - a metadata publish stalled past the client's stall time-out (the server
//   frozen with SIGSTOP; s3.socket-timeout-ms short here) leaves the server's
//   empty object: the commit is commit state unknown, version-hint.text is
//   not moved, readers read the version below it with a warning, commits are
//   refused naming the object and the way out, and removing it mends the
//   table;
// - a publish is read back before the hint names it (a store that
//   acknowledges a write it did not keep);
// - a newest version that is JSON but not metadata is an error, never read
//   past;
// - opening the catalog and reading write nothing (read-only credentials:
//   every write answered 403); the conditional-write probe runs before the
//   first write, and a failed probe (a full store) leaves no object.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "floe/catalog/catalog.h"
#include "floe/catalog/warnings.h"
#include "floe/iceberg/metadata_updates.h"
#include "floe/io/file_io.h"
#include "floe/s3/s3_file_io.h"
#include "testing/fault_proxy.h"
#include "testing/matchers.h"
#include "testing/s3_server.h"
#include "testing/small_disk.h"

namespace floe::catalog {
namespace hadoop_s3_test {

namespace fs = std::filesystem;
using test::S3TestServer;
using ::testing::HasSubstr;

// The S3 FileIO with a hook in front of PublishIfAbsent: the hook may act
// (pause the server) and return nullopt to let the publish go on, or return
// the publish's outcome itself (a store that acknowledges what it did not keep).
class HookedFileIO final : public io::FileIO {
 public:
  using Hook = std::function<std::optional<Status>(std::string_view location, std::string_view data)>;
  explicit HookedFileIO(io::FileIOPtr inner) : inner_(std::move(inner)) {}
  void SetHook(Hook hook) { hook_ = std::move(hook); }

  std::string_view name() const override { return "hooked"; }
  Result<std::unique_ptr<InputFile>> NewInput(std::string_view l) override { return inner_->NewInput(l); }
  Result<std::unique_ptr<OutputFile>> NewOutput(std::string_view l, const io::OutputOptions& o) override {
    return inner_->NewOutput(l, o);
  }
  Status PublishIfAbsent(std::string_view l, std::string_view data, bool sync) override {
    if (hook_) {
      if (auto outcome = hook_(l, data)) return *outcome;
    }
    return inner_->PublishIfAbsent(l, data, sync);
  }
  Status Delete(std::string_view l) override { return inner_->Delete(l); }
  Result<bool> Exists(std::string_view l) override { return inner_->Exists(l); }
  Result<io::FileInfo> Stat(std::string_view l) override { return inner_->Stat(l); }
  Status ListFiles(std::string_view l, const std::function<Status(const io::FileInfo&)>& v) override {
    return inner_->ListFiles(l, v);
  }
  Result<std::vector<io::FileInfo>> ListFolder(std::string_view l) override { return inner_->ListFolder(l); }
  Status CreateFolders(std::string_view l, std::vector<std::string>* c) override { return inner_->CreateFolders(l, c); }
  Result<bool> RemoveFolderIfEmpty(std::string_view l) override { return inner_->RemoveFolderIfEmpty(l); }
  Status DeletePrefix(std::string_view l) override { return inner_->DeletePrefix(l); }
  void ReleaseFolders(std::string_view l, std::set<std::string>* c) override { inner_->ReleaseFolders(l, c); }
  Result<std::string> Canonical(std::string_view l) override { return inner_->Canonical(l); }
  Result<std::string> LocalPath(std::string_view l) override { return inner_->LocalPath(l); }

 private:
  io::FileIOPtr inner_;
  Hook hook_;
};

class HadoopS3Test : public ::testing::Test {
 protected:
  void SetUp() override { SetWarningHandler([this](const std::string& w) { warnings_.push_back(w); }); }
  void TearDown() override {
    SetWarningHandler(nullptr);
    server_.reset();
    disk_.reset();
  }

  void StartServer(test::S3ServerOptions o = {}) {
    auto s = S3TestServer::Start(std::move(o));
    ASSERT_TRUE(s) << s.error().ToString();
    server_ = std::move(*s);
  }
  std::string Wh() const { return "s3://" + server_->bucket() + "/wh"; }
  std::map<std::string, std::string> Props(const std::string& endpoint = "") const {
    auto p = server_->CatalogProperties(Wh());
    p["catalog-type"] = "hadoop";
    p["cache-enabled"] = "false";
    p["s3.retry.min-wait-ms"] = "1";
    p["s3.retry.max-wait-ms"] = "5";
    if (!endpoint.empty()) p["s3.endpoint"] = endpoint;
    return p;
  }
  std::unique_ptr<Catalog> Open(const std::map<std::string, std::string>& props) {
    auto c = OpenCatalog("c", props);
    EXPECT_TRUE(c) << c.error().ToString();
    return c ? std::move(*c) : nullptr;
  }
  // The catalog over a FileIO of the test's own (its client counts requests).
  std::unique_ptr<Catalog> OpenHooked(std::map<std::string, std::string> extra = {}) {
    auto props = Props();
    for (auto& [k, v] : extra) props[k] = v;
    auto config = s3::S3ConfigFromProperties(props);
    EXPECT_TRUE(config) << config.error().ToString();
    client_ = std::make_shared<s3::S3Client>(*config);
    hooked_ = std::make_shared<HookedFileIO>(s3::MakeS3FileIO(client_));
    auto c = Open(props);
    if (c) c->SetFileIO(hooked_);
    return c;
  }

  static TableDefinition Def() {
    TableDefinition d;
    d.schema = Schema({{1, "id", true, LongType(), {}}}, 0, {1});
    return d;
  }
  // A table db.t at version 1.
  LoadedTable MakeTable(Catalog& c) {
    EXPECT_OK(c.CreateNamespace(*ParseNamespace("db"), {}));
    auto t = c.CreateTable(*ParseTableIdentifier("db.t"), Def());
    EXPECT_TRUE(t) << t.error().ToString();
    return *t;
  }
  static Result<LoadedTable> SetProperty(Catalog& c, const LoadedTable& base, const std::string& value) {
    FLOE_ASSIGN_OR_RETURN(auto updated, iceberg::UpdateProperties(base.metadata, {{"k", value}}, {}));
    return c.CommitTable(base, std::move(updated));
  }

  // What the server keeps, by key: the size of each object.
  std::map<std::string, int64_t> Objects() const {
    static constexpr std::string_view kSuffix = "._S3rver_object";
    std::map<std::string, int64_t> out;
    const fs::path root = server_->dir() / server_->bucket();
    if (!fs::exists(root)) return out;
    for (const auto& e : fs::recursive_directory_iterator(root)) {
      std::string p = e.path().string();
      if (!e.is_regular_file() || !p.ends_with(kSuffix)) continue;
      std::string key = fs::relative(e.path(), root).string();
      key.resize(key.size() - kSuffix.size());
      out[key] = static_cast<int64_t>(e.file_size());
    }
    return out;
  }
  std::string Hint() const {
    auto fio = Direct();
    return io::ReadFile(*fio, Wh() + "/db/t/metadata/version-hint.text").value_or("<none>");
  }
  io::FileIOPtr Direct() const {
    auto c = s3::S3ConfigFromProperties(server_->CatalogProperties());
    return s3::MakeS3FileIO(std::make_shared<s3::S3Client>(*c));
  }
  std::string AllWarnings() const {
    std::string out;
    for (const auto& w : warnings_) out += w + "\n";
    return out;
  }

  std::unique_ptr<test::SmallDisk> disk_;
  std::unique_ptr<S3TestServer> server_;
  std::shared_ptr<s3::S3Client> client_;
  std::shared_ptr<HookedFileIO> hooked_;
  std::vector<std::string> warnings_;
};

TEST_F(HadoopS3Test, AStalledPublishIsCommitStateUnknownAndTheTableStaysReadable) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  auto c = OpenHooked({{"s3.socket-timeout-ms", "1000"}, {"s3.retry.num-retries", "2"}});
  ASSERT_NE(c, nullptr);
  LoadedTable v1 = MakeTable(*c);
  ASSERT_EQ(Hint(), "1");

  // The server freezes as the PUT of v2.metadata.json goes out, and goes on
  // once the client has given up on it and sent it again.
  std::thread resume;
  std::atomic<bool> done{false};
  hooked_->SetHook([&](std::string_view location, std::string_view) -> std::optional<Status> {
    if (!location.ends_with("/v2.metadata.json")) return std::nullopt;
    const int64_t puts = client_->requests("PUT");
    server_->Pause();
    resume = std::thread([&, puts] {
      while (!done && client_->requests("PUT") < puts + 2) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      server_->Resume();
    });
    return std::nullopt;
  });
  // The new version is far larger than the socket buffers, so the client
  // cannot hand the server the whole body while it is frozen: the PUT is cut
  // off whatever the timing (a small body fits in the kernel's buffers, and
  // then the frozen server still reads it whole once it goes on).
  auto stalled = SetProperty(*c, v1, std::string(size_t{24} << 20, 'a'));
  done = true;
  if (resume.joinable()) resume.join();
  hooked_->SetHook(nullptr);
  ASSERT_FALSE(stalled);
  EXPECT_EQ(stalled.error().kind, ErrorKind::kCommitStateUnknown) << stalled.error().ToString();
  EXPECT_THAT(stalled.error().message, HasSubstr("commit state unknown"));
  EXPECT_THAT(stalled.error().message, HasSubstr("v2.metadata.json"));
  // The server's cut-off object is there (a part of floe's bytes), and the
  // hint did not move to it.
  const int64_t kept = Objects()["wh/db/t/metadata/v2.metadata.json"];
  EXPECT_LT(kept, int64_t{24} << 20);
  EXPECT_THAT(stalled.error().message, HasSubstr("kept " + std::to_string(kept) + " of its"));
  EXPECT_EQ(Hint(), "1");

  // Readers get version 1, warned; the hint still names 1.
  auto loaded = c->LoadTable(*ParseTableIdentifier("db.t"));
  ASSERT_TRUE(loaded) << loaded.error().ToString();
  EXPECT_TRUE(loaded->metadata_location.ends_with("/v1.metadata.json")) << loaded->metadata_location;
  EXPECT_THAT(AllWarnings(), HasSubstr(Wh() + "/db/t/metadata/v2.metadata.json"));
  EXPECT_THAT(AllWarnings(), HasSubstr(kept == 0 ? std::string("empty (0 bytes)")
                                                 : "not JSON (" + std::to_string(kept) + " bytes)"));
  EXPECT_THAT(AllWarnings(), HasSubstr("reading version 1"));
  EXPECT_EQ(Hint(), "1");

  // A commit is refused naming the object and the way out, not retried.
  auto refused = SetProperty(*c, *loaded, "b");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ErrorKind::kCorrupt) << refused.error().ToString();
  EXPECT_FALSE(refused.error().retryable);
  EXPECT_THAT(refused.error().message, HasSubstr(Wh() + "/db/t/metadata/v2.metadata.json"));
  EXPECT_THAT(refused.error().message, HasSubstr("remove"));

  // The way out: remove it; the table commits on top of version 1.
  ASSERT_OK(Direct()->Delete(Wh() + "/db/t/metadata/v2.metadata.json"));
  auto again = c->LoadTable(*ParseTableIdentifier("db.t"));
  ASSERT_TRUE(again) << again.error().ToString();
  auto v2 = SetProperty(*c, *again, "c");
  ASSERT_TRUE(v2) << v2.error().ToString();
  EXPECT_TRUE(v2->metadata_location.ends_with("/v2.metadata.json"));
  EXPECT_EQ(Hint(), "2");
  EXPECT_EQ(c->LoadTable(*ParseTableIdentifier("db.t"))->metadata.properties.at("k"), "c");
}

TEST_F(HadoopS3Test, APublishIsReadBackBeforeTheHintNamesIt) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  auto c = OpenHooked();
  ASSERT_NE(c, nullptr);
  LoadedTable v1 = MakeTable(*c);

  // A store that acknowledges the publish and keeps nothing.
  hooked_->SetHook([](std::string_view location, std::string_view) -> std::optional<Status> {
    if (location.ends_with("/v2.metadata.json")) return Ok();
    return std::nullopt;
  });
  auto lost = SetProperty(*c, v1, "a");
  ASSERT_FALSE(lost);
  EXPECT_EQ(lost.error().kind, ErrorKind::kCommitStateUnknown) << lost.error().ToString();
  EXPECT_THAT(lost.error().message, HasSubstr("cannot be read back"));
  EXPECT_EQ(Hint(), "1");

  // One that keeps other bytes than floe's (a JSON document, not metadata).
  hooked_->SetHook([this](std::string_view location, std::string_view) -> std::optional<Status> {
    if (!location.ends_with("/v2.metadata.json")) return std::nullopt;
    return Direct()->PublishIfAbsent(location, "{}", false);
  });
  auto other = SetProperty(*c, v1, "b");
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error().kind, ErrorKind::kCommitStateUnknown) << other.error().ToString();
  EXPECT_THAT(other.error().message, HasSubstr("not the"));
  EXPECT_EQ(Hint(), "1");
  hooked_->SetHook(nullptr);

  // A newest version that is JSON but not metadata is not read past.
  auto load = c->LoadTable(*ParseTableIdentifier("db.t"));
  ASSERT_FALSE(load);
  EXPECT_NE(load.error().kind, ErrorKind::kCommitStateUnknown);
  EXPECT_THAT(load.error().message, HasSubstr("v2.metadata.json"));
}

TEST_F(HadoopS3Test, OpeningAndReadingWriteNothingWithReadOnlyCredentials) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  {
    auto writer = Open(Props());
    ASSERT_NE(writer, nullptr);
    MakeTable(*writer);
  }
  const auto before = Objects();
  // Read-only credentials: the store refuses every write with a 403.
  auto proxy = test::FaultProxy::Start(server_->endpoint());
  ASSERT_TRUE(proxy) << proxy.error().ToString();
  for (const char* method : {"PUT", "POST", "DELETE"}) {
    (*proxy)->AddRule({.method = method, .action = test::FaultAction::kError, .status = 403, .code = "AccessDenied"});
  }
  auto reader = Open(Props((*proxy)->endpoint()));
  ASSERT_NE(reader, nullptr);
  auto tables = reader->ListTables(*ParseNamespace("db"));
  ASSERT_TRUE(tables) << tables.error().ToString();
  EXPECT_EQ(tables->size(), 1u);
  auto t = reader->LoadTable(*ParseTableIdentifier("db.t"));
  ASSERT_TRUE(t) << t.error().ToString();
  for (const auto& r : (*proxy)->requests()) {
    EXPECT_TRUE(r.method == "GET" || r.method == "HEAD") << r.method << " " << r.target;
  }

  // The first write probes, and fails naming the refusal.
  auto commit = SetProperty(*reader, *t, "a");
  ASSERT_FALSE(commit);
  EXPECT_THAT(commit.error().message, HasSubstr("conditional writes"));
  EXPECT_THAT(commit.error().message, HasSubstr("access denied"));
  EXPECT_EQ(Objects(), before);
}

TEST_F(HadoopS3Test, AFullStoreReadsAndAFailedProbeLeavesNoObject) {
  auto disk = test::SmallDisk::Mount(1 << 20);
  ASSERT_TRUE(disk) << disk.error().ToString();
  disk_ = std::move(*disk);
  test::S3ServerOptions o;
  o.parent_dir = disk_->dir().string();
  ASSERT_NO_FATAL_FAILURE(StartServer(o));
  {
    auto writer = Open(Props());
    ASSERT_NE(writer, nullptr);
    MakeTable(*writer);
  }
  const auto before = Objects();
  ASSERT_OK(disk_->Fill());
  auto c = Open(Props());
  ASSERT_NE(c, nullptr);
  auto t = c->LoadTable(*ParseTableIdentifier("db.t"));
  ASSERT_TRUE(t) << t.error().ToString();
  auto ns = c->CreateNamespace(*ParseNamespace("other"), {});
  ASSERT_FALSE(ns);
  EXPECT_THAT(ns.error().message, HasSubstr("conditional writes"));
  EXPECT_THAT(ns.error().message, HasSubstr("full store"));
  EXPECT_EQ(Objects(), before) << "a probe object (or another) was left behind";

  // With room again, the probe passes and the write goes through.
  disk_->Free();
  ASSERT_OK(c->CreateNamespace(*ParseNamespace("other"), {}));
  for (const auto& [key, size] : Objects()) EXPECT_THAT(key, ::testing::Not(HasSubstr("probe")));
}

}  // namespace hadoop_s3_test
}  // namespace floe::catalog
