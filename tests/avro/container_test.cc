// Avro object container files: layout, codecs, metadata, resolution on read,
// and hostile input (truncation, bit flips, lying counts and sizes).
#include "floe/avro/container.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <random>

#include "testing/files.h"
#include "testing/matchers.h"

namespace floe::avro {
namespace container_test {

namespace fs = std::filesystem;

/// An OutputFile that keeps the bytes in memory.
class MemoryOutput final : public OutputFile {
 public:
  explicit MemoryOutput(std::string* sink) : sink_(sink) {}
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
  const std::string& path() const override { return path_; }

 private:
  std::string* sink_;
  std::string buf_;
  std::string path_ = "<memory-out>";
};

AvroSchema TestSchema() {
  auto s = AvroSchema::Parse(R"({"type":"record","name":"manifest_file","fields":[
    {"name":"manifest_path","type":"string","field-id":500},
    {"name":"manifest_length","type":"long","field-id":501},
    {"name":"partitions","type":["null",{"type":"array","element-id":508,"items":{"type":"record","name":"r508",
      "fields":[{"name":"contains_null","type":"boolean","field-id":509},
                {"name":"lower_bound","type":["null","bytes"],"default":null,"field-id":510}]}}],
     "default":null,"field-id":507}]})");
  EXPECT_TRUE(s) << s.error().ToString();
  return *s;
}

std::vector<Value> TestValues(const AvroSchema& schema, int n) {
  NodePtr r508 = schema.root()->fields[2].type->branches[1]->items;
  std::vector<Value> out;
  for (int i = 0; i < n; ++i) {
    out.push_back(Value::Record(
        schema.root(),
        {Value::String(fmt::format("s3://b/metadata/{}-m0.avro", i)), Value::Long(int64_t{7000} + i),
         i % 4 == 0 ? Value::Null()
                    : Value::Array({Value::Record(r508, {Value::Boolean(i % 2 == 0), Value::Bytes(std::string(i % 5, 'x'))}),
                                    Value::Record(r508, {Value::Boolean(true), Value::Null()})})}));
  }
  return out;
}

std::string WriteToString(const AvroSchema& schema, const std::vector<Value>& values, WriterOptions options,
                          Metadata metadata = {}) {
  std::string bytes;
  auto w = ContainerWriter::Open(std::make_unique<MemoryOutput>(&bytes), schema, std::move(metadata), options);
  EXPECT_TRUE(w) << w.error().ToString();
  for (const auto& v : values) EXPECT_OK((*w)->Append(v));
  auto len = (*w)->Close();
  EXPECT_OK(len);
  EXPECT_EQ(*len, static_cast<int64_t>(bytes.size()));
  return bytes;
}

Result<std::vector<Value>> ReadFromString(std::string bytes, ReaderOptions options = {}) {
  FLOE_ASSIGN_OR_RETURN(auto reader, ContainerReader::Open(MemoryInput(std::move(bytes), "mem.avro"), options));
  return reader->ReadAll();
}

TEST(AvroContainer, HeaderLayout) {
  AvroSchema schema = TestSchema();
  WriterOptions options;
  options.codec = Codec::kUncompressed;
  options.sync_marker = std::array<uint8_t, 16>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  std::string bytes = WriteToString(schema, {}, options, {{"format-version", "2"}});
  ASSERT_GE(bytes.size(), 4u + 16u);
  EXPECT_EQ(bytes.substr(0, 4), std::string("Obj\x01", 4));
  // No records: the file ends with the header's sync marker and nothing else.
  EXPECT_EQ(bytes.substr(bytes.size() - 16), std::string("\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10", 16));
  auto reader = ContainerReader::Open(MemoryInput(bytes));
  ASSERT_TRUE(reader) << reader.error().ToString();
  EXPECT_EQ((*reader)->metadata("avro.codec"), "null");
  EXPECT_EQ((*reader)->metadata("format-version"), "2");
  EXPECT_EQ((*reader)->writer_schema().ToJson(), schema.ToJson());
  Value v;
  auto more = (*reader)->Next(&v);
  ASSERT_OK(more);
  EXPECT_FALSE(*more);
}

TEST(AvroContainer, EveryCodecRoundTripsAcrossBlocks) {
  AvroSchema schema = TestSchema();
  std::vector<Value> values = TestValues(schema, 2500);
  for (Codec codec : {Codec::kUncompressed, Codec::kDeflateRaw, Codec::kZstd, Codec::kSnappy}) {
    SCOPED_TRACE(CodecName(codec));
    WriterOptions options;
    options.codec = codec;
    options.block_size = 1000;
    std::string bytes = WriteToString(schema, values, options);
    auto back = ReadFromString(bytes);
    ASSERT_TRUE(back) << back.error().ToString();
    EXPECT_EQ(*back, values);
  }
}

