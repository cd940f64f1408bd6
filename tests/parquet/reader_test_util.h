/// \file
/// Test helpers of the Parquet reader tests: a tiny hand-rolled Parquet file
/// builder (schema elements, levels and PLAIN values given explicitly, so the
/// tests can produce shapes no library writes any more: 2-level lists,
/// MAP_KEY_VALUE, INT96, BIT_PACKED levels, pages splitting records), and the
/// DuckDB oracle plumbing (shared/interop/parquet_rows.mjs).
#pragma once

// The tests build options and chunks with designated initializers, leaving
// the other members at their defaults on purpose.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "floe/io/file.h"
#include "floe/parquet/reader.h"
#include "floe/parquet/reader_schema.h"
#include "floe/parquet/rle_decoder.h"
#include "floe/parquet/thrift_internal.h"
#include "floe/util/codec.h"
#include "parquet/reader_json.h"
#include "testing/files.h"
#include "testing/matchers.h"

namespace floe::parquet::testutil {

namespace fmtns = ::floe::parquet::format;

inline fmtns::SchemaElement Root(int children) {
  fmtns::SchemaElement e;
  e.__set_name("schema");
  e.__set_num_children(children);
  return e;
}

inline fmtns::SchemaElement Group(const std::string& name, fmtns::FieldRepetitionType::type rep,
                                  int children, std::optional<fmtns::ConvertedType::type> ct = {},
                                  std::optional<int> id = {}) {
  fmtns::SchemaElement e;
  e.__set_name(name);
  e.__set_repetition_type(rep);
  e.__set_num_children(children);
  if (ct) e.__set_converted_type(*ct);
  if (id) e.__set_field_id(*id);
  return e;
}

inline fmtns::SchemaElement Leaf(const std::string& name, fmtns::Type::type type,
                                 fmtns::FieldRepetitionType::type rep,
                                 std::optional<fmtns::ConvertedType::type> ct = {},
                                 std::optional<int> id = {}) {
  fmtns::SchemaElement e;
  e.__set_name(name);
  e.__set_type(type);
  e.__set_repetition_type(rep);
  if (ct) e.__set_converted_type(*ct);
  if (id) e.__set_field_id(*id);
  return e;
}

constexpr auto kReq = fmtns::FieldRepetitionType::REQUIRED;
constexpr auto kOpt = fmtns::FieldRepetitionType::OPTIONAL;
constexpr auto kRep = fmtns::FieldRepetitionType::REPEATED;

/// One column chunk: its levels, PLAIN values of the non-null entries, and
/// where to cut it into pages (entry indices).
struct TestChunk {
  std::vector<int16_t> def;
  std::vector<int16_t> rep;
  std::vector<uint8_t> values;       ///< PLAIN bytes of all non-null values
  std::vector<size_t> value_splits;  ///< byte offsets in `values` matching page_splits
  std::vector<size_t> page_splits;   ///< entry indices where new pages start
  bool bit_packed_levels = false;    ///< legacy BIT_PACKED level encoding
  bool v2 = false;                   ///< data pages v2 (levels outside the compressed part)
  bool v2_is_compressed = true;      ///< v2: is_compressed flag (values compressed when true)
  bool snappy = false;               ///< SNAPPY codec instead of UNCOMPRESSED
  std::optional<fmtns::Statistics> stats;
};

struct TestRowGroup {
  int64_t num_rows = 0;
  std::vector<TestChunk> chunks;
};

/// RLE hybrid with one RLE run per value (valid, if not compact).
inline void EncodeRleLevels(const std::vector<int16_t>& v, int max_level,
                            std::vector<uint8_t>* out) {
  int bw = BitWidthFor(static_cast<uint64_t>(max_level));
  for (int16_t x : v) {
    out->push_back(2);  // run of 1
    for (int b = 0; b < (bw + 7) / 8; ++b) out->push_back(static_cast<uint8_t>(x >> (8 * b)));
  }
}

inline void EncodeBitPackedLevels(const std::vector<int16_t>& v, int max_level,
                                  std::vector<uint8_t>* out) {
  int bw = BitWidthFor(static_cast<uint64_t>(max_level));
  size_t start = out->size();
  out->resize(start + (v.size() * bw + 7) / 8, 0);
  size_t bit = 0;
  for (int16_t x : v) {
    for (int b = bw - 1; b >= 0; --b, ++bit) {
      if ((x >> b) & 1) (*out)[start + bit / 8] |= static_cast<uint8_t>(0x80 >> (bit % 8));
    }
  }
}

inline void PutLe32(std::vector<uint8_t>* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<uint8_t>(v >> (8 * i)));
}

