// libFuzzer target for the Debezium JSON decoder: arbitrary bytes decoded as
// change events against a schema with every primitive type and nested types.
// Any input must give rows or a clean error, never a crash, a hang or a batch
// that breaks the layout invariants (columns, row kinds, sequence numbers and
// positions all one per row). In reject mode, a second property: the rows
// are exactly those of the same input with the rejected lines blanked out
// and no reject callback (a rejected event leaves no trace in any column).
//
// Input: byte 0 picks the options (reject mode, sequence path, batch and
// chunk size, unknown keys), the rest is the text. Seeds:
// tests/fuzz_seeds/debezium_fuzz/.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "floe/format/debezium_reader.h"
#include "floe/types/json_value.h"
#include "floe/types/sql_schema.h"

namespace {

floe::SchemaPtr FuzzSchema() {
  auto parsed = floe::ParseSqlColumns(
      "id INT NOT NULL, b BOOLEAN, l BIGINT, f FLOAT, d DOUBLE, dec DECIMAL(9,2), dt DATE, "
      "t TIME, ts TIMESTAMP, tz TIMESTAMPTZ, s STRING, u UUID, fx FIXED(2), bin BINARY, "
      "tags ARRAY<STRING NOT NULL>, loc STRUCT<lat DOUBLE, inner STRUCT<x INT NOT NULL>>, "
      "m MAP<STRING, ARRAY<INT>>");
  if (!parsed) std::abort();
  return std::make_shared<floe::Schema>(std::move(*parsed));
}

/// What one decode produced: every row as "<kind> <json> @<line> #<seq>",
/// the rejected lines, and whether it ended in an error.
struct Run {
  std::string rows;
  std::vector<int64_t> rejected;
  bool failed = false;
};

Run Decode(const floe::SchemaPtr& schema, const std::string& data,
           floe::format::DecodeOptions opt) {
  Run run;
  if (opt.reject) {
    opt.reject = [&run](floe::format::RejectedRow&& row) -> floe::Status {
      if (row.text.size() > floe::format::RejectedRow::kMaxText + 3) std::abort();
      run.rejected.push_back(row.position);
      return floe::Ok();
    };
  }
  auto reader = floe::format::DebeziumReader::FromString(schema, data, opt);
  if (!reader) std::abort();  // the options are valid
  floe::Batch batch;
  for (int guard = 0; guard < 100000; ++guard) {
    auto more = (*reader)->Next(&batch);
    if (!more) {
      run.failed = true;
      return run;
    }
    if (!*more) return run;
    if (!batch.Validate()) std::abort();
    const auto n = static_cast<size_t>(batch.num_rows);
    if (batch.row_kinds.size() != n || batch.sequence_numbers.size() != n ||
        batch.positions.size() != n) {
      std::abort();
    }
    for (int64_t r = 0; r < batch.num_rows; ++r) {
      run.rows += std::to_string(static_cast<int>(batch.row_kinds[r])) + ' ';
      floe::AppendJsonRow(batch, r, &run.rows);
      run.rows += " @" + std::to_string(batch.positions[r]) + " #" +
                  std::to_string(batch.sequence_numbers[r]) + '\n';
    }
  }
  std::abort();  // no progress: a hang
}

/// `data` with the 1-based lines in `lines` (ascending) emptied.
std::string BlankLines(const std::string& data, const std::vector<int64_t>& lines) {
  std::string out;
  size_t start = 0, next = 0;
  for (int64_t line = 1; start <= data.size(); ++line) {
    size_t end = data.find('\n', start);
    if (end == std::string::npos) end = data.size();
    if (next < lines.size() && lines[next] == line) {
      ++next;
    } else {
      out.append(data, start, end - start);
    }
    if (end == data.size()) break;
    out += '\n';
    start = end + 1;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const floe::SchemaPtr schema = FuzzSchema();
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  std::string input(reinterpret_cast<const char*>(data + 1), size - 1);
  floe::format::DecodeOptions opt;
  static const char* const kPaths[] = {"source.lsn", "ts_ms", "source.ts_ms", "a.b.c"};
  opt.sequence_path = kPaths[(mode >> 1) & 3];
  opt.batch_rows = (mode & 8) ? 3 : 1000;
  opt.chunk_bytes = (mode & 16) ? 64 : size_t{1} << 20;
  opt.ignore_unknown_keys = (mode & 32) != 0;
  if ((mode & 1) == 0) {
    (void)Decode(schema, input, opt);
    return 0;
  }
  opt.reject = [](floe::format::RejectedRow&&) -> floe::Status { return floe::Ok(); };
  const Run with_rejects = Decode(schema, input, opt);
  if (with_rejects.failed) return 0;  // an error that stops the decoder
  opt.reject = nullptr;
  const Run without = Decode(schema, BlankLines(input, with_rejects.rejected), opt);
  if (without.failed || without.rows != with_rejects.rows) {
    std::fprintf(stderr, "rejecting lines is not the same as blanking them out\n");
    std::abort();
  }
  return 0;
}