TEST(AvroContainer, WriterRejectsBadInput) {
  AvroSchema schema = TestSchema();
  std::string bytes;
  auto reserved = ContainerWriter::Open(std::make_unique<MemoryOutput>(&bytes), schema, {{"avro.x", "1"}});
  ASSERT_FALSE(reserved);
  EXPECT_NE(reserved.error().message.find("reserved"), std::string::npos);
  auto dup = ContainerWriter::Open(std::make_unique<MemoryOutput>(&bytes), schema, {{"a", "1"}, {"a", "2"}});
  ASSERT_FALSE(dup);
  WriterOptions brotli;
  brotli.codec = Codec::kBrotli;
  EXPECT_FALSE(ContainerWriter::Open(std::make_unique<MemoryOutput>(&bytes), schema, {}, brotli));

  auto w = ContainerWriter::Open(std::make_unique<MemoryOutput>(&bytes), schema, {});
  ASSERT_OK(w);
  auto st = (*w)->Append(Value::Record(schema.root(), {Value::String("p"), Value::String("not a long"), Value::Null()}));
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("manifest_length"), std::string::npos) << st.error().message;
  // The failed record left nothing behind.
  ASSERT_OK((*w)->Append(TestValues(schema, 1)[0]));
  ASSERT_OK((*w)->Close());
  auto back = ReadFromString(bytes);
  ASSERT_TRUE(back) << back.error().ToString();
  EXPECT_EQ(back->size(), 1u);
}

TEST(AvroContainer, LocalFileLengthAndAtomicity) {
  fs::path dir = test::FreshTestDir("floe_avro_container_");
  AvroSchema schema = TestSchema();
  std::string path = (dir / "list.avro").string();
  {
    auto out = OpenLocalOutput(path);
    ASSERT_OK(out);
    auto w = ContainerWriter::Open(std::move(*out), schema, {{"snapshot-id", "1"}});
    ASSERT_OK(w);
    ASSERT_OK((*w)->Append(TestValues(schema, 1)[0]));
    // Destroyed without Close: nothing is published.
  }
  EXPECT_FALSE(fs::exists(path));
  auto out = OpenLocalOutput(path);
  auto w = ContainerWriter::Open(std::move(*out), schema, {{"snapshot-id", "1"}});
  for (const auto& v : TestValues(schema, 10)) ASSERT_OK((*w)->Append(v));
  auto len = (*w)->Close();
  ASSERT_OK(len);
  EXPECT_EQ(*len, static_cast<int64_t>(fs::file_size(path)));
  auto in = OpenLocalInput(path);
  auto r = ContainerReader::Open(std::move(*in));
  ASSERT_OK(r);
  auto all = (*r)->ReadAll();
  ASSERT_OK(all);
  EXPECT_EQ(all->size(), 10u);
  fs::remove_all(dir);
}

TEST(AvroContainer, ReaderSchemaResolvesOnRead) {
  AvroSchema schema = TestSchema();
  std::string bytes = WriteToString(schema, TestValues(schema, 3), {});
  auto reader_schema = AvroSchema::Parse(R"({"type":"record","name":"manifest_file","fields":[
    {"name":"manifest_length","type":"long","field-id":501},
    {"name":"added_snapshot_id","type":["null","long"],"default":null,"field-id":503},
    {"name":"path","type":"string","field-id":500}]})");
  ReaderOptions options;
  options.reader_schema = reader_schema->root();
  auto back = ReadFromString(bytes, options);
  ASSERT_TRUE(back) << back.error().ToString();
  ASSERT_EQ(back->size(), 3u);
  EXPECT_EQ((*back)[2].ToJson(), R"({"manifest_length":7002,"added_snapshot_id":null,"path":"s3://b/metadata/2-m0.avro"})");

  auto incompatible = AvroSchema::Parse(R"({"type":"record","name":"x","fields":[
    {"name":"manifest_length","type":"string","field-id":501}]})");
  options.reader_schema = incompatible->root();
  auto bad = ContainerReader::Open(MemoryInput(bytes), options);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("manifest_length"), std::string::npos) << bad.error().message;
}

