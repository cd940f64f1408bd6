// Debezium JSON decoder: the real PostgreSQL change streams of
// shared/interop/golden-cdc (row kinds, sequence numbers, positions, rows, and
// the table they fold into), schema-wrapped events, tombstones, every
// rejection reason with and without a reject callback, taking a half-decoded
// event back out of a batch, depth and size limits, and the registry entry.
#include "floe/format/debezium_reader.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>

#include "floe/format/format_registry.h"
#include "floe/format/jsonl_reader.h"
#include "format/decode_test_util.h"
#include "testing/debezium_reencode.h"
#include "testing/files.h"
#include "testing/matchers.h"

namespace floe::format {
namespace debezium_reader_test {

constexpr const char* kProducts = "id INT NOT NULL, name STRING, description STRING, weight DOUBLE";

std::filesystem::path GoldenCdc(const std::string& name) {
  return std::filesystem::path(test::SharedDir()) / "interop" / "golden-cdc" / name;
}

Result<std::string> Decode(std::string_view sql, std::string input, DecodeOptions opt = {}) {
  FLOE_ASSIGN_OR_RETURN(auto reader,
                        DebeziumReader::FromString(MakeSchema(sql), std::move(input), std::move(opt)));
  return ReadAllRowsWithPositions(*reader);
}

/// An event line for table `kProducts`-like schemas.
std::string Event(std::string_view op, std::string_view before, std::string_view after,
                  std::string_view lsn = "7") {
  return fmt::format(R"({{"before":{},"after":{},"source":{{"connector":"postgresql","lsn":{}}},"op":"{}","ts_ms":1600}})",
                     before, after, lsn, op);
}

/// The table a decoded stream leaves: rows by key `id` (inserts and
/// update-afters put a row, deletes and update-befores remove it), printed
/// in id order.
std::string Fold(const std::string& decoded) {
  std::map<int64_t, std::string> table;
  size_t pos = 0;
  while (pos < decoded.size()) {
    size_t end = decoded.find('\n', pos);
    std::string line = decoded.substr(pos, end - pos);
    pos = end + 1;
    std::string kind = line.substr(0, 2);
    std::string row = line.substr(3, line.find(" @") - 3);
    int64_t id = std::stoll(row.substr(row.find("\"id\":") + 5));
    if (kind == "+I" || kind == "+U") {
      table[id] = row;
    } else {
      EXPECT_EQ(table.erase(id), 1u) << "removes a row that is not there: " << line;
    }
  }
  std::string out;
  for (const auto& [id, row] : table) out += row + "\n";
  return out;
}

/// A golden table file (JSON lines) in canonical JSON, as the JSONL decoder
/// reads it with the products schema (1.0 prints as 1).
std::string ExpectedTable(const std::string& name) {
  auto reader = JsonlReader::FromString(MakeSchema(kProducts), test::ReadFile(GoldenCdc(name)));
  EXPECT_OK(reader);
  if (!reader) return "";
  auto rows = ReadAllRows(**reader);
  EXPECT_OK(rows);
  return rows ? *rows : "";
}

TEST(Debezium, PostgresProductsStream) {
  std::string input = test::ReadFile(GoldenCdc("debezium_postgres_products.jsonl"));
  ASSERT_FALSE(input.empty()) << "missing " << GoldenCdc("debezium_postgres_products.jsonl");
  ASSERT_OK_AND_ASSIGN(std::string rows, Decode(kProducts, input));
  // 9 snapshot reads, 2 updates, 2 creates, 2 updates, 1 delete; each update
  // gives its before and after image, at its line, with its LSN.
  const std::string expected =
      R"(+I {"id":101,"name":"scooter","description":"Small 2-wheel scooter","weight":3.14} @1 #34078720
+I {"id":102,"name":"car battery","description":"12V car battery","weight":8.1} @2 #34078720
+I {"id":103,"name":"12-pack drill bits","description":"12-pack of drill bits with sizes ranging from #40 to #3","weight":0.8} @3 #34078720
+I {"id":104,"name":"hammer","description":"12oz carpenter's hammer","weight":0.75} @4 #34078720
+I {"id":105,"name":"hammer","description":"14oz carpenter's hammer","weight":0.875} @5 #34078720
+I {"id":106,"name":"hammer","description":"16oz carpenter's hammer","weight":1} @6 #34078720
+I {"id":107,"name":"rocks","description":"box of assorted rocks","weight":5.3} @7 #34078720
+I {"id":108,"name":"jacket","description":"water resistent black wind breaker","weight":0.1} @8 #34078720
+I {"id":109,"name":"spare tire","description":"24 inch spare tire","weight":22.2} @9 #34078720
-U {"id":106,"name":"hammer","description":"16oz carpenter's hammer","weight":1} @10 #34131104
+U {"id":106,"name":"hammer","description":"18oz carpenter hammer","weight":1} @10 #34131104
-U {"id":107,"name":"rocks","description":"box of assorted rocks","weight":5.3} @11 #34132200
+U {"id":107,"name":"rocks","description":"box of assorted rocks","weight":5.1} @11 #34132200
+I {"id":110,"name":"jacket","description":"water resistent white wind breaker","weight":0.2} @12 #34132560
+I {"id":111,"name":"scooter","description":"Big 2-wheel scooter ","weight":5.18} @13 #34133072
-U {"id":110,"name":"jacket","description":"water resistent white wind breaker","weight":0.2} @14 #34133344
+U {"id":110,"name":"jacket","description":"new water resistent white wind breaker","weight":0.5} @14 #34133344
-U {"id":111,"name":"scooter","description":"Big 2-wheel scooter ","weight":5.18} @15 #34133584
+U {"id":111,"name":"scooter","description":"Big 2-wheel scooter ","weight":5.17} @15 #34133584
-D {"id":111,"name":"scooter","description":"Big 2-wheel scooter ","weight":5.17} @16 #34133800
)";
  EXPECT_EQ(rows, expected);
  EXPECT_EQ(Fold(rows), ExpectedTable("debezium_postgres_products.expected.jsonl"));
}

TEST(Debezium, PostgresProductsInSmallBatchesKeepsUpdatePairsTogether) {
  std::string input = test::ReadFile(GoldenCdc("debezium_postgres_products.jsonl"));
  DecodeOptions opt;
  opt.batch_rows = 2;
  opt.chunk_bytes = 64;  // lines cross read chunks
  ASSERT_OK_AND_ASSIGN(auto reader,
                       DebeziumReader::FromString(MakeSchema(kProducts), input, opt));
  Batch batch;
  int64_t rows = 0;
  while (true) {
    ASSERT_OK_AND_ASSIGN(bool more, reader->Next(&batch));
    if (!more) break;
    ASSERT_OK(batch.Validate());
    ASSERT_LE(batch.num_rows, 3);
    // An update's before image is never the last row of a batch.
    EXPECT_NE(batch.row_kinds.back(), RowKind::kUpdateBefore);
    rows += batch.num_rows;
  }
  EXPECT_EQ(rows, 20);
  EXPECT_EQ(reader->rows_read(), 20);
  EXPECT_EQ(reader->events_read(), 16);
  EXPECT_EQ(reader->line_number(), 16);
  EXPECT_EQ(reader->rows_rejected(), 0);
}

TEST(Debezium, ReplicaIdentityDefaultFailsOnTheKeylessDelete) {
  std::string input = test::ReadFile(GoldenCdc("debezium_postgres_replica_identity_default.jsonl"));
  ASSERT_FALSE(input.empty());
  auto r = Decode(kProducts, input);
  EXPECT_THAT(r, test::HasErrorMessage(
                     "line 16: delete event has no 'before' image: the source table needs "
                     "REPLICA IDENTITY FULL (or a key)"));
}

TEST(Debezium, ReplicaIdentityDefaultRejectsTheKeylessDelete) {
  std::string input = test::ReadFile(GoldenCdc("debezium_postgres_replica_identity_default.jsonl"));
  std::vector<RejectedRow> rejected;
  DecodeOptions opt;
  opt.reject = CollectRejects(&rejected);
  ASSERT_OK_AND_ASSIGN(auto reader,
                       DebeziumReader::FromString(MakeSchema(kProducts), input, opt));
  ASSERT_OK_AND_ASSIGN(std::string rows, ReadAllRowsWithPositions(*reader));
  ASSERT_EQ(rejected.size(), 1u);
  EXPECT_EQ(rejected[0].position, 16);
  EXPECT_EQ(rejected[0].reason,
            "delete event has no 'before' image: the source table needs REPLICA IDENTITY FULL "
            "(or a key)");
  // The raw line as it is in the file.
  size_t line16 = 0;
  for (int i = 1; i < 16; ++i) line16 = input.find('\n', line16) + 1;
  EXPECT_EQ(rejected[0].text, input.substr(line16, input.find('\n', line16) - line16));
  // Updates without a before image give only their after image.
  EXPECT_EQ(rows.find("-U"), std::string::npos);
  EXPECT_NE(rows.find(R"(+U {"id":106,"name":"hammer","description":"18oz carpenter hammer","weight":1} @10 #34131104)"),
            std::string::npos)
      << rows;
  EXPECT_EQ(Fold(rows), ExpectedTable("debezium_postgres_replica_identity_default.expected.jsonl"));
  EXPECT_EQ(reader->rows_rejected(), 1);
  EXPECT_EQ(reader->events_read(), 15);
}

// A schema that cannot be read rejects its event, and the next event with
// the same schema text is rejected the same way: the failed schema is not
// remembered as read (found by debezium_fuzz: the second of two identical
// events was decoded, as it would not be were the first one blanked out).
TEST(Debezium, AnUnreadableSchemaRejectsEveryEventThatCarriesIt) {
  const std::string line =
      R"({"schema":{999"type":"struct"},"payload":{"before":null,"after":{"id":2,"name":"x"},)"
      R"("source":{"lsn":5},"op":"r"}})";
  std::vector<RejectedRow> rejected;
  DecodeOptions opt;
  opt.reject = CollectRejects(&rejected);
  ASSERT_OK_AND_ASSIGN(auto reader,
                       DebeziumReader::FromString(MakeSchema(kProducts), line + "\n" + line + "\n", opt));
  ASSERT_OK_AND_ASSIGN(std::string rows, ReadAllRowsWithPositions(*reader));
  EXPECT_EQ(rows, "");
  ASSERT_EQ(rejected.size(), 2u);
  EXPECT_EQ(rejected[0].reason, rejected[1].reason);
}

TEST(Debezium, SchemaWrappedEventsAndTombstones) {
  const std::string event = Event("u", R"({"id":1,"name":"a"})", R"({"id":1,"name":"b"})", "42");
  const std::string wrapped =
      R"({"schema":{"type":"struct","fields":[{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"}],"optional":true,"field":"before"}],"optional":false,"name":"x.Envelope"},"payload":)" +
      event + "}";
  // The payload may come before the schema too.
  const std::string payload_first = R"({"payload":)" + event + R"(,"schema":{"type":"struct"}})";
  const std::string input = "null\n" + wrapped + "\n\n  null  \r\n" + payload_first +
                            "\n" R"({"schema":{"type":"struct","optional":true},"payload":null})" "\n";
  ASSERT_OK_AND_ASSIGN(auto reader, DebeziumReader::FromString(MakeSchema("id INT, name STRING"), input));
  ASSERT_OK_AND_ASSIGN(std::string rows, ReadAllRowsWithPositions(*reader));
  EXPECT_EQ(rows,
            "-U {\"id\":1,\"name\":\"a\"} @2 #42\n"
            "+U {\"id\":1,\"name\":\"b\"} @2 #42\n"
            "-U {\"id\":1,\"name\":\"a\"} @5 #42\n"
            "+U {\"id\":1,\"name\":\"b\"} @5 #42\n");
  EXPECT_EQ(reader->tombstones(), 3);
  EXPECT_EQ(reader->events_read(), 2);
}

