// Shared by the plugin tests: where the test plugins are built, a small
// batch of (id long, name string) rows with kinds, and the test sink's log.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "floe/types/column_vector.h"
#include "testing/files.h"
#include "testing/schema.h"

namespace floe::plugin::test {

/// `<build>/plugins/lib<name>.so` (tests/plugin/plugins/CMakeLists.txt).
inline std::string PluginFile(const std::string& name) {
  return std::string(FLOE_BINARY_DIR) + "/plugins/lib" + name + ".so";
}

inline SchemaPtr IdNameSchema() {
  return std::make_shared<Schema>(std::vector<NestedField>{
      floe::test::Field(1, "id", LongType(), true), floe::test::Field(2, "name", StringType())});
}

/// Rows (id, name) with their kinds; a null name where `name` is empty.
struct Row {
  int64_t id;
  std::string name;
  RowKind kind = RowKind::kInsert;
};

inline Batch IdNameBatch(const std::vector<Row>& rows) {
  Batch b(IdNameSchema());
  for (const auto& r : rows) {
    b.columns[0].Append<int64_t>(r.id);
    if (r.name.empty()) {
      b.columns[1].AppendNull();
    } else {
      b.columns[1].AppendBytes(r.name);
    }
    b.row_kinds.push_back(r.kind);
  }
  b.num_rows = static_cast<int64_t>(rows.size());
  return b;
}

/// The lines of a file.
inline std::vector<std::string> Lines(const std::filesystem::path& path) {
  std::vector<std::string> out;
  std::string text = floe::test::ReadFile(path);
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

}  // namespace floe::plugin::test
