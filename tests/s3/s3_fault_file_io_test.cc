// The S3 FileIO behind the fault proxy (testing/fault_proxy.h), against the
// S3 test server: what each fault does to each operation, one at a time.
// - PublishIfAbsent (the hadoop catalog's commit point): a lost reply is
//   resolved by the retry's 412 and a read-back of our own bytes; every
//   reply lost, or every request dropped, is kCommitStateUnknown; another
//   writer's object is kAlreadyExists even after an uncertain attempt.
// - An output's Commit is not a table commit: an unknown outcome there is
//   an I/O error (the caller removes what it wrote), never
//   kCommitStateUnknown, which would make the table layer keep its files.
// - A multipart upload whose completion's reply is lost completes.
// - Reads: answers cut off mid-body and 5xx bursts are retried and give
//   the right bytes.
#include <gtest/gtest.h>

#include <string>

#include "floe/s3/s3_file_io.h"
#include "testing/fault_proxy.h"
#include "testing/s3_server.h"

namespace floe::s3 {
namespace s3_fault_file_io_test {

using test::FaultAction;
using test::FaultProxy;
using test::S3TestServer;

class S3FaultFileIOTest : public ::testing::Test {
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
    auto p = FaultProxy::Start(server_->endpoint(), 5);
    ASSERT_TRUE(p) << p.error().ToString();
    proxy_ = std::move(*p);
    auto props = server_->CatalogProperties();
    props["s3.endpoint"] = proxy_->endpoint();
    auto c = S3ConfigFromProperties(props);
    ASSERT_TRUE(c) << c.error().ToString();
    c->retry_min_wait_ms = 1;
    c->retry_max_wait_ms = 5;
    c->part_size = 5 << 20;
    client_ = std::make_shared<S3Client>(*c);
    fio_ = MakeS3FileIO(client_);
    prefix_ = "s3://" + server_->bucket() + "/" +
              ::testing::UnitTest::GetInstance()->current_test_info()->name() + "/";
  }

  /// Reads `location` straight from the server (no proxy, no faults).
  Result<std::string> ReadDirect(const std::string& location) {
    auto c = S3ConfigFromProperties(server_->CatalogProperties());
    if (!c) return Fail(c.error());
    return io::ReadFile(*MakeS3FileIO(std::make_shared<S3Client>(*c)), location);
  }
  Status WriteAll(const std::string& location, std::string_view data) {
    FLOE_ASSIGN_OR_RETURN(auto out, fio_->NewOutput(location, {}));
    FLOE_RETURN_IF_ERROR(out->Write(data.data(), data.size()));
    return out->Commit();
  }
  static std::string Pattern(size_t n) {
    std::string s(n, '\0');
    uint32_t x = 7;
    for (auto& c : s) {
      x = x * 1103515245u + 12345u;
      c = static_cast<char>(x >> 24);
    }
    return s;
  }

  static S3TestServer* server_;
  std::unique_ptr<FaultProxy> proxy_;
  std::shared_ptr<S3Client> client_;
  io::FileIOPtr fio_;
  std::string prefix_;
};

S3TestServer* S3FaultFileIOTest::server_ = nullptr;

TEST_F(S3FaultFileIOTest, PublishWithOneLostReplyFindsItsOwnBytes) {
  proxy_->AddRule({.method = "PUT", .action = FaultAction::kDropReply, .times = 1});
  const std::string v = prefix_ + "v1.metadata.json";
  ASSERT_TRUE(fio_->PublishIfAbsent(v, "mine", false));
  EXPECT_EQ(proxy_->ForwardedCount("PUT", "v1.metadata.json"), 2);
  EXPECT_EQ(ReadDirect(v).value_or("?"), "mine");
}

TEST_F(S3FaultFileIOTest, PublishAnotherWriterWonIsAlreadyExistsAfterAnUncertainAttempt) {
  const std::string v = prefix_ + "v1.metadata.json";
  ASSERT_TRUE(fio_->PublishIfAbsent(v, "theirs", false));
  // Our first attempt's connection drops; the retry sees 412 and an object
  // with other bytes: another writer's.
  proxy_->AddRule({.method = "PUT", .action = FaultAction::kDrop, .times = 1});
  Status st = fio_->PublishIfAbsent(v, "mine", false);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().kind, ErrorKind::kAlreadyExists) << st.error().ToString();
  EXPECT_EQ(ReadDirect(v).value_or("?"), "theirs");
}