// Every truncation and many random corruptions give an error or a (possibly
// different) read, never a crash; truncations are always errors.
TEST(AvroContainer, HostileFilesFailCleanly) {
  AvroSchema schema = TestSchema();
  for (Codec codec : {Codec::kUncompressed, Codec::kDeflateRaw, Codec::kZstd, Codec::kSnappy}) {
    SCOPED_TRACE(CodecName(codec));
    WriterOptions options;
    options.codec = codec;
    options.block_size = 200;
    std::string bytes = WriteToString(schema, TestValues(schema, 40), options);
    std::string sync = bytes.substr(bytes.size() - 16);
    for (size_t n = 0; n < bytes.size(); n += (n < 600 ? 1 : 7)) {
      auto r = ReadFromString(bytes.substr(0, n));
      if (r) {
        // Only a cut right after a sync marker (a block boundary) reads, with fewer records.
        ASSERT_GE(n, 16u);
        EXPECT_EQ(bytes.substr(n - 16, 16), sync) << "truncated at " << n;
        EXPECT_LT(r->size(), 40u);
        continue;
      }
      EXPECT_TRUE(r.error().kind == ErrorKind::kCorrupt || r.error().kind == ErrorKind::kUnsupported)
          << r.error().ToString();
      EXPECT_NE(r.error().message.find("mem.avro"), std::string::npos) << r.error().message;
    }
    std::mt19937 rng(42);
    for (int trial = 0; trial < 2000; ++trial) {
      std::string bad = bytes;
      int flips = 1 + trial % 3;
      for (int k = 0; k < flips; ++k) bad[rng() % bad.size()] ^= static_cast<char>(1 << (rng() % 8));
      (void)ReadFromString(bad);  // must not crash; sanitizer builds check for more
    }
  }
}

TEST(AvroContainer, SpecificCorruptions) {
  AvroSchema schema = TestSchema();
  WriterOptions options;
  options.codec = Codec::kSnappy;
  options.sync_marker = std::array<uint8_t, 16>{0xaa, 0xbb, 0xcc, 0xdd, 0xaa, 0xbb, 0xcc, 0xdd,
                                                0xaa, 0xbb, 0xcc, 0xdd, 0xaa, 0xbb, 0xcc, 0xde};
  std::string bytes = WriteToString(schema, TestValues(schema, 5), options);
  std::string sync(reinterpret_cast<const char*>(options.sync_marker->data()), 16);
  size_t header_end = bytes.find(sync) + 16;
  size_t block_end = bytes.find(sync, header_end);
  ASSERT_NE(block_end, std::string::npos);

  // Snappy CRC mismatch.
  std::string crc = bytes;
  crc[block_end - 1] ^= 1;
  auto r = ReadFromString(crc);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("CRC32"), std::string::npos) << r.error().message;

  // Wrong sync marker after the block.
  std::string sync_bad = bytes;
  sync_bad[block_end + 3] ^= 1;
  r = ReadFromString(sync_bad);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("sync marker"), std::string::npos) << r.error().message;

  // A huge record count in a tiny block.
  std::string count = bytes.substr(0, header_end);
  Buffer b;
  Encoder e(&b);
  e.WriteLong(int64_t{1} << 40);
  e.WriteLong(0);
  count.append(reinterpret_cast<const char*>(b.data()), b.size());
  count += sync;
  r = ReadFromString(count);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kCorrupt);

  // A block size beyond the end of the file.
  std::string size = bytes.substr(0, header_end);
  b.Clear();
  e.WriteLong(1);
  e.WriteLong(int64_t{1} << 50);
  size.append(reinterpret_cast<const char*>(b.data()), b.size());
  r = ReadFromString(size);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("exceeds"), std::string::npos) << r.error().message;

  // An unknown codec.
  std::string codec = WriteToString(schema, {}, {});
  size_t at = codec.find("deflate");
  ASSERT_NE(at, std::string::npos);
  codec.replace(at, 7, "inflat8");
  auto open = ContainerReader::Open(MemoryInput(codec));
  ASSERT_FALSE(open);
  EXPECT_EQ(open.error().kind, ErrorKind::kUnsupported);

  // Not Avro at all.
  open = ContainerReader::Open(MemoryInput("PAR1 not avro"));
  ASSERT_FALSE(open);
  EXPECT_NE(open.error().message.find("magic"), std::string::npos);
}

TEST(AvroContainer, DeflateBombIsBounded) {
  AvroSchema schema(MakeRecord("r", {MakeField("s", MakePrimitive(AvroType::kString))}));
  WriterOptions options;
  options.codec = Codec::kDeflateRaw;
  std::string big(8 << 20, 'a');
  std::string bytes = WriteToString(schema, {Value::Record(schema.root(), {Value::String(big)})}, options);
  EXPECT_LT(bytes.size(), 100000u);
  ReaderOptions small;
  small.max_block_bytes = 1 << 20;
  auto r = ReadFromString(bytes, small);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, ErrorKind::kCorrupt);
  auto ok = ReadFromString(bytes);
  ASSERT_TRUE(ok) << ok.error().ToString();
  EXPECT_EQ((*ok)[0].children()[0].bytes().size(), big.size());
}

}  // namespace container_test
}  // namespace floe::avro
