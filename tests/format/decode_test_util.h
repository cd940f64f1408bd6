// Helpers shared by the decoder tests: a schema from a SQL column list, and
// every row a reader gives, printed in canonical JSON.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "floe/format/decode_options.h"

#include "floe/types/json_value.h"
#include "floe/types/sql_schema.h"

namespace floe::format {

inline SchemaPtr MakeSchema(std::string_view sql) {
  auto s = ParseSqlColumns(sql);
  EXPECT_TRUE(s) << s.error().ToString();
  return std::make_shared<Schema>(s ? *s : Schema());
}

/// Reads `reader` (a JsonlReader or CsvReader) to the end; every row in
/// canonical JSON, one per line, or the first error.
template <typename Reader>
Result<std::string> ReadAllRows(Reader& reader) {
  Batch batch;
  std::string out;
  while (true) {
    FLOE_ASSIGN_OR_RETURN(bool more, reader.Next(&batch));
    if (!more) break;
    FLOE_RETURN_IF_ERROR(batch.Validate());
    for (int64_t r = 0; r < batch.num_rows; ++r) {
      AppendJsonRow(batch, r, &out);
      out += '\n';
    }
  }
  return out;
}

/// A reject callback that keeps every rejected row in `*out`.
inline std::function<Status(RejectedRow&&)> CollectRejects(std::vector<RejectedRow>* out) {
  return [out](RejectedRow&& row) -> Status {
    out->push_back(std::move(row));
    return Ok();
  };
}

/// "line 3: <reason>" for each rejected row, one a line: what a test compares.
inline std::string RejectsText(const std::vector<RejectedRow>& rows) {
  std::string out;
  for (const auto& r : rows) out += "line " + std::to_string(r.position) + ": " + r.reason + "\n";
  return out;
}

/// Reads `reader` to the end, checking each batch's layout; every row in
/// canonical JSON followed by " @<position>" when the batch has positions
/// (and, for change streams, preceded by its row kind and followed by
/// " #<sequence number>"), one a line, or the first error.
template <typename Reader>
Result<std::string> ReadAllRowsWithPositions(Reader& reader) {
  static constexpr const char* kKinds[] = {"+I", "-U", "+U", "-D"};
  Batch batch;
  std::string out;
  while (true) {
    FLOE_ASSIGN_OR_RETURN(bool more, reader.Next(&batch));
    if (!more) break;
    FLOE_RETURN_IF_ERROR(batch.Validate());
    for (int64_t r = 0; r < batch.num_rows; ++r) {
      if (!batch.row_kinds.empty()) {
        out += kKinds[static_cast<int>(batch.row_kinds[r])];
        out += ' ';
      }
      AppendJsonRow(batch, r, &out);
      if (!batch.positions.empty()) out += " @" + std::to_string(batch.positions[r]);
      if (!batch.sequence_numbers.empty()) out += " #" + std::to_string(batch.sequence_numbers[r]);
      out += '\n';
    }
  }
  return out;
}

}  // namespace floe::format
