// SigV4 (floe/s3/sigv4.h): AWS's documented example signatures for S3
// (Amazon S3 API reference, "Signature Calculations for the Authorization
// Header: Transferring Payload in a Single Chunk", its Examples: GET Object,
// PUT Object, GET Bucket Lifecycle, Get Bucket (List Objects)), then every
// step compared with Debian's botocore (python3-botocore, run through
// tests/s3/botocore_sigv4.py) for keys and queries that are easy to get
// wrong: spaces, `+`, `=`, `~`, unicode, `$`, empty query values.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>

#include "floe/s3/s3_client.h"
#include "floe/s3/sigv4.h"
#include "testing/files.h"

namespace floe::s3 {
namespace sigv4_test {

const Credentials kAws{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", ""};
constexpr const char* kDate = "20130524T000000Z";
constexpr const char* kEmptySha = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

SigningRequest Request(std::string method, std::string path,
                       std::vector<std::pair<std::string, std::string>> query,
                       std::vector<std::pair<std::string, std::string>> headers, std::string_view body) {
  SigningRequest r;
  r.method = std::move(method);
  r.path = std::move(path);
  r.query = std::move(query);
  r.payload_sha256 = Sha256Hex(body);
  r.headers = std::move(headers);
  r.headers.emplace_back("Host", "examplebucket.s3.amazonaws.com");
  r.headers.emplace_back("x-amz-date", kDate);
  r.headers.emplace_back("x-amz-content-sha256", r.payload_sha256);
  return r;
}

TEST(SigV4, AwsExampleGetObject) {
  Signature s = SignV4(Request("GET", "/test.txt", {}, {{"Range", "bytes=0-9"}}, ""), kAws, kDate, "us-east-1");
  EXPECT_EQ(s.canonical_request,
            std::string("GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\nrange:bytes=0-9\n"
                        "x-amz-content-sha256:") +
                kEmptySha + "\nx-amz-date:20130524T000000Z\n\nhost;range;x-amz-content-sha256;x-amz-date\n" +
                kEmptySha);
  EXPECT_EQ(s.string_to_sign,
            "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n"
            "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
  EXPECT_EQ(s.signature, "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  EXPECT_EQ(s.authorization,
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
            "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
            "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST(SigV4, AwsExamplePutObject) {
  const std::string body = "Welcome to Amazon S3.";
  EXPECT_EQ(Sha256Hex(body), "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  Signature s = SignV4(Request("PUT", "/test$file.text", {},
                               {{"Date", "Fri, 24 May 2013 00:00:00 GMT"}, {"x-amz-storage-class", "REDUCED_REDUNDANCY"}},
                               body),
                       kAws, kDate, "us-east-1");
  EXPECT_NE(s.canonical_request.find("\n/test%24file.text\n"), std::string::npos) << s.canonical_request;
  EXPECT_EQ(s.signed_headers, "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class");
  EXPECT_EQ(s.signature, "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
}

TEST(SigV4, AwsExampleGetBucketLifecycleAndListObjects) {
  Signature lifecycle = SignV4(Request("GET", "/", {{"lifecycle", ""}}, {}, ""), kAws, kDate, "us-east-1");
  EXPECT_NE(lifecycle.canonical_request.find("GET\n/\nlifecycle=\n"), std::string::npos);
  EXPECT_EQ(lifecycle.signature, "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
  // Parameters are sorted whatever order they come in.
  Signature list = SignV4(Request("GET", "/", {{"prefix", "J"}, {"max-keys", "2"}}, {}, ""), kAws, kDate, "us-east-1");
  EXPECT_NE(list.canonical_request.find("GET\n/\nmax-keys=2&prefix=J\n"), std::string::npos);
  EXPECT_EQ(list.signature, "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
}

TEST(SigV4, EncodingAndHeaderCanonicalization) {
  EXPECT_EQ(UriEncode("a b+c=d~e_f.g-h/i", true), "a%20b%2Bc%3Dd~e_f.g-h/i");
  EXPECT_EQ(UriEncode("a/b", false), "a%2Fb");
  EXPECT_EQ(UriEncode("\xc3\xa9", false), "%C3%A9");
  EXPECT_EQ(CanonicalQueryString({{"uploadId", "x+y/z="}, {"partNumber", "1"}}),
            "partNumber=1&uploadId=x%2By%2Fz%3D");
  // Header values: outer spaces trimmed, inner runs made one.
  Signature s = SignV4(Request("GET", "/k", {}, {{"X-Amz-Meta-A", "  two   spaces  "}}, ""), kAws, kDate, "us-east-1");
  EXPECT_NE(s.canonical_request.find("\nx-amz-meta-a:two spaces\n"), std::string::npos) << s.canonical_request;
  EXPECT_EQ(Md5Base64(""), "1B2M2Y8AsgTpgAmY7PhCfg==");
  EXPECT_EQ(AmzDate(1369353600), "20130524T000000Z");
}

// botocore's steps for a request, from tests/s3/botocore_sigv4.py.
nlohmann::json Botocore(const nlohmann::json& request) {
  const std::string script = std::string(FLOE_SOURCE_DIR) + "/tests/s3/botocore_sigv4.py";
  // Debian's interpreter, where python3-botocore lives (a python3 earlier on
  // PATH may be another installation).
  const std::string python = std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  const std::string cmd = python + " " + test::ShellQuote(script) + " " + test::ShellQuote(request.dump()) + " 2>&1";
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return {};
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int rc = ::pclose(p);
  EXPECT_EQ(rc, 0) << "botocore_sigv4.py failed (install python3-botocore: scripts/install-deps): " << out;
  auto j = nlohmann::json::parse(out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << out;
  return j;
}

TEST(SigV4, EqualsBotocoreForTrickyKeysAndQueries) {
  struct Case {
    std::string method, path;
    std::vector<std::pair<std::string, std::string>> query, headers;
    std::string body;
  };
  const std::vector<Case> cases = {
      {"GET", "/bucket/my file.txt", {}, {{"Range", "bytes=5-99"}}, ""},
      {"PUT", "/bucket/a+b=c/d", {}, {{"If-None-Match", "*"}}, "payload bytes"},
      {"PUT", "/bucket/tilde~and$dollar/x", {{"partNumber", "3"}, {"uploadId", "abc+/=DEF"}}, {}, "part"},
      {"HEAD", "/bucket/uni\xc3\xa9/\xe2\x82\xac\xf0\x9f\x98\x80.parquet", {}, {}, ""},
      {"POST", "/bucket/k", {{"uploads", ""}}, {}, ""},
      {"POST", "/bucket", {{"delete", ""}}, {{"Content-MD5", "1B2M2Y8AsgTpgAmY7PhCfg=="}}, "<Delete/>"},
      {"GET",
       "/bucket",
       {{"list-type", "2"}, {"prefix", "wh/db name/a=1+2/"}, {"delimiter", "/"}, {"continuation-token", "1/a+b=="},
        {"encoding-type", "url"}, {"max-keys", "1000"}},
       {},
       ""},
      {"DELETE", "/bucket/sp  two/%41", {{"uploadId", ""}}, {}, ""},
  };
  const Credentials creds{"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", ""};
  for (const auto& c : cases) {
    SigningRequest r;
    r.method = c.method;
    r.path = c.path;
    r.query = c.query;
    r.payload_sha256 = Sha256Hex(c.body);
    r.headers = c.headers;
    r.headers.emplace_back("host", "127.0.0.1:9000");
    r.headers.emplace_back("x-amz-date", "20240229T235959Z");
    r.headers.emplace_back("x-amz-content-sha256", r.payload_sha256);
    Signature mine = SignV4(r, creds, "20240229T235959Z", "eu-west-3");
    nlohmann::json req = {{"method", c.method},       {"host", "127.0.0.1:9000"},
                          {"path", c.path},           {"query", c.query},
                          {"headers", c.headers},     {"body", c.body},
                          {"access_key", creds.access_key_id}, {"secret_key", creds.secret_access_key},
                          {"region", "eu-west-3"},    {"amz_date", "20240229T235959Z"}};
    nlohmann::json boto = Botocore(req);
    if (boto.is_discarded() || boto.empty()) return;
    EXPECT_EQ(mine.canonical_request, boto.value("canonical_request", "")) << c.method << " " << c.path;
    EXPECT_EQ(mine.string_to_sign, boto.value("string_to_sign", "")) << c.path;
    EXPECT_EQ(mine.signature, boto.value("signature", "")) << c.path;
  }
}

TEST(SigV4, ClientUrlsMatchWhatIsSigned) {
  S3Config c;
  c.endpoint = "http://127.0.0.1:9000";
  c.path_style = true;
  S3Client path_style(c);
  S3Request r;
  r.method = "GET";
  r.bucket = "b";
  r.key = "a b/c+d";
  r.query = {{"partNumber", "1"}, {"uploadId", "x/y"}};
  auto [url, host] = path_style.UrlOf(r);
  EXPECT_EQ(url, "http://127.0.0.1:9000/b/a%20b/c%2Bd?partNumber=1&uploadId=x%2Fy");
  EXPECT_EQ(host, "127.0.0.1:9000");
  c.path_style = false;
  c.endpoint = "https://s3.eu-west-1.amazonaws.com";
  S3Client virtual_host(c);
  auto [vurl, vhost] = virtual_host.UrlOf(r);
  EXPECT_EQ(vurl, "https://b.s3.eu-west-1.amazonaws.com/a%20b/c%2Bd?partNumber=1&uploadId=x%2Fy");
  EXPECT_EQ(vhost, "b.s3.eu-west-1.amazonaws.com");
  // No endpoint: AWS's regional endpoint.
  S3Config aws;
  aws.region = "ap-south-1";
  auto [aurl, ahost] = S3Client(aws).UrlOf(r);
  EXPECT_EQ(ahost, "b.s3.ap-south-1.amazonaws.com");
}

}  // namespace sigv4_test
}  // namespace floe::s3
