// The S3 FileIO against the S3 test server (shared/interop/s3_server.cjs):
// every FileIO method, multipart uploads with a small part size, ranged
// reads and their request counts, paginated listings, batched deletes,
// conditional publication and its race, and the errors (403, 404).
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

#include "floe/s3/s3_file_io.h"
#include "testing/s3_server.h"

namespace floe::s3 {
namespace s3_file_io_test {

using test::S3TestServer;

class S3FileIOTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto s = S3TestServer::Start();
    ASSERT_TRUE(s) << s.error().ToString();
    server_ = s->release();
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }

  void SetUp() override {
    ASSERT_NE(server_, nullptr);
    prefix_ = "s3://" + server_->bucket() + "/" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name();
  }

  S3Config Config() const {
    auto c = S3ConfigFromProperties(server_->CatalogProperties());
    EXPECT_TRUE(c) << c.error().ToString();
    S3Config out = *c;
    out.retry_min_wait_ms = 1;
    return out;
  }

  std::shared_ptr<S3Client> Client(S3Config c) { return std::make_shared<S3Client>(std::move(c)); }
  std::shared_ptr<S3Client> Client() { return Client(Config()); }

  static std::string Pattern(size_t n, uint32_t seed = 1) {
    std::string s(n, '\0');
    uint32_t x = seed;
    for (auto& c : s) {
      x = x * 1103515245u + 12345u;
      c = static_cast<char>(x >> 24);
    }
    return s;
  }

  std::string L(std::string_view rel) const { return prefix_ + "/" + std::string(rel); }

  static S3TestServer* server_;
  std::string prefix_;
};

S3TestServer* S3FileIOTest::server_ = nullptr;

Status WriteAll(io::FileIO& fio, const std::string& location, std::string_view data,
                bool overwrite = false) {
  io::OutputOptions o;
  o.overwrite = overwrite;
  FLOE_ASSIGN_OR_RETURN(auto out, fio.NewOutput(location, o));
  FLOE_RETURN_IF_ERROR(out->Write(data.data(), data.size()));
  return out->Commit();
}

TEST_F(S3FileIOTest, WriteReadBackRangedReadsAndStat) {
  auto client = Client();
  auto fio = MakeS3FileIO(client);
  const std::string data = Pattern(300000);
  ASSERT_TRUE(WriteAll(*fio, L("a/file.bin"), data));
  EXPECT_EQ(client->requests("PUT"), 1);  // below one part: a single PUT
  EXPECT_EQ(client->requests("POST"), 0);

  auto in = fio->NewInput(L("a/file.bin"));
  ASSERT_TRUE(in) << in.error().ToString();
  EXPECT_EQ((*in)->Size(), 300000);
  std::string got(1000, '\0');
  ASSERT_TRUE((*in)->ReadAt(123456, 1000, reinterpret_cast<uint8_t*>(got.data())));
  EXPECT_EQ(got, data.substr(123456, 1000));
  ASSERT_TRUE((*in)->ReadAt(299000, 1000, reinterpret_cast<uint8_t*>(got.data())));
  EXPECT_EQ(got, data.substr(299000, 1000));
  // Past the end: kCorrupt, naming the location.
  auto past = (*in)->ReadAt(299500, 1000, reinterpret_cast<uint8_t*>(got.data()));
  ASSERT_FALSE(past);
  EXPECT_EQ(past.error().kind, ErrorKind::kCorrupt);
  EXPECT_NE(past.error().message.find(L("a/file.bin")), std::string::npos);

  auto whole = io::ReadFile(*fio, L("a/file.bin"));
  ASSERT_TRUE(whole);
  EXPECT_EQ(*whole, data);

  auto st = fio->Stat(L("a/file.bin"));
  ASSERT_TRUE(st) << st.error().ToString();
  EXPECT_EQ(st->kind, io::EntryKind::kFile);
  EXPECT_EQ(st->size, 300000);
  EXPECT_GT(st->modified_ms, 1600000000000);
  auto folder = fio->Stat(L("a"));
  ASSERT_TRUE(folder) << folder.error().ToString();
  EXPECT_EQ(folder->kind, io::EntryKind::kFolder);
  auto missing = fio->Stat(L("nothing"));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, ErrorKind::kNotFound);
  EXPECT_TRUE(*fio->Exists(L("a/file.bin")));
  EXPECT_TRUE(*fio->Exists(L("a")));
  EXPECT_FALSE(*fio->Exists(L("a/other")));
  auto none = fio->NewInput(L("a/other"));
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().kind, ErrorKind::kNotFound);
}