/// Builds a Parquet file (uncompressed, data pages v1, PLAIN values).
inline std::string BuildParquet(const std::vector<fmtns::SchemaElement>& schema,
                                const std::vector<TestRowGroup>& groups,
                                const std::vector<std::pair<std::string, std::string>>& kv = {}) {
  auto leaves = floe::parquet::BuildFileSchema(schema).value().leaves;
  std::string file = "PAR1";
  fmtns::FileMetaData meta;
  meta.__set_version(1);
  meta.__set_schema(schema);
  int64_t total = 0;
  for (const auto& g : groups) {
    fmtns::RowGroup rg;
    rg.__set_num_rows(g.num_rows);
    total += g.num_rows;
    int64_t rg_bytes = 0;
    for (size_t c = 0; c < g.chunks.size(); ++c) {
      const TestChunk& ch = g.chunks[c];
      const LeafInfo& leaf = leaves[c];
      const int64_t start = static_cast<int64_t>(file.size());
      std::vector<size_t> splits = {0};
      for (size_t s : ch.page_splits) splits.push_back(s);
      size_t n_entries = std::max(ch.def.size(), ch.rep.size());
      if (leaf.max_def == 0 && leaf.max_rep == 0) n_entries = static_cast<size_t>(g.num_rows);
      splits.push_back(n_entries);
      std::vector<size_t> vsplits = {0};
      for (size_t s : ch.value_splits) vsplits.push_back(s);
      vsplits.push_back(ch.values.size());
      for (size_t p = 0; p + 1 < splits.size(); ++p) {
        std::vector<uint8_t> body;
        std::vector<uint8_t> rep_bytes, def_bytes;
        auto slice = [&](const std::vector<int16_t>& v) {
          return std::vector<int16_t>(v.begin() + splits[p], v.begin() + splits[p + 1]);
        };
        auto levels = [&](const std::vector<int16_t>& v, int mx) {
          std::vector<uint8_t> enc;
          if (ch.v2) {
            EncodeRleLevels(slice(v), mx, &enc);
            (&v == &ch.rep ? rep_bytes : def_bytes) = enc;
          } else if (ch.bit_packed_levels) {
            EncodeBitPackedLevels(slice(v), mx, &body);
          } else {
            EncodeRleLevels(slice(v), mx, &enc);
            PutLe32(&body, static_cast<uint32_t>(enc.size()));
            body.insert(body.end(), enc.begin(), enc.end());
          }
        };
        if (leaf.max_rep > 0) levels(ch.rep, leaf.max_rep);
        if (leaf.max_def > 0) levels(ch.def, leaf.max_def);
        std::vector<uint8_t> vals(ch.values.begin() + vsplits[p],
                                  ch.values.begin() + vsplits[p + 1]);
        fmtns::PageHeader ph;
        const int32_t n_page = static_cast<int32_t>(splits[p + 1] - splits[p]);
        if (ch.v2) {
          body = rep_bytes;
          body.insert(body.end(), def_bytes.begin(), def_bytes.end());
          const size_t usize = body.size() + vals.size();
          if (ch.snappy && ch.v2_is_compressed) {
            Buffer c;
            EXPECT_OK(
                MakeCompressor(Codec::kSnappy).value()->Compress(vals.data(), vals.size(), &c));
            vals.assign(c.data(), c.data() + c.size());
          }
          body.insert(body.end(), vals.begin(), vals.end());
          ph.__set_type(fmtns::PageType::DATA_PAGE_V2);
          ph.__set_uncompressed_page_size(static_cast<int32_t>(usize));
          ph.__set_compressed_page_size(static_cast<int32_t>(body.size()));
          fmtns::DataPageHeaderV2 h2;
          h2.__set_num_values(n_page);
          h2.__set_num_nulls(0);
          h2.__set_num_rows(n_page);
          h2.__set_encoding(fmtns::Encoding::PLAIN);
          h2.__set_definition_levels_byte_length(static_cast<int32_t>(def_bytes.size()));
          h2.__set_repetition_levels_byte_length(static_cast<int32_t>(rep_bytes.size()));
          h2.__set_is_compressed(ch.v2_is_compressed);
          ph.__set_data_page_header_v2(h2);
          Buffer hb;
          EXPECT_OK(SerializeThrift(ph, &hb));
          file.append(reinterpret_cast<const char*>(hb.data()), hb.size());
          file.append(reinterpret_cast<const char*>(body.data()), body.size());
          continue;
        }
        body.insert(body.end(), vals.begin(), vals.end());
        const size_t usize = body.size();
        if (ch.snappy) {
          Buffer c;
          EXPECT_OK(MakeCompressor(Codec::kSnappy).value()->Compress(body.data(), body.size(), &c));
          body.assign(c.data(), c.data() + c.size());
        }
        ph.__set_type(fmtns::PageType::DATA_PAGE);
        ph.__set_uncompressed_page_size(static_cast<int32_t>(usize));
        ph.__set_compressed_page_size(static_cast<int32_t>(body.size()));
        fmtns::DataPageHeader dh;
        dh.__set_num_values(static_cast<int32_t>(splits[p + 1] - splits[p]));
        dh.__set_encoding(fmtns::Encoding::PLAIN);
        auto lenc = ch.bit_packed_levels ? fmtns::Encoding::BIT_PACKED : fmtns::Encoding::RLE;
        dh.__set_definition_level_encoding(lenc);
        dh.__set_repetition_level_encoding(lenc);
        ph.__set_data_page_header(dh);
        Buffer hb;
        EXPECT_OK(SerializeThrift(ph, &hb));
        file.append(reinterpret_cast<const char*>(hb.data()), hb.size());
        file.append(reinterpret_cast<const char*>(body.data()), body.size());
      }
      fmtns::ColumnChunk cc;
      cc.__set_file_offset(start);
      fmtns::ColumnMetaData md;
      md.__set_type(static_cast<fmtns::Type::type>(leaf.physical));
      md.__set_encodings({fmtns::Encoding::PLAIN, fmtns::Encoding::RLE});
      md.__set_path_in_schema(leaf.path);
      md.__set_codec(ch.snappy ? fmtns::CompressionCodec::SNAPPY
                               : fmtns::CompressionCodec::UNCOMPRESSED);
      md.__set_num_values(static_cast<int64_t>(n_entries));
      md.__set_total_uncompressed_size(static_cast<int64_t>(file.size()) - start);
      md.__set_total_compressed_size(static_cast<int64_t>(file.size()) - start);
      md.__set_data_page_offset(start);
      if (ch.stats) md.__set_statistics(*ch.stats);
      cc.__set_meta_data(md);
      rg.columns.push_back(cc);
      rg_bytes += static_cast<int64_t>(file.size()) - start;
    }
    rg.__set_total_byte_size(rg_bytes);
    meta.row_groups.push_back(rg);
  }
  meta.__set_num_rows(total);
  for (const auto& [k, v] : kv) {
    fmtns::KeyValue e;
    e.__set_key(k);
    e.__set_value(v);
    meta.key_value_metadata.push_back(e);
  }
  if (!kv.empty()) meta.__isset.key_value_metadata = true;
  meta.__set_created_by("floe reader tests");
  Buffer fb;
  EXPECT_OK(SerializeThrift(meta, &fb));
  file.append(reinterpret_cast<const char*>(fb.data()), fb.size());
  uint32_t len = static_cast<uint32_t>(fb.size());
  file.append(reinterpret_cast<const char*>(&len), 4);
  file += "PAR1";
  return file;
}

