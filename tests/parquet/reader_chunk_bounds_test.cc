// Column chunk byte ranges from the footer that are negative, overflow or run past
// the file get a message saying which of them is wrong (the column is named by the
// context), not "column chunk bytes [4, +-63145)".
#include <gtest/gtest.h>

#include <cstring>
#include <functional>

#include "parquet/reader_test_util.h"

namespace floe::parquet {
namespace reader_chunk_bounds_test {

using namespace testutil;  // NOLINT

/// A one-column file whose footer `patch` edits (the footer is re-serialized).
std::string Patched(const std::function<void(fmtns::ColumnMetaData*)>& patch) {
  std::vector<fmtns::SchemaElement> s = {Root(1), Leaf("x", fmtns::Type::INT32, kReq, {}, 1)};
  TestRowGroup rg;
  rg.num_rows = 2;
  rg.chunks = {{.values = {1, 0, 0, 0, 2, 0, 0, 0}}};
  std::string f = BuildParquet(s, {rg});
  uint32_t len;
  std::memcpy(&len, f.data() + f.size() - 8, 4);
  const size_t footer = f.size() - 8 - len;
  fmtns::FileMetaData meta;
  uint32_t size = len;
  EXPECT_TRUE(DeserializeThrift(reinterpret_cast<const uint8_t*>(f.data()) + footer, &size, &meta,
                                "footer"));
  patch(&meta.row_groups[0].columns[0].meta_data);
  Buffer nb;
  EXPECT_TRUE(SerializeThrift(meta, &nb));
  std::string out =
      f.substr(0, footer) + std::string(reinterpret_cast<const char*>(nb.data()), nb.size());
  uint32_t nlen = static_cast<uint32_t>(nb.size());
  out.append(reinterpret_cast<const char*>(&nlen), 4);
  out += "PAR1";
  return out;
}

std::string ReadError(std::string file) {
  auto rows = FloeRows(MemoryInput(std::move(file), "chunk.parquet"), {});
  if (rows) return "(read " + std::to_string(rows->size()) + " rows)";
  EXPECT_EQ(rows.error().kind, ErrorKind::kCorrupt) << rows.error().ToString();
  EXPECT_NE(rows.error().message.find("chunk.parquet"), std::string::npos) << rows.error().message;
  EXPECT_NE(rows.error().message.find("column x"), std::string::npos) << rows.error().message;
  return rows.error().message;
}

TEST(ReaderChunkBounds, UnpatchedFileReads) {
  auto rows = FloeRows(MemoryInput(Patched([](fmtns::ColumnMetaData*) {}), "chunk.parquet"), {});
  ASSERT_TRUE(rows) << rows.error().ToString();
  EXPECT_EQ(rows->size(), 2u);
}

TEST(ReaderChunkBounds, NegativeLengthIsNamed) {
  std::string e =
      ReadError(Patched([](fmtns::ColumnMetaData* m) { m->__set_total_compressed_size(-63145); }));
  EXPECT_NE(e.find("negative length -63145"), std::string::npos) << e;
  EXPECT_EQ(e.find("+-"), std::string::npos) << e;
}

TEST(ReaderChunkBounds, NegativeOffsetIsNamed) {
  std::string e =
      ReadError(Patched([](fmtns::ColumnMetaData* m) { m->__set_data_page_offset(-5); }));
  EXPECT_NE(e.find("negative offset -5"), std::string::npos) << e;
}

TEST(ReaderChunkBounds, OffsetPastTheEndIsNamed) {
  std::string e =
      ReadError(Patched([](fmtns::ColumnMetaData* m) { m->__set_data_page_offset(1 << 20); }));
  EXPECT_NE(e.find("starts at byte 1048576, past the end of the file"), std::string::npos) << e;
}

TEST(ReaderChunkBounds, LengthPastTheEndAndOverflowAreNamed) {
  std::string e =
      ReadError(Patched([](fmtns::ColumnMetaData* m) { m->__set_total_compressed_size(1 << 20); }));
  EXPECT_NE(e.find("1048576 bytes from byte 4 run past the end of the file"), std::string::npos)
      << e;
  // offset + length overflows int64: still the same clear message, no wrap-around.
  e = ReadError(
      Patched([](fmtns::ColumnMetaData* m) { m->__set_total_compressed_size(INT64_MAX); }));
  EXPECT_NE(e.find("run past the end of the file"), std::string::npos) << e;
}

}  // namespace reader_chunk_bounds_test
}  // namespace floe::parquet