TEST_F(S3FileIOTest, SmallReadsAreServedFromTheReadAheadWindow) {
  auto client = Client();
  auto fio = MakeS3FileIO(client);
  const std::string data = Pattern(200000, 7);
  ASSERT_TRUE(WriteAll(*fio, L("f"), data));
  auto in = fio->NewInput(L("f"));
  ASSERT_TRUE(in);
  const int64_t before = client->requests("GET");
  // The Avro and metadata readers read in small pieces: 2000 reads of 100
  // bytes make one ranged GET (the window covers the 200 kB file).
  std::string got(100, '\0');
  for (int64_t off = 0; off + 100 <= 200000; off += 100) {
    ASSERT_TRUE((*in)->ReadAt(off, 100, reinterpret_cast<uint8_t*>(got.data())));
    ASSERT_EQ(got, data.substr(static_cast<size_t>(off), 100));
  }
  EXPECT_EQ(client->requests("GET") - before, 1);

  // A bigger file with a small window: the tail read (a Parquet footer's
  // length) takes the window that ends at the end, so the footer read
  // before it costs nothing more.
  S3Config c = Config();
  c.read_ahead = 64 * 1024;
  auto small = Client(c);
  auto fio2 = MakeS3FileIO(small);
  auto in2 = fio2->NewInput(L("f"));
  ASSERT_TRUE(in2);
  std::string tail(8, '\0');
  ASSERT_TRUE((*in2)->ReadAt(200000 - 8, 8, reinterpret_cast<uint8_t*>(tail.data())));
  std::string footer(5000, '\0');
  ASSERT_TRUE((*in2)->ReadAt(200000 - 8 - 5000, 5000, reinterpret_cast<uint8_t*>(footer.data())));
  EXPECT_EQ(footer, data.substr(200000 - 8 - 5000, 5000));
  EXPECT_EQ(small->requests("GET"), 1);
  EXPECT_EQ(small->requests("HEAD"), 1);
  // A read as large as the window is fetched as asked (a column chunk).
  std::string chunk(70000, '\0');
  ASSERT_TRUE((*in2)->ReadAt(1000, 70000, reinterpret_cast<uint8_t*>(chunk.data())));
  EXPECT_EQ(chunk, data.substr(1000, 70000));
  EXPECT_EQ(small->requests("GET"), 2);
}

TEST_F(S3FileIOTest, MultipartUploadWithSmallParts) {
  S3Config c = Config();
  c.part_size = 5 << 20;  // S3's smallest part
  auto client = Client(c);
  auto fio = MakeS3FileIO(client);
  const std::string data = Pattern((12 << 20) + 12345, 3);
  io::OutputOptions o;
  auto out = fio->NewOutput(L("big.bin"), o);
  ASSERT_TRUE(out);
  // Written in odd pieces, as a Parquet writer does.
  for (size_t off = 0; off < data.size(); off += 777777) {
    size_t n = std::min<size_t>(777777, data.size() - off);
    ASSERT_TRUE((*out)->Write(data.data() + off, n));
  }
  EXPECT_EQ((*out)->Tell(), static_cast<int64_t>(data.size()));
  // Nothing is visible before Commit.
  EXPECT_FALSE(*fio->Exists(L("big.bin")));
  ASSERT_TRUE((*out)->Commit());
  EXPECT_EQ(client->requests("PUT"), 3);   // three parts
  EXPECT_EQ(client->requests("POST"), 2);  // create + complete
  auto back = io::ReadFile(*fio, L("big.bin"));
  ASSERT_TRUE(back) << back.error().ToString();
  EXPECT_TRUE(*back == data);

  // Completing over an existing object without overwrite: kAlreadyExists,
  // and the object keeps its bytes.
  auto again = fio->NewOutput(L("big.bin"), o);
  ASSERT_TRUE(again);
  const std::string other = Pattern(11 << 20, 9);
  ASSERT_TRUE((*again)->Write(other.data(), other.size()));
  auto st = (*again)->Commit();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().kind, ErrorKind::kAlreadyExists) << st.error().ToString();
  EXPECT_TRUE(*io::ReadFile(*fio, L("big.bin")) == data);
}

