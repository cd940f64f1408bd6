// RowCodec with string and binary columns whose values are all "": such a
// column never allocates its value buffer (values.data() is null), and
// memcpy with a null pointer is undefined even for 0 bytes. Found by UBSan
// (./scripts/test, asan part) in EncodeAll; the row-by-row and nested path
// (PutValue) had the same copy.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "floe/sink/row_codec.h"
#include "testing/matchers.h"
#include "testing/schema.h"

namespace floe::sink {
namespace row_codec_empty_strings_test {

using test::Field;

SchemaPtr EmptyValuesSchema() {
  return std::make_shared<Schema>(std::vector<NestedField>{
      Field(1, "s", StringType()), Field(2, "b", BinaryType()),
      Field(3, "ls", ListType(4, false, StringType())),
      Field(5, "st", StructType({Field(6, "x", StringType())}))});
}

/// Two rows, every string and binary value "" (one null among them).
Batch EmptyValuesBatch(const SchemaPtr& schema) {
  Batch batch(schema);
  for (int r = 0; r < 2; ++r) {
    batch.columns[0].AppendBytes("");
    if (r == 0) {
      batch.columns[1].AppendBytes("");
    } else {
      batch.columns[1].AppendNull();
    }
    batch.columns[2].children[0].AppendBytes("");
    batch.columns[2].children[0].AppendBytes("");
    batch.columns[2].CloseListRow();
    batch.columns[3].children[0].AppendBytes("");
    batch.columns[3].AppendStructRow();
    ++batch.num_rows;
  }
  return batch;
}

void ExpectEmptyValues(const Batch& out) {
  ASSERT_OK(out.Validate());
  ASSERT_EQ(out.num_rows, 2);
  for (int64_t r = 0; r < 2; ++r) {
    EXPECT_EQ(out.columns[0].bytes(r), "") << r;
    EXPECT_EQ(out.columns[2].offsets[r + 1] - out.columns[2].offsets[r], 2) << r;
    EXPECT_FALSE(out.columns[3].IsNull(r)) << r;
    EXPECT_EQ(out.columns[3].children[0].bytes(r), "") << r;
  }
  EXPECT_EQ(out.columns[1].bytes(0), "");
  EXPECT_TRUE(out.columns[1].IsNull(1));
}

Batch Decode(const RowCodec& codec, std::string_view arena, const std::vector<uint64_t>& ends) {
  Batch out(codec.schema());
  uint64_t begin = 0;
  for (uint64_t end : ends) {
    auto used = codec.Decode(arena.substr(begin, end - begin), &out);
    EXPECT_THAT(used, test::IsOk());
    if (!used) break;
    begin = end;
  }
  return out;
}

TEST(RowCodecEmptyStrings, AllAtOnceWithNoValueBuffer) {
  auto schema = EmptyValuesSchema();
  Batch batch = EmptyValuesBatch(schema);
  ASSERT_OK(batch.Validate());
  ASSERT_EQ(batch.columns[0].values.data(), nullptr) << "the case needs a column with no value buffer";
  RowCodec codec(schema);
  std::string arena;
  std::vector<uint64_t> ends;
  codec.EncodeAll(batch, &arena, &ends);
  ExpectEmptyValues(Decode(codec, arena, ends));
}

TEST(RowCodecEmptyStrings, RowByRowWithNoValueBuffer) {
  auto schema = EmptyValuesSchema();
  Batch batch = EmptyValuesBatch(schema);
  RowCodec codec(schema);
  std::string arena;
  std::vector<uint64_t> ends;
  for (int64_t r = 0; r < batch.num_rows; ++r) {
    codec.Encode(batch, r, &arena);
    ends.push_back(arena.size());
  }
  ExpectEmptyValues(Decode(codec, arena, ends));
}

}  // namespace row_codec_empty_strings_test
}  // namespace floe::sink
