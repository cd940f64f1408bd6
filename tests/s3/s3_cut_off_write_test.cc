// Writes a store cuts off, against the S3 test server (whose writes, unlike
// S3's, are not atomic: s3rver streams a PUT into its file, so a request it
// fails leaves what it got). floe issue 23, items 1 and 3:
// - a stall: the server frozen (SIGSTOP) while a conditional publish is
//   sent, past the client's stall time-out (s3.socket-timeout-ms, short
//   here); when it goes on, it reads the request whose client gave up and
//   keeps an empty object; the retry's 412 then finds it. Not another
//   writer's object (kAlreadyExists), not ours: commit state unknown, and
//   the object is left (another writer may be writing it on such a store).
// - a full store (a small tmpfs under the server): the first attempt fails
//   with a 500 and leaves a cut-off object, the retry is refused with 412.
//   An output says what happened (the store failed the write, the first
//   attempt's error, how much it kept) and removes that object.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "floe/s3/s3_file_io.h"
#include "testing/s3_server.h"
#include "testing/small_disk.h"

namespace floe::s3 {
namespace s3_cut_off_write_test {

namespace fs = std::filesystem;
using test::S3TestServer;

// The size of the object the server keeps at `key` (-1: none).
int64_t StoredSize(const S3TestServer& server, const std::string& key) {
  const fs::path p = server.dir() / server.bucket() / (key + "._S3rver_object");
  std::error_code ec;
  const auto size = fs::file_size(p, ec);
  return ec ? -1 : static_cast<int64_t>(size);
}

std::shared_ptr<S3Client> ClientOf(const S3TestServer& server,
                                   std::map<std::string, std::string> extra = {}) {
  auto props = server.CatalogProperties();
  props["s3.retry.min-wait-ms"] = "1";
  props["s3.retry.max-wait-ms"] = "5";
  for (auto& [k, v] : extra) props[k] = v;
  auto c = S3ConfigFromProperties(props);
  EXPECT_TRUE(c) << c.error().ToString();
  return std::make_shared<S3Client>(c ? *c : S3Config{});
}

TEST(S3CutOffWrite, APublishCutOffByAStallIsCommitStateUnknownAndLeftInPlace) {
  auto started = S3TestServer::Start();
  ASSERT_TRUE(started) << started.error().ToString();
  S3TestServer& server = **started;
  auto client = ClientOf(server, {{"s3.socket-timeout-ms", "1000"}, {"s3.retry.num-retries", "2"}});
  auto fio = MakeS3FileIO(client);
  const std::string key = "t/metadata/v2.metadata.json";
  const std::string json(3000, 'j');

  // Frozen before the PUT is sent; let go once the client has given up on
  // the first attempt and sent the second (the first's connection is closed).
  server.Pause();
  std::atomic<bool> done{false};
  std::thread resume([&] {
    while (!done && client->requests("PUT") < 2) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    server.Resume();
  });
  Status st = fio->PublishIfAbsent("s3://" + server.bucket() + "/" + key, json, false);
  done = true;
  resume.join();

  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().kind, ErrorKind::kCommitStateUnknown) << st.error().ToString();
  EXPECT_NE(st.error().message.find("kept 0 of its 3000 bytes"), std::string::npos) << st.error().message;
  EXPECT_NE(st.error().message.find("s3.socket-timeout-ms=1000"), std::string::npos) << st.error().message;
  EXPECT_NE(st.error().message.find("left as it is"), std::string::npos) << st.error().message;
  EXPECT_EQ(StoredSize(server, key), 0) << "the server's cut-off object (what the test is about)";
}

TEST(S3CutOffWrite, AnOutputAFullStoreCutOffIsNamedAndRemoved) {
  auto disk = test::SmallDisk::Mount(1 << 20);
  ASSERT_TRUE(disk) << disk.error().ToString();
  test::S3ServerOptions o;
  o.parent_dir = (*disk)->dir().string();
  auto started = S3TestServer::Start(o);
  ASSERT_TRUE(started) << started.error().ToString();
  S3TestServer& server = **started;
  auto fio = MakeS3FileIO(ClientOf(server));
  // An object written while there is room, then the disk is full.
  ASSERT_TRUE(io::WriteFile(*fio, "s3://" + server.bucket() + "/t/data/a.parquet", "room"));
  ASSERT_TRUE((*disk)->Fill());

  const std::string key = "t/data/b.parquet";
  // As data files are written: without overwrite (If-None-Match: *).
  Status st = io::WriteFile(*fio, "s3://" + server.bucket() + "/" + key, std::string(200000, 'd'),
                            /*overwrite=*/false);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().kind, ErrorKind::kIo) << st.error().ToString();
  const std::string& m = st.error().message;
  EXPECT_EQ(m.find("precondition failed"), std::string::npos) << m;
  EXPECT_NE(m.find("the store failed the write (attempt 1: HTTP 500 InternalError"), std::string::npos) << m;
  EXPECT_NE(m.find("of its 200000 bytes (a full store"), std::string::npos) << m;
  EXPECT_NE(m.find("floe removed that object"), std::string::npos) << m;
  EXPECT_EQ(StoredSize(server, key), -1) << "the cut-off object is left behind";
  // What was there before is untouched and readable.
  EXPECT_EQ(io::ReadFile(*fio, "s3://" + server.bucket() + "/t/data/a.parquet").value_or("?"), "room");
  // The client goes first (its open connections would hold up the server's
  // stop), then the server, then the disk.
}

}  // namespace s3_cut_off_write_test
}  // namespace floe::s3