TEST_F(S3FileIOTest, AbortLeavesNothingAndWarnsWhenTheStoreRefusesTheAbort) {
  S3Config c = Config();
  c.part_size = 5 << 20;
  auto fio = MakeS3FileIO(Client(c));
  std::vector<std::string> warnings;
  SetS3WarningHandler([&](const std::string& w) { warnings.push_back(w); });
  {
    auto out = fio->NewOutput(L("aborted.bin"), {});
    ASSERT_TRUE(out);
    const std::string data = Pattern(6 << 20);
    ASSERT_TRUE((*out)->Write(data.data(), data.size()));
    (*out)->Abort();
  }
  {
    // Destroyed without Commit: nothing was sent (below one part).
    auto out = fio->NewOutput(L("dropped.bin"), {});
    ASSERT_TRUE(out);
    ASSERT_TRUE((*out)->Write("abc", 3));
  }
  SetS3WarningHandler(nullptr);
  EXPECT_FALSE(*fio->Exists(L("aborted.bin")));
  EXPECT_FALSE(*fio->Exists(L("dropped.bin")));
  // The test server has no AbortMultipartUpload (405): a warning, no error.
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("could not be aborted"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find(L("aborted.bin").substr(0, 0) + "aborted.bin"), std::string::npos);
}

TEST_F(S3FileIOTest, ListingsPaginateAndSeeFoldersAsPrefixes) {
  S3Config c = Config();
  c.list_page_size = 2;
  auto client = Client(c);
  auto fio = MakeS3FileIO(client);
  std::vector<std::string> names = {"t/data/a=1/f1",
                                    "t/data/a=1/f2",
                                    "t/data/a=2/f3",
                                    "t/metadata/v1.metadata.json",
                                    "t/metadata/v2.metadata.json",
                                    "t/x",
                                    "t2/other"};
  for (const auto& n : names) ASSERT_TRUE(WriteAll(*fio, L(n), n));
  std::vector<std::string> listed;
  const int64_t before = client->requests("GET");
  ASSERT_TRUE(fio->ListFiles(L("t"), [&](const io::FileInfo& f) {
    listed.push_back(f.location);
    EXPECT_EQ(f.kind, io::EntryKind::kFile);
    return Ok();
  }));
  std::sort(listed.begin(), listed.end());
  std::vector<std::string> want;
  for (size_t i = 0; i + 1 < names.size(); ++i) want.push_back(L(names[i]));  // not t2/
  EXPECT_EQ(listed, want);
  EXPECT_EQ(client->requests("GET") - before, 3);  // 6 keys, 2 a page

  // (The test server answers a delimited listing in one page: see
  // tests/testing/s3rver_listing_fix.cjs.)
  auto folder = fio->ListFolder(L("t"));
  ASSERT_TRUE(folder) << folder.error().ToString();
  ASSERT_EQ(folder->size(), 3u);
  EXPECT_EQ((*folder)[0].location, L("t/data"));
  EXPECT_EQ((*folder)[0].kind, io::EntryKind::kFolder);
  EXPECT_EQ((*folder)[1].location, L("t/metadata"));
  EXPECT_EQ((*folder)[2].location, L("t/x"));
  EXPECT_EQ((*folder)[2].kind, io::EntryKind::kFile);
  EXPECT_EQ((*folder)[2].size, 3);
  auto missing = fio->ListFolder(L("nope"));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, ErrorKind::kNotFound);
  // s3a:// lists the same objects, spelled as asked.
  std::string s3a = "s3a" + L("t/metadata").substr(2);
  auto md = fio->ListFolder(s3a);
  ASSERT_TRUE(md);
  ASSERT_EQ(md->size(), 2u);
  EXPECT_EQ((*md)[0].location, s3a + "/v1.metadata.json");
  EXPECT_EQ(*fio->Canonical(s3a + "/v1.metadata.json"), L("t/metadata/v1.metadata.json"));

  // Stop a listing early.
  int seen = 0;
  auto stopped = fio->ListFiles(L("t"), [&](const io::FileInfo&) -> Status {
    if (++seen == 3) return Fail(Error{ErrorKind::kInternal, "enough", false});
    return Ok();
  });
  ASSERT_FALSE(stopped);
  EXPECT_EQ(seen, 3);
}

