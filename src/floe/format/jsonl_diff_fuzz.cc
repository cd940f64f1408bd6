// Differential libFuzzer target for the JSONL decoder's fast path
// (jsonl_fast_path_internal.h): the same input is decoded with the fast path
// on and off, and the two runs must give the same batches bit for bit (every
// buffer of every column, nulls included), or the same error message after
// the same rows. The schema has every primitive type, NOT NULL columns, a
// nested column, a long and a non-ASCII column name, so both the fast path
// and each of its ways of falling back are reached.
//
// In reject mode the rows each run passes to DecodeOptions::reject (line,
// text, reason) must be the same too, and the batches stay bit-identical: a
// rejected row is taken out of every column as if it had never been there.
//
// Input: byte 0 picks the options (chunk size, batch size, unknown keys,
// reject mode, input positions), the rest is the JSONL text. Seeds:
// tests/fuzz_seeds/jsonl_diff_fuzz/.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "floe/format/jsonl_fast_path_internal.h"
#include "floe/format/jsonl_reader.h"
#include "floe/types/sql_schema.h"

namespace {

floe::SchemaPtr DiffSchema() {
  auto parsed = floe::ParseSqlColumns(
      "id BIGINT NOT NULL, b BOOLEAN, i INT, l BIGINT, f FLOAT, d DOUBLE, dec DECIMAL(9,2), "
      "big DECIMAL(38,10), dt DATE, t TIME, ts TIMESTAMP, tz TIMESTAMPTZ, tn TIMESTAMP_NS, "
      "s STRING, u UUID, fx FIXED(2), bin BINARY, loc STRUCT<lat DOUBLE>, tags ARRAY<INT>, "
      "`a_column_name_longer_than_16` STRING, `\xc3\xa9t\xc3\xa9` INT, req STRING NOT NULL");
  if (!parsed) std::abort();
  return std::make_shared<floe::Schema>(std::move(*parsed));
}

/// Everything one decode produced: each batch's columns, the rejected rows,
/// then the error.
struct Run {
  std::vector<floe::Batch> batches;
  std::vector<floe::format::RejectedRow> rejected;
  bool failed = false;
  std::string error;
  int64_t rows = 0, line = 0;
};

Run Decode(const floe::SchemaPtr& schema, const std::string& data, floe::format::DecodeOptions opt,
           bool fast) {
  floe::format::internal::SetJsonlFastPathEnabled(fast);
  Run run;
  if (opt.reject) {
    opt.reject = [&run](floe::format::RejectedRow&& row) -> floe::Status {
      run.rejected.push_back(std::move(row));
      return floe::Ok();
    };
  }
  auto reader = floe::format::JsonlReader::FromString(schema, data, opt);
  floe::format::internal::SetJsonlFastPathEnabled(true);
  if (!reader) std::abort();
  for (int guard = 0; guard < 100000; ++guard) {
    floe::Batch batch;
    auto more = (*reader)->Next(&batch);
    if (!more) {
      run.failed = true;
      run.error = more.error().message;
      break;
    }
    if (!*more) break;
    if (!batch.Validate()) std::abort();
    run.batches.push_back(std::move(batch));
  }
  run.rows = (*reader)->rows_read();
  run.line = (*reader)->line_number();
  return run;
}

[[noreturn]] void Mismatch(const char* what) {
  std::fprintf(stderr, "fast path and simdjson path differ: %s\n", what);
  std::abort();
}

void SameColumn(const floe::ColumnVector& a, const floe::ColumnVector& b) {
  if (a.length != b.length) Mismatch("column length");
  if (a.validity != b.validity) Mismatch("validity");
  if (a.offsets != b.offsets) Mismatch("offsets");
  if (a.values.size() != b.values.size() ||
      (a.values.size() && std::memcmp(a.values.data(), b.values.data(), a.values.size()) != 0)) {
    Mismatch("values");
  }
  if (a.children.size() != b.children.size()) Mismatch("children");
  for (size_t i = 0; i < a.children.size(); ++i) SameColumn(a.children[i], b.children[i]);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const floe::SchemaPtr schema = DiffSchema();
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  std::string input(reinterpret_cast<const char*>(data + 1), size - 1);
  floe::format::DecodeOptions opt;
  opt.batch_rows = (mode & 1) ? 3 : 1000;
  opt.chunk_bytes = (mode & 2) ? 64 : size_t{1} << 20;
  opt.ignore_unknown_keys = (mode & 4) != 0;
  if (mode & 8) {
    opt.reject = [](floe::format::RejectedRow&&) -> floe::Status { return floe::Ok(); };  // set per run
  }
  opt.with_positions = (mode & 16) != 0;
  const Run fast = Decode(schema, input, opt, true);
  const Run slow = Decode(schema, input, opt, false);
  if (fast.failed != slow.failed) Mismatch("one failed, the other did not");
  if (fast.error != slow.error) {
    std::fprintf(stderr, "fast: %s\nslow: %s\n", fast.error.c_str(), slow.error.c_str());
    Mismatch("error message");
  }
  if (fast.rows != slow.rows || fast.line != slow.line) Mismatch("rows or line number");
  if (fast.batches.size() != slow.batches.size()) Mismatch("batch count");
  if (fast.rejected.size() != slow.rejected.size()) Mismatch("rejected row count");
  for (size_t i = 0; i < fast.rejected.size(); ++i) {
    const auto& a = fast.rejected[i];
    const auto& b = slow.rejected[i];
    if (a.position != b.position || a.text != b.text || a.reason != b.reason) {
      std::fprintf(stderr, "fast: %lld %s\nslow: %lld %s\n", static_cast<long long>(a.position),
                   a.reason.c_str(), static_cast<long long>(b.position), b.reason.c_str());
      Mismatch("rejected row");
    }
  }
  for (size_t i = 0; i < fast.batches.size(); ++i) {
    const floe::Batch& a = fast.batches[i];
    const floe::Batch& b = slow.batches[i];
    if (a.num_rows != b.num_rows || a.columns.size() != b.columns.size()) Mismatch("batch shape");
    if (a.positions != b.positions) Mismatch("positions");
    if (opt.with_positions != (static_cast<int64_t>(a.positions.size()) == a.num_rows)) {
      Mismatch("positions kept or not as asked");
    }
    for (size_t c = 0; c < a.columns.size(); ++c) SameColumn(a.columns[c], b.columns[c]);
  }
  return 0;
}