TEST(Debezium, SequencePathChoices) {
  const std::string line =
      R"({"before":null,"after":{"id":1},"source":{"ts_ms":1700,"lsn":"123456789012","pos":"0154","seq":-5},"op":"c","ts_ms":1800})";
  auto seq = [&](std::string path) -> std::string {
    DecodeOptions opt;
    opt.sequence_path = std::move(path);
    auto r = Decode("id INT", line, opt);
    return r ? *r : r.error().message;
  };
  EXPECT_EQ(seq("source.lsn"), "+I {\"id\":1} @1 #123456789012\n");  // a string of digits
  EXPECT_EQ(seq("ts_ms"), "+I {\"id\":1} @1 #1800\n");
  EXPECT_EQ(seq("source.ts_ms"), "+I {\"id\":1} @1 #1700\n");
  EXPECT_EQ(seq("source.pos"), "+I {\"id\":1} @1 #154\n");  // digits, leading zero and all
  EXPECT_EQ(seq("source.seq"), "+I {\"id\":1} @1 #-5\n");   // a JSON integer may be negative
  for (std::string bad : {"", ".", "source.", ".lsn", "source..lsn"}) {
    DecodeOptions opt;
    opt.sequence_path = bad;
    auto r = DebeziumReader::FromString(MakeSchema("id INT"), line, opt);
    EXPECT_THAT(r, test::HasErrorMessage("sequence_path '" + bad +
                                         "' is not a dotted path of keys (such as source.lsn or ts_ms)"));
  }
}

