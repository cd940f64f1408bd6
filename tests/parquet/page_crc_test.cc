// Page checksums (parquet.thrift PageHeader.crc: standard CRC-32, the gzip polynomial,
// over the page's bytes as stored after the header, for every page type) and damaged
// files in general: floe writes a CRC on every page it writes, the reader checks it
// when a page has one (an error naming the file, row group, column and page), and a
// file with bytes flipped anywhere reads either as an error or as exactly the rows
// written, never as other rows.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "floe/io/file.h"
#include "floe/parquet/page_crc_internal.h"
#include "floe/parquet/reader.h"
#include "floe/parquet/thrift_internal.h"
#include "floe/parquet/writer.h"
#include "testing/scale.h"
#include "writer_test_util.h"

namespace floe::parquet {
namespace page_crc_test {

using testing::CanonicalRows;
using testing::RandomFiller;

NestedField F(int id, std::string name, TypePtr t, bool required = false) {
  return NestedField{id, std::move(name), required, std::move(t), ""};
}

SchemaPtr TestSchema() {
  std::vector<NestedField> f;
  f.push_back(F(1, "id", LongType(), true));
  f.push_back(F(2, "qty", IntType()));
  f.push_back(F(3, "amount", DoubleType()));
  f.push_back(F(4, "name", StringType()));
  f.push_back(F(5, "flag", BooleanType()));
  f.push_back(F(6, "dec", DecimalType(20, 3)));
  f.push_back(F(7, "tags", ListType(8, false, StringType())));
  f.push_back(F(9, "st", StructType({F(10, "x", IntType(), true), F(11, "y", StringType())})));
  return std::make_shared<Schema>(std::move(f));
}

/// An in-memory output file (the bytes stay readable after Commit).
class StringOutput final : public OutputFile {
 public:
  explicit StringOutput(std::string* sink) : sink_(sink) {}
  Status Write(const void* data, size_t size) override {
    buf_.append(static_cast<const char*>(data), size);
    return Ok();
  }
  int64_t Tell() const override { return static_cast<int64_t>(buf_.size()); }
  Status Commit() override {
    *sink_ = buf_;
    return Ok();
  }
  void Abort() override { buf_.clear(); }
  const std::string& path() const override { return name_; }