template <typename T>
void AppendPlain(std::vector<uint8_t>* out, T v) {
  const auto* p = reinterpret_cast<const uint8_t*>(&v);
  out->insert(out->end(), p, p + sizeof(T));
}
inline void AppendPlainBytes(std::vector<uint8_t>* out, const std::string& s) {
  PutLe32(out, static_cast<uint32_t>(s.size()));
  out->insert(out->end(), s.begin(), s.end());
}

// ---------------------------------------------------------------- oracle plumbing

namespace stdfs = std::filesystem;

using ::floe::test::SharedDir;

/// Runs a shell command; returns its stdout, or sets *ok = false.
inline std::string RunCommand(const std::string& cmd, bool* ok) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) {
    *ok = false;
    return out;
  }
  std::array<char, 65536> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  *ok = pclose(p) == 0;
  return out;
}

inline std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

/// DuckDB's rows of many files (parquet_rows.mjs --rows, run once for all
/// files by interop_read_rows.mjs): file -> rows, or file -> {"ERROR ..."}.
inline std::map<std::string, std::vector<std::string>> DuckDbRows(
    const std::vector<std::string>& files, bool* ok) {
  std::string cmd = "FLOE_SHARED='" + SharedDir() + "' node '" + std::string(FLOE_SOURCE_DIR) +
                    "/tests/parquet/interop_read_rows.mjs'";
  for (const auto& f : files) cmd += " '" + f + "'";
  std::string out = RunCommand(cmd, ok);
  std::map<std::string, std::vector<std::string>> rows;
  std::vector<std::string>* cur = nullptr;
  for (auto& line : Lines(out)) {
    if (line.rfind("### ", 0) == 0) {
      std::string rest = line.substr(4);
      size_t err = rest.find(" ERROR ");
      cur = &rows[err == std::string::npos ? rest : rest.substr(0, err)];
      if (err != std::string::npos) cur->push_back(rest.substr(err + 1));
      continue;
    }
    if (cur) cur->push_back(line);
  }
  return rows;
}