/// What one bad line gives: the error without a reject callback, and (as a
/// check) that with one the line is rejected with the same reason and the
/// good line after it still decodes.
std::string Rejection(std::string_view sql, const std::string& line, DecodeOptions opt = {}) {
  const std::string good = Event("c", "null", R"({"id":9})");
  const std::string shown = line.substr(0, 200);
  auto good_rows = Decode(sql, good, opt);
  EXPECT_OK(good_rows);
  if (!good_rows) return "";
  std::string row = good_rows->substr(0, good_rows->find(" @"));
  auto failed = Decode(sql, good + "\n" + line + "\n", opt);
  EXPECT_FALSE(failed) << "no error for " << shown;
  if (failed) return "";
  std::vector<RejectedRow> rejected;
  opt.reject = CollectRejects(&rejected);
  auto rows = Decode(sql, good + "\n" + line + "\n" + good + "\n", opt);
  EXPECT_OK(rows);
  if (rows) {
    EXPECT_EQ(*rows, row + " @1 #7\n" + row + " @3 #7\n") << shown;
  }
  EXPECT_EQ(rejected.size(), 1u) << shown;
  if (rejected.size() == 1) {
    EXPECT_EQ(rejected[0].position, 2);
    // The raw line, cut at 64 KiB.
    EXPECT_TRUE(rejected[0].text == (line.size() > RejectedRow::kMaxText
                                         ? line.substr(0, RejectedRow::kMaxText) + "..."
                                         : line))
        << shown;
    EXPECT_EQ("line 2" + std::string(rejected[0].reason.starts_with("column") ? ", " : ": ") +
                  rejected[0].reason,
              failed.error().message);
  }
  return failed.error().message;
}