TEST_F(S3FileIOTest, DeleteAndDeletePrefixInBatches) {
  S3Config c = Config();
  c.list_page_size = 3;
  c.delete_batch = 3;
  auto client = Client(c);
  auto fio = MakeS3FileIO(client);
  for (int i = 0; i < 8; ++i) ASSERT_TRUE(WriteAll(*fio, L("p/k" + std::to_string(i)), "x"));
  ASSERT_TRUE(WriteAll(*fio, L("p2/keep"), "x"));
  ASSERT_TRUE(fio->Delete(L("p/k0")));
  ASSERT_TRUE(fio->Delete(L("p/k0")));  // gone already: fine
  EXPECT_FALSE(*fio->Exists(L("p/k0")));
  const int64_t posts = client->requests("POST");
  ASSERT_TRUE(fio->DeletePrefix(L("p")));
  // 7 keys, 3 a batch: two DeleteObjects and one DELETE of the last key.
  EXPECT_EQ(client->requests("POST") - posts, 2);
  int left = 0;
  ASSERT_TRUE(fio->ListFiles(L("p"), [&](const io::FileInfo&) {
    ++left;
    return Ok();
  }));
  EXPECT_EQ(left, 0);
  EXPECT_TRUE(*fio->Exists(L("p2/keep")));  // p is a folder, not a key prefix
  ASSERT_TRUE(fio->DeletePrefix(L("never")));
}

TEST_F(S3FileIOTest, FoldersAreMarkersThatGoWhenEmpty) {
  auto fio = MakeS3FileIO(Client());
  std::vector<std::string> made;
  ASSERT_TRUE(fio->CreateFolders(L("ns"), &made));
  EXPECT_EQ(made, std::vector<std::string>{L("ns")});
  ASSERT_TRUE(fio->CreateFolders(L("ns"), &made));  // exists: nothing more made
  EXPECT_EQ(made.size(), 1u);
  auto listed = fio->ListFolder(L("ns"));
  ASSERT_TRUE(listed) << listed.error().ToString();
  EXPECT_TRUE(listed->empty());
  auto parent = fio->ListFolder(prefix_);
  ASSERT_TRUE(parent);
  ASSERT_EQ(parent->size(), 1u);
  EXPECT_EQ((*parent)[0].location, L("ns"));
  EXPECT_EQ((*parent)[0].kind, io::EntryKind::kFolder);
  int files = 0;
  ASSERT_TRUE(fio->ListFiles(L("ns"), [&](const io::FileInfo&) {
    ++files;
    return Ok();
  }));
  EXPECT_EQ(files, 0);  // a marker is not a file

  ASSERT_TRUE(WriteAll(*fio, L("ns/t/x"), "x"));
  EXPECT_FALSE(*fio->RemoveFolderIfEmpty(L("ns")));
  ASSERT_TRUE(fio->Delete(L("ns/t/x")));
  EXPECT_TRUE(*fio->RemoveFolderIfEmpty(L("ns")));
  EXPECT_FALSE(*fio->Exists(L("ns")));
  EXPECT_TRUE(*fio->RemoveFolderIfEmpty(L("ns")));  // absent: gone
}

TEST_F(S3FileIOTest, PublishIfAbsentAndCommitWithoutOverwrite) {
  auto fio = MakeS3FileIO(Client());
  ASSERT_TRUE(fio->PublishIfAbsent(L("md/v1.metadata.json"), "first", true));
  auto second = fio->PublishIfAbsent(L("md/v1.metadata.json"), "second", true);
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().kind, ErrorKind::kAlreadyExists);
  EXPECT_EQ(*io::ReadFile(*fio, L("md/v1.metadata.json")), "first");

  auto st = WriteAll(*fio, L("md/v1.metadata.json"), "third", /*overwrite=*/false);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().kind, ErrorKind::kAlreadyExists);
  ASSERT_TRUE(WriteAll(*fio, L("md/v1.metadata.json"), "fourth", /*overwrite=*/true));
  EXPECT_EQ(*io::ReadFile(*fio, L("md/v1.metadata.json")), "fourth");
}