/// floe's rows of a file (or bytes), checking batch positions and layout.
inline Result<std::vector<std::string>> FloeRows(std::unique_ptr<InputFile> in,
                                                 ReaderOptions opts) {
  FLOE_ASSIGN_OR_RETURN(auto reader, FileReader::Open(std::move(in), opts));
  std::vector<std::string> rows;
  Batch batch;
  while (true) {
    FLOE_ASSIGN_OR_RETURN(bool more, reader->Next(&batch));
    if (!more) break;
    FLOE_RETURN_IF_ERROR(batch.Validate());
    for (int64_t i = 0; i < batch.num_rows; ++i) rows.push_back(testing::RowJson(batch, i));
  }
  return rows;
}

inline Result<std::vector<std::string>> FloeRows(const std::string& file, int64_t batch_rows) {
  FLOE_ASSIGN_OR_RETURN(auto in, OpenLocalInput(file));
  FLOE_ASSIGN_OR_RETURN(auto reader,
                        FileReader::Open(std::move(in), ReaderOptions{.batch_rows = batch_rows}));
  std::vector<std::string> rows;
  Batch batch;
  while (true) {
    FLOE_ASSIGN_OR_RETURN(bool more, reader->Next(&batch));
    if (!more) break;
    FLOE_RETURN_IF_ERROR(batch.Validate());
    if (reader->batch_first_row() != static_cast<int64_t>(rows.size())) {
      return Internal("batch_first_row {} but {} rows read before", reader->batch_first_row(),
                      rows.size());
    }
    for (int64_t i = 0; i < batch.num_rows; ++i) rows.push_back(testing::RowJson(batch, i));
  }
  if (static_cast<int64_t>(rows.size()) != reader->num_rows()) {
    return Internal("read {} rows, footer says {}", rows.size(), reader->num_rows());
  }
  return rows;
}

}  // namespace floe::parquet::testutil