TEST(Debezium, EveryRejectionReason) {
  const char* sql = "id INT NOT NULL, name STRING";
  // Images.
  EXPECT_EQ(Rejection(sql, Event("d", "null", "null")),
            "line 2: delete event has no 'before' image: the source table needs REPLICA IDENTITY "
            "FULL (or a key)");
  EXPECT_EQ(Rejection(sql, R"({"after":null,"source":{"lsn":1},"op":"d"})"),
            "line 2: delete event has no 'before' image: the source table needs REPLICA IDENTITY "
            "FULL (or a key)");
  EXPECT_EQ(Rejection(sql, Event("u", R"({"id":1})", "null")), "line 2: update event has no 'after' image");
  EXPECT_EQ(Rejection(sql, Event("c", "null", "null")), "line 2: create event has no 'after' image");
  EXPECT_EQ(Rejection(sql, R"({"source":{"lsn":1},"op":"r"})"), "line 2: read event has no 'after' image");
  EXPECT_EQ(Rejection(sql, Event("c", "null", "[1]")),
            "line 2: 'after' must be an object (a row image) or null, found an array");
  // Op.
  EXPECT_EQ(Rejection(sql, Event("t", "null", "null")),
            "line 2: truncate event (op 't'): floe does not apply truncates (a truncate is no row "
            "change; filter them at the connector with skipped.operations=t, or pass them to the "
            "error output)");
  EXPECT_EQ(Rejection(sql, Event("x", "null", R"({"id":1})")),
            "line 2: unknown op 'x' (expected c, r, u or d)");
  EXPECT_EQ(Rejection(sql, R"({"after":{"id":1},"source":{"lsn":1}})"),
            "line 2: the event has no 'op' (expected c, r, u or d)");
  EXPECT_EQ(Rejection(sql, R"({"after":{"id":1},"source":{"lsn":1},"op":null})"),
            "line 2: 'op' must be a string (c, r, u or d), found null");
  // Sequence value.
  EXPECT_EQ(Rejection(sql, R"({"after":{"id":1},"op":"c"})"),
            "line 2: missing sequence value 'source.lsn' (sequence_path): the event has no 'source'");
  EXPECT_EQ(Rejection(sql, R"({"after":{"id":1},"source":null,"op":"c"})"),
            "line 2: missing sequence value 'source.lsn' (sequence_path): 'source' is null");
  EXPECT_EQ(Rejection(sql, R"({"after":{"id":1},"source":{"xmin":null},"op":"c"})"),
            "line 2: missing sequence value 'source.lsn' (sequence_path): 'source' has no 'lsn'");
  EXPECT_EQ(Rejection(sql, Event("c", "null", R"({"id":1})", "null")),
            "line 2: missing sequence value 'source.lsn' (sequence_path): 'lsn' is null");
  EXPECT_EQ(Rejection(sql, R"({"after":{"id":1},"source":"pg","op":"c"})"),
            "line 2: sequence value 'source.lsn' (sequence_path): 'source' is a string, not an object");
  EXPECT_EQ(Rejection(sql, Event("c", "null", R"({"id":1})", "1.5")),
            "line 2: sequence value 'source.lsn' (sequence_path) must be an integer, found 1.5");
  EXPECT_EQ(Rejection(sql, Event("c", "null", R"({"id":1})", "2e3")),
            "line 2: sequence value 'source.lsn' (sequence_path) must be an integer, found 2e3");
  EXPECT_EQ(Rejection(sql, Event("c", "null", R"({"id":1})", "true")),
            "line 2: sequence value 'source.lsn' (sequence_path) must be an integer, found a boolean");
  EXPECT_EQ(Rejection(sql, Event("c", "null", R"({"id":1})", R"("12a")")),
            "line 2: sequence value 'source.lsn' (sequence_path) must be an integer or a string of "
            "digits, found \"12a\"");
  EXPECT_EQ(Rejection(sql, Event("c", "null", R"({"id":1})", R"("")")),
            "line 2: sequence value 'source.lsn' (sequence_path) must be an integer or a string of "
            "digits, found \"\"");
  EXPECT_EQ(Rejection(sql, Event("c", "null", R"({"id":1})", "99999999999999999999")),
            "line 2: sequence value 'source.lsn' (sequence_path) 99999999999999999999 overflows BIGINT");
  EXPECT_EQ(Rejection(sql, Event("c", "null", R"({"id":1})", R"("99999999999999999999")")),
            "line 2: sequence value 'source.lsn' (sequence_path) 99999999999999999999 overflows BIGINT");
  EXPECT_EQ(Rejection(sql, Event("c", "null", R"({"id":1})", "012")).substr(0, 29),
            "line 2: not valid JSON at col");
  // Values of an image: the JSONL decoder's rules and messages.
  EXPECT_EQ(Rejection(sql, Event("c", "null", R"({"id":3000000000})")),
            "line 2, column 'id' of the after image: value 3000000000 overflows INT");
  EXPECT_EQ(Rejection(sql, Event("d", R"({"id":"x"})", "null")),
            "line 2, column 'id' of the before image: expected an integer for INT, found a string \"x\"");
  EXPECT_EQ(Rejection(sql, Event("c", "null", R"({"name":"a"})")),
            "line 2, column 'id' of the after image: null in NOT NULL column (the key is missing)");
  EXPECT_EQ(Rejection(sql, Event("c", "null", R"({"id":1,"qty":2})")),
            "line 2: after image: unknown column 'qty'");
  // The whole line.
  EXPECT_EQ(Rejection(sql, "[1,2]"),
            "line 2: expected a JSON object (a Debezium change event), found an array");
  EXPECT_EQ(Rejection(sql, "nul"), "line 2: not valid JSON at column 1: 'nul' is not a JSON value");
  EXPECT_EQ(Rejection(sql, R"({"op":"c",)").substr(0, 29), "line 2: not valid JSON at col");
  EXPECT_EQ(Rejection(sql, Event("c", "null", R"({"id":1})") + " x"),
            "line 2: not valid JSON at column " +
                std::to_string(Event("c", "null", R"({"id":1})").size() + 2) +
                ": trailing content after the JSON value");
  EXPECT_EQ(Rejection(sql, R"({"schema":{},"payload":5})"),
            "line 2: 'payload' must be an object (a change event), found a number");
  EXPECT_EQ(Rejection(sql, Event("c", "null", "{\"id\":1,\"name\":\"a\xff\"}")),
            "line 2: invalid UTF-8 (byte 0xff at offset 40 of the line)");
  // Unknown keys of an image may be ignored, as in JSONL.
  DecodeOptions ignore;
  ignore.ignore_unknown_keys = true;
  EXPECT_EQ(*Decode(sql, Event("c", "null", R"({"id":1,"qty":2})"), ignore), "+I {\"id\":1,\"name\":null} @1 #7\n");
}