TEST_F(S3FaultFileIOTest, PublishWithEveryReplyLostOrDroppedIsCommitStateUnknown) {
  proxy_->AddRule({.method = "PUT", .action = FaultAction::kDropReply});
  Status landed = fio_->PublishIfAbsent(prefix_ + "v1.metadata.json", "mine", false);
  ASSERT_FALSE(landed);
  EXPECT_EQ(landed.error().kind, ErrorKind::kCommitStateUnknown) << landed.error().ToString();
  EXPECT_EQ(ReadDirect(prefix_ + "v1.metadata.json").value_or("?"), "mine");

  proxy_->ClearRules();
  proxy_->AddRule({.method = "PUT", .action = FaultAction::kDrop});
  Status never = fio_->PublishIfAbsent(prefix_ + "v2.metadata.json", "mine", false);
  ASSERT_FALSE(never);
  EXPECT_EQ(never.error().kind, ErrorKind::kCommitStateUnknown) << never.error().ToString();
  EXPECT_FALSE(ReadDirect(prefix_ + "v2.metadata.json"));

  // A 5xx the proxy answers itself: the client cannot tell it from a
  // store that failed after applying.
  proxy_->ClearRules();
  proxy_->AddRule({.method = "PUT", .action = FaultAction::kError, .status = 500});
  Status errors = fio_->PublishIfAbsent(prefix_ + "v3.metadata.json", "mine", false);
  ASSERT_FALSE(errors);
  EXPECT_EQ(errors.error().kind, ErrorKind::kCommitStateUnknown) << errors.error().ToString();
}

TEST_F(S3FaultFileIOTest, AnOutputWhoseOutcomeIsUnknownFailsAsAnIoError) {
  // A single-PUT output (below one part) and a multipart one: every answer
  // to the final request lost.
  proxy_->AddRule({.method = "PUT", .action = FaultAction::kDropReply});
  Status small = WriteAll(prefix_ + "small.avro", "manifest bytes");
  ASSERT_FALSE(small);
  EXPECT_EQ(small.error().kind, ErrorKind::kIo) << small.error().ToString();
  EXPECT_NE(small.error().message.find("small.avro"), std::string::npos) << small.error().message;

  proxy_->ClearRules();
  proxy_->AddRule({.method = "POST", .query = "uploadId", .action = FaultAction::kDrop});
  Status big = WriteAll(prefix_ + "big.parquet", Pattern((5 << 20) + 1000));
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().kind, ErrorKind::kIo) << big.error().ToString();
}

TEST_F(S3FaultFileIOTest, MultipartUploadWithLostCompletionReplyCompletes) {
  const std::string data = Pattern((10 << 20) + 12345);
  proxy_->AddRule({.method = "POST",
                   .query = "uploads",
                   .action = FaultAction::kError,
                   .status = 503,
                   .times = 1});
  proxy_->AddRule(
      {.method = "PUT", .query = "partNumber=2", .action = FaultAction::kDropReply, .times = 1});
  proxy_->AddRule(
      {.method = "PUT", .query = "partNumber=1", .action = FaultAction::kResetMidBody, .times = 1});
  proxy_->AddRule(
      {.method = "POST", .query = "uploadId", .action = FaultAction::kDropReply, .times = 1});
  Status st = WriteAll(prefix_ + "data.parquet", data);
  ASSERT_TRUE(st) << st.error().ToString();
  EXPECT_EQ(proxy_->counters().dropped_replies, 2);
  auto back = ReadDirect(prefix_ + "data.parquet");
  ASSERT_TRUE(back) << back.error().ToString();
  EXPECT_TRUE(*back == data) << "the object differs from what was written";
}

TEST_F(S3FaultFileIOTest, ReadsRetryCutAnswersAndErrors) {
  const std::string data = Pattern(3 << 20);
  ASSERT_TRUE(WriteAll(prefix_ + "r.parquet", data));
  proxy_->AddRule({.method = "HEAD", .action = FaultAction::kError, .status = 503, .times = 2});
  proxy_->AddRule({.method = "GET", .action = FaultAction::kResetMidBody, .times = 2});
  proxy_->AddRule({.method = "GET", .action = FaultAction::kError, .status = 500, .times = 2});
  auto in = fio_->NewInput(prefix_ + "r.parquet");
  ASSERT_TRUE(in) << in.error().ToString();
  std::string got(data.size(), '\0');
  // Footer first, then everything, as a Parquet reader does.
  auto* bytes = reinterpret_cast<uint8_t*>(got.data());
  ASSERT_TRUE((*in)->ReadAt(static_cast<int64_t>(data.size()) - 8, 8, bytes + data.size() - 8));
  ASSERT_TRUE((*in)->ReadAt(0, data.size(), bytes));
  EXPECT_TRUE(got == data) << "the bytes read differ";
  EXPECT_EQ(proxy_->counters().resets, 2);
  EXPECT_EQ(proxy_->counters().errors, 4);
}

}  // namespace s3_fault_file_io_test
}  // namespace floe::s3
