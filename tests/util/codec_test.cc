#include "floe/util/codec.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "testing/matchers.h"

namespace floe {
namespace codec_test {

std::string Sample(size_t n) {
  std::mt19937 rng(7);
  std::string s;
  for (size_t i = 0; i < n; ++i) s.push_back(static_cast<char>('a' + rng() % 6));
  return s;
}

class CodecRoundTrip : public ::testing::TestWithParam<Codec> {};

TEST_P(CodecRoundTrip, ExactAndAppend) {
  for (size_t n : {0UL, 1UL, 1000UL, 300000UL}) {
    std::string in = Sample(n);
    auto c = MakeCompressor(GetParam());
    ASSERT_TRUE(c) << c.error().ToString();
    Buffer out;
    ASSERT_OK((*c)->Compress(reinterpret_cast<const uint8_t*>(in.data()), in.size(), &out));
    std::string back(n, '\0');
    auto st = DecompressExact(GetParam(), out.data(), out.size(),
                              reinterpret_cast<uint8_t*>(back.data()), n);
    ASSERT_TRUE(st) << st.error().ToString();
    EXPECT_EQ(back, in);
    if (GetParam() != Codec::kBrotli && GetParam() != Codec::kLz4Raw) {
      Buffer app;
      ASSERT_OK(DecompressAppend(GetParam(), out.data(), out.size(), &app, n + 10));
      EXPECT_EQ(std::string(reinterpret_cast<char*>(app.data()), app.size()), in);
    }
  }
}

TEST_P(CodecRoundTrip, CorruptInputIsAnError) {
  std::string in = Sample(5000);
  auto c = MakeCompressor(GetParam());
  Buffer out;
  ASSERT_OK((*c)->Compress(reinterpret_cast<const uint8_t*>(in.data()), in.size(), &out));
  std::string back(in.size() + 7, '\0');
  // Wrong expected size is always detected.
  auto st = DecompressExact(GetParam(), out.data(), out.size(),
                            reinterpret_cast<uint8_t*>(back.data()), back.size());
  EXPECT_FALSE(st);
  // Truncation is detected.
  if (GetParam() != Codec::kUncompressed) {
    auto st2 = DecompressExact(GetParam(), out.data(), out.size() / 2,
                               reinterpret_cast<uint8_t*>(back.data()), in.size());
    EXPECT_FALSE(st2);
  }
}

INSTANTIATE_TEST_SUITE_P(All, CodecRoundTrip,
                         ::testing::Values(Codec::kUncompressed, Codec::kSnappy, Codec::kGzip,
                                           Codec::kDeflateRaw, Codec::kBrotli, Codec::kZstd,
                                           Codec::kLz4Raw),
                         [](const auto& info) { return std::string(CodecName(info.param)); });

TEST(Codec, AppendRefusesToGrowPastTheLimit) {
  std::string in(1 << 20, 'x');
  auto c = MakeCompressor(Codec::kDeflateRaw);
  Buffer out;
  ASSERT_OK((*c)->Compress(reinterpret_cast<const uint8_t*>(in.data()), in.size(), &out));
  Buffer app;
  auto st = DecompressAppend(Codec::kDeflateRaw, out.data(), out.size(), &app, 1000);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().kind, ErrorKind::kCorrupt);
}

TEST(Codec, ParsesNames) {
  EXPECT_EQ(*ParseCodec("ZSTD"), Codec::kZstd);
  EXPECT_EQ(*ParseCodec("zstandard"), Codec::kZstd);
  EXPECT_EQ(*ParseCodec("none"), Codec::kUncompressed);
  auto bad = ParseCodec("lzo");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("valid:"), std::string::npos);
}

}  // namespace codec_test
}  // namespace floe