TEST(Debezium, AFailedAfterImageTakesTheBeforeImageOutToo) {
  // Nested columns: the failed after image has already appended list
  // elements, struct children and map entries when its last value fails.
  const char* sql =
      "id INT NOT NULL, tags ARRAY<STRING>, loc STRUCT<lat DOUBLE, pts ARRAY<INT>>, "
      "m MAP<STRING, ARRAY<INT>>";
  const std::string good_before = R"({"id":1,"tags":["a","b"],"loc":{"lat":1.5,"pts":[1,2]},"m":{"k":[1]}})";
  const std::string bad_after = R"({"id":1,"tags":["c",null],"loc":{"lat":2.5,"pts":[3,4]},"m":{"k":[5],"z":[6,"x"]}})";
  const std::string input = Event("c", "null", R"({"id":7,"tags":null,"loc":null,"m":null})") + "\n" +
                            Event("u", good_before, bad_after) + "\n" +
                            Event("c", "null", good_before, "8") + "\n";
  std::vector<RejectedRow> rejected;
  DecodeOptions opt;
  opt.reject = CollectRejects(&rejected);
  ASSERT_OK_AND_ASSIGN(auto reader, DebeziumReader::FromString(MakeSchema(sql), input, opt));
  Batch batch;
  ASSERT_OK_AND_ASSIGN(bool more, reader->Next(&batch));
  ASSERT_TRUE(more);
  ASSERT_OK(batch.Validate());
  ASSERT_EQ(batch.num_rows, 2);
  EXPECT_EQ(batch.row_kinds, (std::vector<RowKind>{RowKind::kInsert, RowKind::kInsert}));
  EXPECT_EQ(batch.positions, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(batch.sequence_numbers, (std::vector<int64_t>{7, 8}));
  // Exactly the columns of decoding the two good lines alone (the validity
  // vectors the failed image made are gone again).
  ASSERT_OK_AND_ASSIGN(auto clean, DebeziumReader::FromString(
                                       MakeSchema(sql),
                                       Event("c", "null", R"({"id":7,"tags":null,"loc":null,"m":null})") +
                                           "\n" + Event("c", "null", good_before, "8") + "\n"));
  Batch expected;
  ASSERT_OK_AND_ASSIGN(more, clean->Next(&expected));
  std::function<void(const ColumnVector&, const ColumnVector&)> same = [&](const ColumnVector& a,
                                                                          const ColumnVector& b) {
    EXPECT_EQ(a.length, b.length) << a.type->ToString();
    EXPECT_EQ(a.validity, b.validity) << a.type->ToString();
    EXPECT_EQ(a.offsets, b.offsets) << a.type->ToString();
    ASSERT_EQ(a.values.size(), b.values.size()) << a.type->ToString();
    if (a.values.size()) {
      EXPECT_EQ(std::memcmp(a.values.data(), b.values.data(), a.values.size()), 0);
    }
    ASSERT_EQ(a.children.size(), b.children.size());
    for (size_t i = 0; i < a.children.size(); ++i) same(a.children[i], b.children[i]);
  };
  for (size_t c = 0; c < batch.columns.size(); ++c) same(batch.columns[c], expected.columns[c]);
  ASSERT_EQ(rejected.size(), 1u);
  EXPECT_EQ(rejected[0].reason,
            "column 'm.value.element' of the after image: expected an integer for INT, found a string \"x\"");
}

TEST(Debezium, RejectCallbackErrorStopsTheDecoder) {
  DecodeOptions opt;
  opt.reject = [](RejectedRow&& row) -> Status {
    return InvalidArgument("error output full at line {}", row.position);
  };
  auto r = Decode("id INT", Event("c", "null", R"({"id":1})") + "\n" + Event("t", "null", "null") + "\n", opt);
  EXPECT_THAT(r, test::HasErrorMessage("error output full at line 2"));
}

TEST(Debezium, RejectedTextIsCutAt64KiB) {
  std::vector<RejectedRow> rejected;
  DecodeOptions opt;
  opt.reject = CollectRejects(&rejected);
  const std::string line = Event("c", "null", R"({"id":"x"})") + std::string(100000, ' ');
  ASSERT_OK(Decode("id INT", line, opt));
  ASSERT_EQ(rejected.size(), 1u);
  EXPECT_EQ(rejected[0].text.size(), RejectedRow::kMaxText + 3);
  EXPECT_TRUE(rejected[0].text.ends_with("    ..."));
  EXPECT_TRUE(rejected[0].text.starts_with(R"({"before":null)"));
}

TEST(Debezium, DepthAndSizeLimits) {
  // Deep nesting where the decoder does not look (the source block) is
  // skipped; inside an image it breaks the column's type; unbalanced it is
  // malformed. Never a crash.
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const std::string in_source = R"({"after":{"id":1},"source":{"lsn":5,"x":)" + deep + R"(},"op":"c"})";
  EXPECT_EQ(*Decode("id INT", in_source), "+I {\"id\":1} @1 #5\n");
  EXPECT_EQ(Rejection("id INT", Event("c", "null", R"({"id":)" + deep + "}")),
            "line 2, column 'id' of the after image: expected an integer for INT, found an array");
  EXPECT_EQ(Rejection("id INT", R"({"after":{"id":1},"source":{"lsn":5,"x":)" + deep.substr(1) + R"(},"op":"c"})")
                .substr(0, 29),
            "line 2: not valid JSON at col");
  EXPECT_EQ(Rejection("id INT, a ARRAY<ARRAY<INT>>", Event("c", "null", R"({"id":1,"a":)" + deep + "}")),
            "line 2, column 'a.element.element' of the after image: expected an integer for INT, "
            "found an array");

  // A line over max_line_bytes stops the decoder even with a reject callback.
  std::vector<RejectedRow> rejected;
  DecodeOptions opt;
  opt.max_line_bytes = 1000;
  opt.reject = CollectRejects(&rejected);
  const std::string ok = Event("c", "null", R"({"id":1})");
  const std::string big = Event("c", "null", R"({"id":1,"pad":")" + std::string(2000, 'p') + "\"}");
  EXPECT_THAT(Decode("id INT", ok + "\n" + big + "\n" + ok + "\n", opt),
              test::HasErrorMessage("line 2: the line is longer than 1000 bytes (max_line_bytes)"));
  EXPECT_TRUE(rejected.empty());

  // From a file read in 4 KiB chunks, a line that never ends is refused when
  // the buffer would have to grow past the limit, without reading it all.
  auto dir = test::FreshTestDir("debezium_");
  auto path = dir / "huge.jsonl";
  ASSERT_TRUE(test::WriteFile(path, ok + "\n" + std::string(size_t{8} << 20, '[')));
  opt.chunk_bytes = 4096;
  opt.max_line_bytes = size_t{1} << 20;
  ASSERT_OK_AND_ASSIGN(auto reader, DebeziumReader::Open(MakeSchema("id INT"), path.string(), opt));
  EXPECT_THAT(ReadAllRowsWithPositions(*reader),
              test::HasErrorMessage("line 2: the line is longer than 1048576 bytes (max_line_bytes)"));
  // A 3 MB line within the limit decodes.
  const std::string long_name(3 << 20, 'n');
  ASSERT_TRUE(test::WriteFile(path, ok + "\n" + Event("c", "null", R"({"id":2,"name":")" + long_name + "\"}") + "\n"));
  opt = {};
  opt.chunk_bytes = 4096;
  ASSERT_OK_AND_ASSIGN(reader, DebeziumReader::Open(MakeSchema("id INT, name STRING"), path.string(), opt));
  ASSERT_OK_AND_ASSIGN(std::string rows, ReadAllRowsWithPositions(*reader));
  EXPECT_EQ(rows.size(), long_name.size() + 58) << rows.substr(0, 200);
  test::RemoveTestDirIfPassed(dir);
}


