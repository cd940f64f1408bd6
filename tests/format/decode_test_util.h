// Helpers shared by the decoder tests: a schema from a SQL column list, and
// every row a reader gives, printed in canonical JSON.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>

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

}  // namespace floe::format