 private:
  std::string* sink_;
  std::string buf_;
  std::string name_ = "memory.parquet";
};

std::string WriteFile(const WriterOptions& options, int64_t rows, uint64_t seed) {
  auto schema = TestSchema();
  Batch b(schema);
  RandomFiller filler(seed);
  filler.Fill(&b, rows);
  for (int64_t i = 0; i < rows; ++i) b.columns[0].values.as<int64_t>()[i] = i;  // ids never repeat
  std::string bytes;
  auto w = FileWriter::Open(std::make_unique<StringOutput>(&bytes), schema, options);
  EXPECT_TRUE(w) << w.error().ToString();
  if (!w) return "";
  auto st = (*w)->Write(b);
  EXPECT_TRUE(st) << st.error().ToString();
  auto r = (*w)->Close();
  EXPECT_TRUE(r) << r.error().ToString();
  return bytes;
}

/// The rows of `bytes` in canonical JSON, or the read's error.
Result<std::vector<std::string>> ReadRows(std::string bytes,
                                          const std::string& name = "crc.parquet") {
  FLOE_ASSIGN_OR_RETURN(auto reader,
                        FileReader::Open(MemoryInput(std::move(bytes), name), {.batch_rows = 128}));
  std::vector<std::string> rows;
  Batch b;
  while (true) {
    FLOE_ASSIGN_OR_RETURN(bool more, reader->Next(&b));
    if (!more) break;
    FLOE_RETURN_IF_ERROR(b.Validate());
    for (auto& r : CanonicalRows(b)) rows.push_back(std::move(r));
  }
  return rows;
}

/// One page as stored: where its header and body are in the file.
struct PageSpan {
  format::PageHeader header;
  size_t header_pos = 0;
  size_t body_pos = 0;
  size_t body_size = 0;
};

/// Every page of every column chunk, walking the footer's chunk ranges.
std::vector<PageSpan> Pages(const std::string& f) {
  std::vector<PageSpan> out;
  uint32_t footer_len;
  std::memcpy(&footer_len, f.data() + f.size() - 8, 4);
  const auto* base = reinterpret_cast<const uint8_t*>(f.data());
  uint32_t size = footer_len;
  format::FileMetaData meta;
  EXPECT_TRUE(DeserializeThrift(base + f.size() - 8 - footer_len, &size, &meta, "footer"));
  for (const auto& rg : meta.row_groups) {
    for (const auto& c : rg.columns) {
      const auto& md = c.meta_data;
      size_t pos = static_cast<size_t>(md.__isset.dictionary_page_offset ? md.dictionary_page_offset
                                                                         : md.data_page_offset);
      const size_t end = pos + static_cast<size_t>(md.total_compressed_size);
      while (pos < end) {
        PageSpan p;
        p.header_pos = pos;
        uint32_t hsize = static_cast<uint32_t>(end - pos);
        EXPECT_TRUE(DeserializeThrift(base + pos, &hsize, &p.header, "page header"));
        p.body_pos = pos + hsize;
        p.body_size = static_cast<size_t>(p.header.compressed_page_size);
        pos = p.body_pos + p.body_size;
        out.push_back(p);
      }
    }
  }
  return out;
}

uint32_t Crc(const std::string& f, size_t pos, size_t n) {
  return static_cast<uint32_t>(
      crc32(0, reinterpret_cast<const Bytef*>(f.data() + pos), static_cast<uInt>(n)));
}

struct Variant {
  std::string name;
  WriterOptions options;
};

std::vector<Variant> Variants() {
  std::vector<Variant> v;
  for (PageVersion pv : {PageVersion::kV1, PageVersion::kV2}) {
    for (Codec c : {Codec::kUncompressed, Codec::kSnappy, Codec::kZstd}) {
      for (bool dict : {true, false}) {
        WriterOptions o;
        o.page_version = pv;
        o.codec = c;
        o.dictionary_enabled = dict;
        o.page_row_limit = 150;
        o.row_group_size_bytes = 24 << 10;
        v.push_back({fmt::format("{}/{}/{}", pv == PageVersion::kV1 ? "v1" : "v2", CodecName(c),
                                 dict ? "dict" : "plain"),
                     o});
      }
    }
  }
  return v;
}

// PageCrc folds with carry-less multiplication on x86-64: it must equal zlib's
// crc32 (the gzip CRC-32 the spec names) at every length and alignment.
TEST(PageCrc, MatchesZlibAtEveryLengthAndAlignment) {
  std::mt19937_64 rng(42);
  std::vector<uint8_t> buf(70000);
  for (auto& b : buf) b = static_cast<uint8_t>(rng());
  auto zlib = [](const uint8_t* p, size_t n) { return static_cast<uint32_t>(crc32_z(0, p, n)); };
  for (size_t off = 0; off < 16; ++off) {
    for (size_t n = 0; n <= 600; ++n) {
      ASSERT_EQ(PageCrc(buf.data() + off, n), zlib(buf.data() + off, n))
          << "offset " << off << " length " << n;
    }
  }
  for (size_t n : {1000u, 4096u, 4097u, 65535u, 65536u, 69990u}) {
    ASSERT_EQ(PageCrc(buf.data() + 3, n), zlib(buf.data() + 3, n)) << n;
  }
  std::vector<uint8_t> zeros(1000, 0), ones(1000, 0xff);
  EXPECT_EQ(PageCrc(zeros.data(), zeros.size()), zlib(zeros.data(), zeros.size()));
  EXPECT_EQ(PageCrc(ones.data(), ones.size()), zlib(ones.data(), ones.size()));
  // The check value of CRC-32 (gzip): "123456789" -> cbf43926.
  const std::string check = "123456789";
  EXPECT_EQ(PageCrc(reinterpret_cast<const uint8_t*>(check.data()), check.size()), 0xcbf43926u);
}

TEST(PageCrc, WriterPutsTheSpecCrcOnEveryPage) {
  for (const auto& v : Variants()) {
    std::string f = WriteFile(v.options, 1200, 7);
    ASSERT_FALSE(f.empty()) << v.name;
    int dict_pages = 0, data_pages = 0;
    for (const auto& p : Pages(f)) {
      const auto type = p.header.type;
      dict_pages += type == format::PageType::DICTIONARY_PAGE;
      data_pages += type == format::PageType::DATA_PAGE || type == format::PageType::DATA_PAGE_V2;
      ASSERT_TRUE(p.header.__isset.crc) << v.name << ": page at " << p.header_pos << " has no crc";
      // V2 pages: the CRC covers the uncompressed levels too (all bytes after the header).
      EXPECT_EQ(static_cast<uint32_t>(p.header.crc), Crc(f, p.body_pos, p.body_size))
          << v.name << ": page at " << p.header_pos;
    }
    EXPECT_GT(data_pages, 8) << v.name;
    if (v.options.dictionary_enabled) EXPECT_GT(dict_pages, 0) << v.name;
  }
}

TEST(PageCrc, ReaderRefusesAPageWhoseBytesDoNotMatchItsCrc) {
  for (const auto& v : Variants()) {
    std::string f = WriteFile(v.options, 1200, 8);
    auto good = ReadRows(f);
    ASSERT_TRUE(good) << v.name << ": " << good.error().ToString();
    bool tried_dict = false, tried_data = false;
    for (const auto& p : Pages(f)) {
      const bool is_dict = p.header.type == format::PageType::DICTIONARY_PAGE;
      if ((is_dict && tried_dict) || (!is_dict && tried_data) || p.body_size < 4) continue;
      (is_dict ? tried_dict : tried_data) = true;
      std::string bad = f;
      bad[p.body_pos + p.body_size / 2] ^= 0x10;
      auto r = ReadRows(bad, "damaged.parquet");
      ASSERT_FALSE(r) << v.name << ": a flipped byte in a " << (is_dict ? "dictionary" : "data")
                      << " page read as rows";
      const auto& e = r.error();
      EXPECT_EQ(e.kind, ErrorKind::kCorrupt) << e.ToString();
      EXPECT_NE(e.message.find("CRC"), std::string::npos) << e.ToString();
      EXPECT_NE(e.message.find("damaged.parquet"), std::string::npos) << e.ToString();
      EXPECT_NE(e.message.find("row group"), std::string::npos) << e.ToString();
      EXPECT_NE(e.message.find("column"), std::string::npos) << e.ToString();
      EXPECT_NE(e.message.find("page"), std::string::npos) << e.ToString();
    }
    EXPECT_TRUE(tried_data) << v.name;
    EXPECT_EQ(tried_dict, v.options.dictionary_enabled) << v.name;
  }
}

// Flips bits at many positions of whole files: every trial must fail or give
// exactly the rows written. Parquet's footer has no checksum, so a flip there can
// rename a column or change a statistic unnoticed; the footer is left out here,
// but for its length and magic.
TEST(PageCrc, FlippedBytesGiveAnErrorOrTheWrittenRows) {
  int errors = 0, same = 0;
  // Under FLOE_TEST_SCALE (the sanitizer runs of ./scripts/test, where each of
  // the ~28000 trials costs 40 ms instead of 0.7) every n-th trial runs.
  const uint64_t every = static_cast<uint64_t>(std::lround(1 / floe::test::TestScale()));
  uint64_t trial = 0;
  for (const auto& v : Variants()) {
    // Every bit of the page headers for the uncompressed dictionary variants (where a
    // wrong size or count meets no decompressor's check, and v2 level lengths sit in
    // the header), sampled bytes for all.
    const bool all_header_bits =
        v.name == "v1/uncompressed/dict" || v.name == "v2/uncompressed/dict";
    WriterOptions o = v.options;
    // Page statistics are not read; leaving them out keeps the all-bits trials few.
    if (all_header_bits) o.write_statistics = false;
    std::string f = WriteFile(o, 400, 11);
    auto good = ReadRows(f);
    ASSERT_TRUE(good) << v.name << ": " << good.error().ToString();
    // Positions sampled over the pages (and page indexes, bloom filters), the footer
    // length and magic; every bit of every page header (outside the checksums). The
    // footer itself is not covered: Parquet gives it no checksum (see below).
    uint32_t footer_len;
    std::memcpy(&footer_len, f.data() + f.size() - 8, 4);
    const size_t footer_start = f.size() - 8 - footer_len;
    const std::vector<uint8_t> some_bits = {0x01, 0x80, 0x24};
    const std::vector<uint8_t> all_bits = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x24};
    std::map<size_t, const std::vector<uint8_t>*> trials;
    const size_t stride = std::max<size_t>(1, footer_start / 300);
    for (size_t pos = 0; pos < footer_start; pos += stride) trials[pos] = &some_bits;
    for (size_t pos = footer_start + footer_len; pos < f.size(); ++pos) trials[pos] = &some_bits;
    for (const auto& p : Pages(f)) {
      for (size_t pos = p.header_pos; all_header_bits && pos < p.body_pos; ++pos)
        trials[pos] = &all_bits;
    }
    for (const auto& [pos, masks] : trials) {
      for (uint8_t mask : *masks) {
        if (trial++ % every != 0) continue;
        std::string bad = f;
        bad[pos] = static_cast<char>(static_cast<uint8_t>(bad[pos]) ^ mask);
        auto r = ReadRows(std::move(bad));
        if (!r) {
          ++errors;
          continue;
        }
        ++same;
        ASSERT_EQ(r->size(), good->size()) << v.name << ": byte " << pos << " of " << f.size()
                                           << " ^ " << int{mask} << " changed the row count";
        for (size_t i = 0; i < r->size(); ++i) {
          ASSERT_EQ((*r)[i], (*good)[i]) << v.name << ": byte " << pos << " of " << f.size()
                                         << " ^ " << int{mask} << " changed row " << i;
        }
      }
    }
  }
  EXPECT_GT(errors, 500);
  std::printf("%d trials failed, %d read the written rows\n", errors, same);
  EXPECT_GT(same, 0);  // bytes the reader does not use (statistics, page index) may change freely
}

}  // namespace page_crc_test
}  // namespace floe::parquet