// --- Debezium's default value encodings ---

/// The golden expected table with the added columns, as the JSONL decoder
/// reads it.
std::string ExpectedEncodedTable(const std::string& name) {
  const std::string rows = test::ExpectedEncodedRows(GoldenCdc(name));
  auto reader = JsonlReader::FromString(MakeSchema(test::kProductsEncoded), rows);
  EXPECT_OK(reader);
  if (!reader) return "";
  auto out = ReadAllRows(**reader);
  EXPECT_OK(out);
  return out ? *out : "";
}

TEST(DebeziumEncodings, GoldenStreamsWithDefaultEncodingsGiveTheExpectedTables) {
  for (bool with_schema : {true, false}) {
    SCOPED_TRACE(with_schema ? "with the envelope's schema" : "from the column types");
    const std::string input = test::ReencodeGolden(GoldenCdc("debezium_postgres_products.jsonl"), with_schema);
    ASSERT_OK_AND_ASSIGN(std::string rows, Decode(test::kProductsEncoded, input));
    EXPECT_EQ(std::count(rows.begin(), rows.end(), '\n'), 20);
    const std::string expected = ExpectedEncodedTable("debezium_postgres_products.expected.jsonl");
    ASSERT_EQ(std::count(expected.begin(), expected.end(), '\n'), 10);
    EXPECT_EQ(Fold(rows), expected);
    // The weights are decimals now: 3.14 arrived as the bytes of 3140.
    EXPECT_NE(rows.find(R"("weight":"3.140")"), std::string::npos) << rows.substr(0, 300);

    // Replica identity default: the keyless delete is rejected, the rest applies.
    const std::string ri = test::ReencodeGolden(GoldenCdc("debezium_postgres_replica_identity_default.jsonl"), with_schema);
    std::vector<RejectedRow> rejected;
    DecodeOptions opt;
    opt.reject = CollectRejects(&rejected);
    ASSERT_OK_AND_ASSIGN(rows, Decode(test::kProductsEncoded, ri, opt));
    EXPECT_EQ(Fold(rows),
              ExpectedEncodedTable("debezium_postgres_replica_identity_default.expected.jsonl"));
    EXPECT_EQ(rejected.size(), 1u);
  }
}

/// Decodes one `after` value of column `c` of type `type`, with the schema
/// field `schema_field` (a Connect schema's field object without "field";
/// empty: no schema), printed as a row; or the error.
std::string One(std::string_view type, std::string_view value, std::string_view schema_field = "") {
  const std::string event = fmt::format(
      R"({{"before":null,"after":{{"c":{}}},"source":{{"lsn":1}},"op":"c"}})", value);
  std::string line = event;
  if (!schema_field.empty()) {
    std::string field(schema_field);
    field.insert(field.size() - 1, R"(,"field":"c")");
    line = fmt::format(
        R"({{"schema":{{"type":"struct","fields":[{{"type":"struct","fields":[{}],"field":"after"}}]}},"payload":{}}})",
        field, event);
  }
  auto r = Decode(fmt::format("c {}", type), line);
  if (!r) return r.error().message;
  return r->substr(3, r->find(" @") - 3);
}

