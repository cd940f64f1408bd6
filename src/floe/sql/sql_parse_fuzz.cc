// libFuzzer target for the sql module's parsers: SQL scripts, data types,
// expressions and .slt test files. Bad input must give an error, never a
// crash or a hang; whatever parses must print to SQL that parses back to the
// same tree (positions aside) and prints the same again. Byte 0 picks the
// mode (low 2 bits); the rest is the text. Seeds: tests/fuzz_seeds/sql_parse_fuzz/.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "floe/sql/parser.h"
#include "floe/sql/printer.h"
#include "floe/sql/slt_file.h"
#include "floe/sql/sql_types.h"

using namespace floe;
using namespace floe::sql;

namespace {

[[noreturn]] void Mismatch(const char* what, std::string_view input, const std::string& printed,
                           const std::string& detail) {
  std::fprintf(stderr, "sql_parse_fuzz: %s\ninput: %.*s\nprinted: %s\n%s\n", what,
               static_cast<int>(input.size()), input.data(), printed.c_str(), detail.c_str());
  std::abort();
}

void CheckStatement(const Statement& parsed, std::string_view input) {
  std::string printed = ToSql(parsed);
  auto again = ParseStatement(printed);
  if (!again) Mismatch("printed SQL does not parse", input, printed, again.error().ToString());
  Statement a = parsed, b = *again;
  ClearPositions(a);
  ClearPositions(b);
  if (!(a == b)) Mismatch("printed SQL parses to another tree", input, printed, ToSql(b));
  if (ToSql(b) != printed) Mismatch("printing is not a fixed point", input, printed, ToSql(b));
  const auto* ct = std::get_if<CreateTable>(&parsed.node);
  if (ct && !ct->like && !ct->columns.empty()) {
    // The Iceberg mapping either refuses the table or gives a valid schema,
    // and SHOW CREATE TABLE's text (of a table whose LIKE is resolved) parses.
    (void)ToIcebergSchema(*ct);
    std::string show = ShowCreateTableText(*ct);
    auto reparsed = ParseStatement(show);
    if (!reparsed)
      Mismatch("SHOW CREATE TABLE text does not parse", input, show, reparsed.error().ToString());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (mode & 3) {
    case 0: {
      // Splitting never fails; each statement parses or gives an error.
      (void)SplitStatements(text);
      auto script = ParseScript(text);
      if (!script) return 0;
      for (const Statement& st : *script) CheckStatement(st, text);
      break;
    }
    case 1: {
      auto type = ParseDataType(text);
      if (!type) return 0;
      std::string printed = TypeToSql(*type);
      auto again = ParseDataType(printed);
      if (!again) Mismatch("printed type does not parse", text, printed, again.error().ToString());
      DataType a = *type, b = *again;
      ClearPositions(a);
      ClearPositions(b);
      if (!(a == b)) Mismatch("printed type parses to another type", text, printed, TypeToSql(b));
      int32_t next_id = 1;
      if (auto iceberg = ToIcebergType(*type, &next_id); iceberg) {
        (void)FromIcebergType(**iceberg, !type->nullable);
      }
      break;
    }
    case 2: {
      auto expr = ParseExpression(text);
      if (!expr) return 0;
      std::string printed = ExprToSql(*expr);
      auto again = ParseExpression(printed);
      if (!again)
        Mismatch("printed expression does not parse", text, printed, again.error().ToString());
      Expr a = *expr, b = *again;
      ClearPositions(a);
      ClearPositions(b);
      if (!(a == b))
        Mismatch("printed expression parses to another tree", text, printed, ExprToSql(b));
      break;
    }
    case 3: {
      (void)ParseSltFile(text, "fuzz.slt", "/tmp/fuzz");
      break;
    }
  }
  return 0;
}