TEST_F(S3FileIOTest, ConcurrentPublishersOfOneVersionHaveOneWinner) {
  auto fio = MakeS3FileIO(Client());
  for (int round = 0; round < 5; ++round) {
    const std::string loc = L("race/v" + std::to_string(round) + ".metadata.json");
    std::atomic<int> won{0}, lost{0}, other{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 2; ++t) {
      threads.emplace_back([&, t] {
        auto st = fio->PublishIfAbsent(loc, "writer " + std::to_string(t), false);
        if (st)
          ++won;
        else if (st.error().kind == ErrorKind::kAlreadyExists)
          ++lost;
        else
          ++other;
      });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(won.load(), 1) << "round " << round;
    EXPECT_EQ(lost.load(), 1) << "round " << round;
    EXPECT_EQ(other.load(), 0);
  }
}

TEST_F(S3FileIOTest, WrongSecretIsAClear403WithoutTheSecret) {
  S3Config c = Config();
  c.credentials.secret_access_key = "not-the-secret-0123456789";
  auto fio = MakeS3FileIO(Client(c));
  auto st = WriteAll(*fio, L("denied.txt"), "x");
  ASSERT_FALSE(st);
  const std::string& m = st.error().message;
  EXPECT_NE(m.find("s3://" + server_->bucket() + "/"), std::string::npos) << m;
  EXPECT_NE(m.find("denied.txt"), std::string::npos) << m;
  EXPECT_NE(m.find("403"), std::string::npos) << m;
  EXPECT_NE(m.find("SignatureDoesNotMatch"), std::string::npos) << m;
  EXPECT_NE(m.find("access denied"), std::string::npos) << m;
  EXPECT_EQ(m.find("not-the-secret"), std::string::npos) << m;
  EXPECT_EQ(m.find("Authorization"), std::string::npos) << m;
  EXPECT_EQ(m.find("Signature="), std::string::npos) << m;
  EXPECT_FALSE(st.error().retryable);
  auto in = fio->NewInput(L("denied.txt"));
  ASSERT_FALSE(in);
}

TEST_F(S3FileIOTest, LocationsAndCanonicalForms) {
  auto fio = MakeS3FileIO(Client());
  EXPECT_EQ(*fio->Canonical("s3a://b/x/y/"), "s3://b/x/y");
  EXPECT_EQ(*fio->Canonical("S3N://b/x"), "s3://b/x");
  EXPECT_FALSE(fio->Canonical("s3:///x"));
  EXPECT_FALSE(fio->Canonical("gs://b/x"));
  EXPECT_FALSE(fio->LocalPath("s3://b/x"));
  auto bad = fio->NewOutput("s3://b/folder/", {});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, ErrorKind::kInvalidArgument);
  auto loc = ParseS3Location("s3://bucket/a b/c+d");
  ASSERT_TRUE(loc);
  EXPECT_EQ(loc->bucket, "bucket");
  EXPECT_EQ(loc->key, "a b/c+d");
}

TEST_F(S3FileIOTest, TrickyKeysRoundTrip) {
  auto fio = MakeS3FileIO(Client());
  for (std::string name : {"sp ace", "plus+sign", "eq=uals", "tilde~", "uni\xc3\xa9\xe2\x82\xac",
                           "amp&lt", "q?mark", "pct%20"}) {
    const std::string loc = L("k/" + name);
    ASSERT_TRUE(WriteAll(*fio, loc, name)) << name;
    auto back = io::ReadFile(*fio, loc);
    ASSERT_TRUE(back) << name << ": " << back.error().ToString();
    EXPECT_EQ(*back, name);
  }
  auto listed = fio->ListFolder(L("k"));
  ASSERT_TRUE(listed);
  EXPECT_EQ(listed->size(), 8u);
  std::set<std::string> names;
  for (const auto& e : *listed) names.insert(e.location);
  // s3rver escapes `&` twice in listings (its bug; S3 escapes once, and
  // floe asks for encoding-type=url, which S3 honours and s3rver ignores).
  for (std::string name : {"sp ace", "plus+sign", "eq=uals", "tilde~", "uni\xc3\xa9\xe2\x82\xac",
                           "q?mark", "pct%20"}) {
    EXPECT_TRUE(names.contains(L("k/" + name))) << name;
  }
}

}  // namespace s3_file_io_test
}  // namespace floe::s3