TEST(DebeziumEncodings, EachSemanticType) {
  // io.debezium.time.Date and Connect's Date: days.
  EXPECT_EQ(One("DATE", "18262"), R"({"c":"2020-01-01"})");
  EXPECT_EQ(One("DATE", "-1", R"({"type":"int32","name":"org.apache.kafka.connect.data.Date"})"),
            R"({"c":"1969-12-31"})");
  EXPECT_EQ(One("DATE", R"("2020-01-01")"), R"({"c":"2020-01-01"})");  // ISO text still
  // Time (ms), MicroTime, NanoTime; the default (no schema) is micros.
  EXPECT_EQ(One("TIME", "3723500", R"({"type":"int32","name":"io.debezium.time.Time"})"),
            R"({"c":"01:02:03.500000"})");
  EXPECT_EQ(One("TIME", "3723500000", R"({"type":"int64","name":"io.debezium.time.MicroTime"})"),
            R"({"c":"01:02:03.500000"})");
  EXPECT_EQ(One("TIME", "3723500000000", R"({"type":"int64","name":"io.debezium.time.NanoTime"})"),
            R"({"c":"01:02:03.500000"})");
  EXPECT_EQ(One("TIME", "3723500000"), R"({"c":"01:02:03.500000"})");
  // ZonedTime: ISO text with a zone, kept as UTC.
  EXPECT_EQ(One("TIME", R"("01:02:03.5Z")", R"({"type":"string","name":"io.debezium.time.ZonedTime"})"),
            R"({"c":"01:02:03.500000"})");
  EXPECT_EQ(One("TIME", R"("01:02:03+02:00")"), R"({"c":"23:02:03.000000"})");
  // Timestamp (ms), MicroTimestamp, NanoTimestamp; the default is the column's unit.
  EXPECT_EQ(One("TIMESTAMP", "1577836800123", R"({"type":"int64","name":"io.debezium.time.Timestamp"})"),
            R"({"c":"2020-01-01T00:00:00.123000"})");
  EXPECT_EQ(One("TIMESTAMP", "1577836800123456", R"({"type":"int64","name":"io.debezium.time.MicroTimestamp"})"),
            R"({"c":"2020-01-01T00:00:00.123456"})");
  EXPECT_EQ(One("TIMESTAMP_NS", "1577836800123456789", R"({"type":"int64","name":"io.debezium.time.NanoTimestamp"})"),
            R"({"c":"2020-01-01T00:00:00.123456789"})");
  EXPECT_EQ(One("TIMESTAMP", "1577836800123456"), R"({"c":"2020-01-01T00:00:00.123456"})");
  EXPECT_EQ(One("TIMESTAMP", "1577836800123456789", R"({"type":"int64","name":"io.debezium.time.NanoTimestamp"})"),
            "line 1, column 'c' of the after image: value 1577836800123456789 (ns) is finer than "
            "TIMESTAMP holds");
  EXPECT_EQ(One("TIMESTAMP", "9223372036854775807", R"({"type":"int64","name":"io.debezium.time.Timestamp"})"),
            "line 1, column 'c' of the after image: value 9223372036854775807 (ms) overflows TIMESTAMP");
  // ZonedTimestamp: ISO text.
  EXPECT_EQ(One("TIMESTAMPTZ", R"("2020-01-01T02:00:00+02:00")", R"({"type":"string","name":"io.debezium.time.ZonedTimestamp"})"),
            R"({"c":"2020-01-01T00:00:00.000000+00:00"})");
  // Decimal: base64 of the unscaled bytes at the schema's scale, rescaled to the column's.
  const std::string dec = R"({"type":"bytes","name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"2"}})";
  EXPECT_EQ(One("DECIMAL(10,3)", "\"" + test::DecimalBase64(12345) + "\"", dec), R"({"c":"123.450"})");
  EXPECT_EQ(One("DECIMAL(10,2)", "\"" + test::DecimalBase64(-1) + "\"", dec), R"({"c":"-0.01"})");
  EXPECT_EQ(One("DECIMAL(10,1)", "\"" + test::DecimalBase64(12345) + "\"", dec),
            "line 1, column 'c' of the after image: value '" + test::DecimalBase64(12345) +
                "' (scale 2) has more than 1 fraction digits (DECIMAL(10, 1))");
  EXPECT_EQ(One("DECIMAL(3,2)", "\"" + test::DecimalBase64(12345) + "\"", dec),
            "line 1, column 'c' of the after image: value '" + test::DecimalBase64(12345) +
                "' (scale 2) does not fit DECIMAL(3, 2)");
  // Without a schema: base64 at the column's scale; text with other characters as text.
  EXPECT_EQ(One("DECIMAL(10,2)", "\"" + test::DecimalBase64(12345) + "\""), R"({"c":"123.45"})");
  EXPECT_EQ(One("DECIMAL(10,2)", R"("123.45")"), R"({"c":"123.45"})");
  EXPECT_EQ(One("DECIMAL(10,2)", "123.45"), R"({"c":"123.45"})");  // decimal.handling.mode=double
  // A string schema (decimal.handling.mode=string): text, even of digits only.
  EXPECT_EQ(One("DECIMAL(10,0)", R"("1234")", R"({"type":"string"})"), R"({"c":"1234"})");
  EXPECT_EQ(One("DECIMAL(10,0)", R"("1234")"), R"({"c":"-2658824"})");  // base64 D76DF8
  // VariableScaleDecimal.
  EXPECT_EQ(One("DECIMAL(10,3)", R"({"scale":1,"value":")" + test::DecimalBase64(-15) + R"("})",
                R"({"type":"struct","name":"io.debezium.data.VariableScaleDecimal"})"),
            R"({"c":"-1.500"})");
  EXPECT_EQ(One("DECIMAL(10,3)", R"({"value":"AA=="})"),
            "line 1, column 'c' of the after image: expected {\"scale\":S,\"value\":\"<base64>\"} "
            "(io.debezium.data.VariableScaleDecimal) for DECIMAL(10, 3)");
  // Bytes and Bits: base64.
  EXPECT_EQ(One("BINARY", R"("3q2+7w==")", R"({"type":"bytes"})"), R"({"c":"deadbeef"})");
  EXPECT_EQ(One("BINARY", R"("BQ==")", R"({"type":"bytes","name":"io.debezium.data.Bits","parameters":{"length":"3"}})"),
            R"({"c":"05"})");
  EXPECT_EQ(One("BINARY", R"("3q2+7w")"),
            "line 1, column 'c' of the after image: value '3q2+7w' is not base64 (its length is "
            "not a multiple of 4)");
  EXPECT_EQ(One("BINARY", R"("deadbeef")", R"({"type":"string"})"), R"({"c":"deadbeef"})");  // hex mode
  // Json, Uuid, Enum, Year: strings and integers as the JSONL rules take them.
  EXPECT_EQ(One("STRING", R"("{\"a\":1}")", R"({"type":"string","name":"io.debezium.data.Json"})"),
            R"({"c":"{\"a\":1}"})");
  EXPECT_EQ(One("UUID", R"("f81d4fae-7dec-11d0-a765-00a0c91e6bf6")", R"({"type":"string","name":"io.debezium.data.Uuid"})"),
            R"({"c":"f81d4fae-7dec-11d0-a765-00a0c91e6bf6"})");
  EXPECT_EQ(One("STRING", R"("red")", R"({"type":"string","name":"io.debezium.data.Enum","parameters":{"allowed":"red,green"}})"),
            R"({"c":"red"})");
  EXPECT_EQ(One("INT", "2024", R"({"type":"int32","name":"io.debezium.time.Year"})"), R"({"c":2024})");
}

TEST(DebeziumEncodings, NewColumnInTheSchemaTransactionsAndTruncates) {
  // A column of the event's schema that the table lacks: an error naming it
  // (rejectable), or dropped with ignore_unknown_keys.
  const std::string line =
      R"({"schema":{"type":"struct","fields":[{"type":"struct","fields":[{"type":"int32","field":"id"},{"type":"int32","name":"io.debezium.time.Date","field":"born"}],"field":"after"}]},"payload":)" +
      Event("c", "null", R"({"id":1,"born":3})") + "}";
  EXPECT_EQ(Rejection("id INT", line),
            "line 2: the event's schema has a column 'born' that the table lacks: floe does not "
            "evolve the table's schema from a change stream yet (add the column to the table, or "
            "set ignore_unknown_keys to drop it)");
  DecodeOptions ignore;
  ignore.ignore_unknown_keys = true;
  EXPECT_EQ(*Decode("id INT", line, ignore), "+I {\"id\":1} @1 #7\n");
  EXPECT_EQ(*Decode("id INT, born DATE", line), "+I {\"id\":1,\"born\":\"1970-01-04\"} @1 #7\n");
  // Transaction metadata (provide.transaction.metadata) is skipped.
  const std::string input =
      R"({"status":"BEGIN","id":"571:53195829","event_count":null,"data_collections":null})" "\n" +
      Event("c", "null", R"({"id":1})") + "\n" +
      R"({"status":"END","id":"571:53195829","event_count":1,"data_collections":[{"data_collection":"s.a","event_count":1}]})" "\n";
  ASSERT_OK_AND_ASSIGN(auto reader, DebeziumReader::FromString(MakeSchema("id INT"), input));
  ASSERT_OK_AND_ASSIGN(std::string rows, ReadAllRowsWithPositions(*reader));
  EXPECT_EQ(rows, "+I {\"id\":1} @2 #7\n");
  EXPECT_EQ(reader->transaction_events(), 2);
  EXPECT_EQ(reader->events_read(), 1);
  // A status that is no transaction's is still an event without an op.
  EXPECT_EQ(Rejection("id INT", R"({"status":"OPEN","id":"1"})"),
            "line 2: the event has no 'op' (expected c, r, u or d)");
}

TEST(Debezium, RegisteredAsAnInputFormat) {
  EXPECT_TRUE(HasDecoder("debezium-json"));
  EXPECT_TRUE(HasDecoder("debezium"));
  auto dir = test::FreshTestDir("debezium_");
  auto path = dir / "events.jsonl";
  ASSERT_TRUE(test::WriteFile(path, "null\n" + Event("u", R"({"id":1})", R"({"id":2})") + "\n" +
                                        Event("t", "null", "null") + "\n"));
  std::vector<RejectedRow> rejected;
  DecodeOptions opt;
  opt.reject = CollectRejects(&rejected);
  ASSERT_OK_AND_ASSIGN(auto decoder, OpenDecoder("debezium-json", MakeSchema("id INT"), path.string(), opt));
  Batch batch;
  ASSERT_OK_AND_ASSIGN(bool more, decoder->Next(&batch));
  ASSERT_TRUE(more);
  EXPECT_EQ(batch.num_rows, 2);
  ASSERT_OK_AND_ASSIGN(more, decoder->Next(&batch));
  EXPECT_FALSE(more);
  DecodeCounts counts = decoder->counts();
  EXPECT_EQ(counts.rows, 2);
  EXPECT_EQ(counts.rejected, 1);
  EXPECT_EQ(counts.tombstones, 1);
  EXPECT_THAT(OpenDecoder("debezium-json", MakeSchema("id INT"), (dir / "missing").string()),
              test::IsError(ErrorKind::kNotFound));
  test::RemoveTestDirIfPassed(dir);
}

}  // namespace debezium_reader_test
}  // namespace floe::format
