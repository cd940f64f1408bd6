// Confluent's wire format and the translation of Avro data into the JSON
// forms of floe's decoders (avro/confluent.h): every logical type, nulls and
// unions, the Connect schema of a Debezium envelope, and damaged bodies
// (truncated, trailing bytes, a bad union branch or enum index, a bad header).
// Bodies are written here byte by byte with the low-level Encoder, not with
// the generic value encoder.
#include "floe/avro/confluent.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "floe/avro/encoding.h"
#include "testing/matchers.h"

namespace floe::avro {
namespace confluent_test {

using test::HasErrorMessage;
using test::IsError;

/// Bytes built with the Encoder's primitives.
class Body {
 public:
  Body& Long(int64_t v) { return e_.WriteLong(v), *this; }
  Body& Bool(bool v) { return e_.WriteBoolean(v), *this; }
  Body& Float(float v) { return e_.WriteFloat(v), *this; }
  Body& Double(double v) { return e_.WriteDouble(v), *this; }
  Body& Bytes(std::string_view v) { return e_.WriteBytes(v), *this; }
  Body& Fixed(std::string_view v) { return e_.WriteFixed(v), *this; }
  std::string str() const { return std::string(reinterpret_cast<const char*>(b_.data()), b_.size()); }

 private:
  Buffer b_;
  Encoder e_{&b_};
};

std::string Json(std::string_view schema, const std::string& body, JsonDialect d = JsonDialect::kRow) {
  auto t = DatumToJson::Make(schema, d);
  EXPECT_OK(t);
  if (!t) return {};
  std::string out;
  Status st = (*t)->Append(body, &out);
  EXPECT_OK(st);
  return out;
}

Status AppendError(std::string_view schema, const std::string& body, JsonDialect d = JsonDialect::kRow) {
  auto t = DatumToJson::Make(schema, d);
  if (!t) return Fail(t.error());
  std::string out = "kept";
  Status st = (*t)->Append(body, &out);
  EXPECT_EQ(out, "kept");  // an error leaves the output as it was
  return st;
}

TEST(ConfluentFrame, HeaderIsMagicByteAndBigEndianId) {
  EXPECT_EQ(ConfluentHeader(0x01020304), std::string("\x00\x01\x02\x03\x04", 5));
  const std::string value = ConfluentHeader(258) + "body", header = ConfluentHeader(7);  // the frames view them
  ASSERT_OK_AND_ASSIGN(auto f, ParseConfluentFrame(value));
  EXPECT_EQ(f.schema_id, 258);
  EXPECT_EQ(f.body, "body");
  ASSERT_OK_AND_ASSIGN(auto empty, ParseConfluentFrame(header));
  EXPECT_EQ(empty.schema_id, 7);
  EXPECT_EQ(empty.body, "");
}

TEST(ConfluentFrame, RefusesValuesWithoutTheHeader) {
  EXPECT_THAT(ParseConfluentFrame(R"({"id":1})"),
              testing::AllOf(IsError(ErrorKind::kCorrupt), HasErrorMessage("the first byte is 0x7b, not the magic byte")));
  EXPECT_THAT(ParseConfluentFrame(std::string("\x00\x00\x01", 3)),
              testing::AllOf(IsError(ErrorKind::kCorrupt), HasErrorMessage("3 bytes, shorter than the 5-byte header")));
  EXPECT_THAT(ParseConfluentFrame(""), HasErrorMessage("0 bytes"));
}

constexpr const char* kPrimitives = R"({"type":"record","name":"P","fields":[
  {"name":"b","type":"boolean"},{"name":"i","type":"int"},{"name":"l","type":"long"},
  {"name":"f","type":"float"},{"name":"d","type":"double"},{"name":"s","type":"string"},
  {"name":"y","type":"bytes"},{"name":"x","type":{"type":"fixed","name":"F3","size":3}},
  {"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"]}},{"name":"n","type":"null"}]})";

TEST(DatumToJson, PrimitivesInTheJsonlForms) {
  const std::string body = Body()
                               .Bool(true)
                               .Long(-7)
                               .Long(INT64_MIN)
                               .Float(0.1f)
                               .Double(2.5)
                               .Bytes("q\"\\\n\x01")
                               .Bytes(std::string("\x00\xff", 2))
                               .Fixed("abc")
                               .Long(1)
                               .str();
  EXPECT_EQ(Json(kPrimitives, body),
            R"({"b":true,"i":-7,"l":-9223372036854775808,"f":0.10000000149011612,"d":2.5,"s":"q\"\\\n\u0001",)"
            R"("y":"00ff","x":"616263","e":"B","n":null})");
  // Connect's forms: bytes and fixed as base64 (a null field has no Connect
  // schema: the Connect form refuses it).
  std::string connect = kPrimitives;
  connect.erase(connect.find(R"(,{"name":"n")"), std::string_view(R"(,{"name":"n","type":"null"})").size());
  EXPECT_EQ(Json(connect, body, JsonDialect::kConnect),
            R"({"b":true,"i":-7,"l":-9223372036854775808,"f":0.10000000149011612,"d":2.5,"s":"q\"\\\n\u0001",)"
            R"("y":"AP8=","x":"YWJj","e":"B"})");
  EXPECT_THAT(DatumToJson::Make(kPrimitives, JsonDialect::kConnect), HasErrorMessage("field 'n': a field of type null"));
}

TEST(DatumToJson, NanAndInfinitiesAsTheStringsTheDecodersTake) {
  constexpr const char* schema =
      R"({"type":"record","name":"R","fields":[{"name":"a","type":"double"},{"name":"b","type":"float"},{"name":"c","type":"double"}]})";
  const std::string body = Body()
                               .Double(std::numeric_limits<double>::quiet_NaN())
                               .Float(-std::numeric_limits<float>::infinity())
                               .Double(std::numeric_limits<double>::infinity())
                               .str();
  EXPECT_EQ(Json(schema, body), R"({"a":"NaN","b":"-Infinity","c":"Infinity"})");
}

constexpr const char* kLogical = R"({"type":"record","name":"L","fields":[
  {"name":"date","type":{"type":"int","logicalType":"date"}},
  {"name":"tms","type":{"type":"int","logicalType":"time-millis"}},
  {"name":"tus","type":{"type":"long","logicalType":"time-micros"}},
  {"name":"tsms","type":{"type":"long","logicalType":"timestamp-millis"}},
  {"name":"tsus","type":{"type":"long","logicalType":"timestamp-micros"}},
  {"name":"tsns","type":{"type":"long","logicalType":"timestamp-nanos"}},
  {"name":"ltsms","type":{"type":"long","logicalType":"local-timestamp-millis"}},
  {"name":"ltsus","type":{"type":"long","logicalType":"local-timestamp-micros"}},
  {"name":"dec","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}},
  {"name":"fdec","type":{"type":"fixed","name":"D5","size":5,"logicalType":"decimal","precision":12,"scale":4}},
  {"name":"uuid","type":{"type":"string","logicalType":"uuid"}},
  {"name":"fuuid","type":{"type":"fixed","name":"U16","size":16,"logicalType":"uuid"}}]})";

std::string LogicalBody(int32_t date, int32_t tms, int64_t tus, int64_t ts_ms, int64_t ts_us, std::string dec) {
  return Body()
      .Long(date)
      .Long(tms)
      .Long(tus)
      .Long(ts_ms)
      .Long(ts_us)
      .Long(ts_us * 1000 + 7)
      .Long(ts_ms)
      .Long(ts_us)
      .Bytes(dec)
      .Fixed(std::string("\xff\xff\xff\xfe\x0c", 5))  // -500 at scale 4
      .Bytes("f79c3e09-677c-4bbd-a479-3f349cb785e7")
      .Fixed(std::string("\xf7\x9c\x3e\x09\x67\x7c\x4b\xbd\xa4\x79\x3f\x34\x9c\xb7\x85\xe7", 16))
      .str();
}

TEST(DatumToJson, EveryLogicalTypeAsIsoTextOrExactDecimal) {
  // 2017-11-16, 22:31:08.123, 22:31:08.123456, 2017-11-16T22:31:08.123Z; 12345.67 as 0x12d687.
  const int64_t ts_ms = int64_t{1510871468123};
  EXPECT_EQ(Json(kLogical, LogicalBody(17486, 81068123, int64_t{81068123456}, ts_ms, ts_ms * 1000 + 456,
                                       std::string("\x12\xd6\x87", 3))),
            R"({"date":"2017-11-16","tms":"22:31:08.123","tus":"22:31:08.123456",)"
            R"("tsms":"2017-11-16T22:31:08.123000","tsus":"2017-11-16T22:31:08.123456",)"
            R"("tsns":"2017-11-16T22:31:08.123456007","ltsms":"2017-11-16T22:31:08.123000",)"
            R"("ltsus":"2017-11-16T22:31:08.123456","dec":"12345.67","fdec":"-0.0500",)"
            R"("uuid":"f79c3e09-677c-4bbd-a479-3f349cb785e7","fuuid":"f79c3e09-677c-4bbd-a479-3f349cb785e7"})");
  // Before the epoch, and far years; negative decimals and zero.
  EXPECT_EQ(Json(kLogical, LogicalBody(-1, 0, 0, -1, -1, std::string("\xff", 1))),
            R"({"date":"1969-12-31","tms":"00:00:00.000","tus":"00:00:00.000000",)"
            R"("tsms":"1969-12-31T23:59:59.999000","tsus":"1969-12-31T23:59:59.999999",)"
            R"("tsns":"1969-12-31T23:59:59.999999007","ltsms":"1969-12-31T23:59:59.999000",)"
            R"("ltsus":"1969-12-31T23:59:59.999999","dec":"-0.01","fdec":"-0.0500",)"
            R"("uuid":"f79c3e09-677c-4bbd-a479-3f349cb785e7","fuuid":"f79c3e09-677c-4bbd-a479-3f349cb785e7"})");
  EXPECT_NE(Json(kLogical, LogicalBody(3000000, 0, 0, 0, 0, "")).find(R"("date":"+10183-09-21")"), std::string::npos);
  EXPECT_NE(Json(kLogical, LogicalBody(0, 0, 0, 0, 0, "")).find(R"("dec":"0.00")"), std::string::npos);
}

TEST(DatumToJson, WideDecimalsAreExact) {
  constexpr const char* schema =
      R"({"type":"record","name":"R","fields":[{"name":"d","type":{"type":"bytes","logicalType":"decimal","precision":60,"scale":3}}]})";
  // 2^127 = 170141183460469231731687303715884105728 (17 bytes with the sign byte), scale 3.
  std::string b(17, '\0');
  b[1] = '\x80';
  EXPECT_EQ(Json(schema, Body().Bytes(b).str()), R"({"d":"170141183460469231731687303715884105.728"})");
  // -(2^127) in 16 bytes.
  std::string n(16, '\0');
  n[0] = '\x80';
  EXPECT_EQ(Json(schema, Body().Bytes(n).str()), R"({"d":"-170141183460469231731687303715884105.728"})");
}

TEST(DatumToJson, LogicalTypesStayIntegersInConnectForm) {
  const int64_t ts_ms = int64_t{1510871468123};
  const std::string json =
      Json(kLogical, LogicalBody(17486, 81068123, 5, ts_ms, 6, std::string("\x12\xd6\x87", 3)), JsonDialect::kConnect);
  EXPECT_EQ(json.substr(0, json.find(",\"dec\"")),
            R"({"date":17486,"tms":81068123,"tus":5,"tsms":1510871468123,"tsus":6,"tsns":6007,"ltsms":1510871468123,)"
            R"("ltsus":6)");
  EXPECT_NE(json.find(R"("dec":"EtaH","fdec":"/////gw=")"), std::string::npos) << json;
}

TEST(DatumToJson, OutOfRangeTimesAndTimestampsAreErrorsNamingTheField) {
  const std::string day_ms = LogicalBody(0, 86400000, 0, 0, 0, "");
  EXPECT_THAT(AppendError(kLogical, day_ms),
              testing::AllOf(IsError(ErrorKind::kInvalidArgument),
                             HasErrorMessage("field 'tms': time-millis value 86400000 is not a time of day")));
  EXPECT_THAT(AppendError(kLogical, LogicalBody(0, 0, -1, 0, 0, "")), HasErrorMessage("field 'tus': time-micros value -1"));
  EXPECT_THAT(AppendError(kLogical, LogicalBody(0, 0, 0, INT64_MAX, 0, "")),
              HasErrorMessage("field 'tsms': timestamp-millis value 9223372036854775807 is beyond the years"));
}

constexpr const char* kUnions = R"({"type":"record","name":"U","fields":[
  {"name":"opt","type":["null","long"],"default":null},
  {"name":"rev","type":["string","null"]},
  {"name":"multi","type":["null","string","double"]},
  {"name":"arr","type":{"type":"array","items":["null","int"]}},
  {"name":"map","type":{"type":"map","values":"string"}},
  {"name":"rec","type":["null",{"type":"record","name":"In","fields":[{"name":"a","type":"int"}]}]}]})";

TEST(DatumToJson, NullsUnionsArraysMapsAndNestedRecords) {
  const std::string values = Body()
                                 .Long(1).Long(42)       // opt: long 42
                                 .Long(1)                // rev: null
                                 .Long(2).Double(1.5)    // multi: double
                                 .Long(-2).Long(3)       // arr: a block of 2 items (negative count + byte size)
                                 .Long(0).Long(1).Long(-5)
                                 .Long(0)
                                 .Long(1).Bytes("k\"").Bytes("v").Long(0)  // map
                                 .Long(1).Long(9)        // rec
                                 .str();
  EXPECT_EQ(Json(kUnions, values),
            R"({"opt":42,"rev":null,"multi":1.5,"arr":[null,-5],"map":{"k\"":"v"},"rec":{"a":9}})");
  const std::string nulls = Body().Long(0).Long(0).Bytes("s").Long(0).Long(0).Long(0).Long(0).str();
  EXPECT_EQ(Json(kUnions, nulls), R"({"opt":null,"rev":"s","multi":null,"arr":[],"map":{},"rec":null})");
}

TEST(DatumToJson, DamagedBodiesAreCorruptWithoutOutput) {
  const std::string good = Body().Long(1).Long(42).Long(1).Long(0).Long(0).Long(0).Long(0).str();
  ASSERT_EQ(Json(kUnions, good), R"({"opt":42,"rev":null,"multi":null,"arr":[],"map":{},"rec":null})");
  // Truncated at every length.
  for (size_t n = 0; n < good.size(); ++n) {
    EXPECT_THAT(AppendError(kUnions, good.substr(0, n)), IsError(ErrorKind::kCorrupt)) << n;
  }
  // Trailing bytes.
  EXPECT_THAT(AppendError(kUnions, good + "xy"),
              testing::AllOf(IsError(ErrorKind::kCorrupt), HasErrorMessage("2 bytes follow the datum")));
  // A union branch and an enum index out of range; a boolean byte 2; a
  // length beyond the body.
  EXPECT_THAT(AppendError(kUnions, Body().Long(2).str()), HasErrorMessage("field 'opt': avro: union branch 2 of a union of 2"));
  const std::string prim = Body().Bool(true).Long(0).Long(0).Float(0).Double(0).Bytes("").Bytes("").Fixed("abc").Long(2).str();
  EXPECT_THAT(AppendError(kPrimitives, prim), HasErrorMessage("field 'e': avro: enum index 2 of E (2 symbols)"));
  EXPECT_THAT(AppendError(kPrimitives, std::string("\x02", 1)), HasErrorMessage("boolean byte 2"));
  EXPECT_THAT(AppendError(kPrimitives, Body().Bool(true).Long(0).Long(0).Float(0).Double(0).Bytes("a\xff").str()),
              HasErrorMessage("field 's': avro: a string that is not valid UTF-8"));
  EXPECT_THAT(AppendError(kUnions, Body().Long(0).Long(1).Long(0).Long(0).Long(1).Bytes("\xc0\x80").str()),
              HasErrorMessage("field 'map': avro: a map key that is not valid UTF-8"));
  EXPECT_THAT(AppendError(kPrimitives, Body().Bool(true).Long(0).Long(0).Float(0).Double(0).Long(100).str()),
              HasErrorMessage("field 's': avro: length 100 exceeds"));
  // A block of more items than bytes left; a huge block of empty items.
  EXPECT_THAT(AppendError(kUnions, Body().Long(0).Long(1).Long(0).Long(1000000).str()),
              HasErrorMessage("block of 1000000 items exceeds"));
  constexpr const char* empties = R"({"type":"record","name":"R","fields":[{"name":"a","type":{"type":"array","items":"null"}}]})";
  EXPECT_THAT(AppendError(empties, Body().Long(int64_t{1} << 40).str()), HasErrorMessage("items that take no bytes"));
  EXPECT_EQ(Json(empties, Body().Long(3).Long(0).str()), R"({"a":[null,null,null]})");
}

TEST(DatumToJson, RefusesSchemasThatAreNotRecords) {
  EXPECT_THAT(DatumToJson::Make(R"("string")", JsonDialect::kRow),
              testing::AllOf(IsError(ErrorKind::kInvalidArgument), HasErrorMessage("is string, not a record")));
  EXPECT_THAT(DatumToJson::Make(R"({"type":"record","name":"R","fields":[{"name":"a","type":"nope"}]})", JsonDialect::kRow),
              IsError(ErrorKind::kInvalidArgument));
  EXPECT_THAT(DatumToJson::Make("{", JsonDialect::kRow), IsError(ErrorKind::kInvalidArgument));
}

TEST(DatumToJson, RecursiveRecordsAreRefusedAndDepthIsBounded) {
  constexpr const char* list =
      R"({"type":"record","name":"Node","fields":[{"name":"v","type":"int"},{"name":"next","type":["null","Node"]}]})";
  EXPECT_THAT(DatumToJson::Make(list, JsonDialect::kRow),
              testing::AllOf(IsError(ErrorKind::kInvalidArgument), HasErrorMessage("recursive types are not supported")));
  // 150 nested records (a union each): deeper than the data may nest.
  std::string deep = "\"int\"";
  for (int i = 0; i < 150; ++i) {
    deep = R"({"type":"record","name":"R)" + std::to_string(i) + R"(","fields":[{"name":"f","type":["null",)" + deep + "]}]}";
  }
  auto made = DatumToJson::Make(deep, JsonDialect::kRow);
  if (made) {
    Body b;
    for (int i = 0; i < 150; ++i) b.Long(1);
    b.Long(5);
    std::string out;
    EXPECT_THAT((*made)->Append(b.str(), &out), HasErrorMessage("nests deeper than"));
  } else {
    EXPECT_THAT(made, HasErrorMessage("deep"));  // or the schema parser refuses it first
  }
}

// The Avro schema Confluent's AvroConverter writes for a Debezium envelope
// (as the Schema Registry holds it), and the Connect schema floe gives the
// Debezium decoder for it.
constexpr const char* kEnvelope = R"({"type":"record","name":"Envelope","namespace":"dbserver1.inventory.orders",
  "fields":[
    {"name":"before","type":["null",{"type":"record","name":"Value","fields":[
      {"name":"id","type":"int"},
      {"name":"small","type":["null",{"type":"int","connect.type":"int16"}],"default":null},
      {"name":"day","type":["null",{"type":"int","connect.version":1,"connect.name":"io.debezium.time.Date"}],"default":null},
      {"name":"price","type":["null",{"type":"bytes","scale":2,"precision":8,"connect.version":1,
        "connect.parameters":{"scale":"2","connect.decimal.precision":"8"},
        "connect.name":"org.apache.kafka.connect.data.Decimal","logicalType":"decimal"}],"default":null},
      {"name":"vsd","type":["null",{"type":"record","name":"VariableScaleDecimal","namespace":"io.debezium.data",
        "fields":[{"name":"scale","type":"int"},{"name":"value","type":"bytes"}],
        "connect.doc":"Variable scaled decimal","connect.version":1,"connect.name":"io.debezium.data.VariableScaleDecimal"}],"default":null},
      {"name":"ts","type":{"type":"long","logicalType":"timestamp-micros"}}],
      "connect.name":"dbserver1.inventory.orders.Value"}],"default":null},
    {"name":"after","type":["null","Value"],"default":null},
    {"name":"op","type":"string"},
    {"name":"ts_ms","type":["null","long"],"default":null}],
  "connect.name":"dbserver1.inventory.orders.Envelope"})";

TEST(DatumToJson, ConnectSchemaOfADebeziumEnvelope) {
  ASSERT_OK_AND_ASSIGN(auto t, DatumToJson::Make(kEnvelope, JsonDialect::kConnect));
  const auto j = nlohmann::json::parse(t->connect_schema());
  const auto value = nlohmann::json::parse(R"({"type":"struct","fields":[
      {"type":"int32","optional":false,"field":"id"},
      {"type":"int16","optional":true,"field":"small"},
      {"type":"int32","optional":true,"name":"io.debezium.time.Date","version":1,"field":"day"},
      {"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","version":1,
       "parameters":{"scale":"2","connect.decimal.precision":"8"},"field":"price"},
      {"type":"struct","fields":[{"type":"int32","optional":false,"field":"scale"},{"type":"bytes","optional":false,"field":"value"}],
       "optional":true,"name":"io.debezium.data.VariableScaleDecimal","version":1,"field":"vsd"},
      {"type":"int64","optional":false,"name":"io.debezium.time.MicroTimestamp","field":"ts"}],
    "optional":true,"name":"dbserver1.inventory.orders.Value"})");
  nlohmann::json before = value, after = value;
  before["field"] = "before";
  after["field"] = "after";
  const auto expected = nlohmann::json{{"type", "struct"},
                                       {"fields",
                                        {before, after, {{"type", "string"}, {"optional", false}, {"field", "op"}},
                                         {{"type", "int64"}, {"optional", true}, {"field", "ts_ms"}}}},
                                       {"optional", false},
                                       {"name", "dbserver1.inventory.orders.Envelope"}};
  EXPECT_EQ(j, expected) << j.dump(1);
  // An update: the payload in Connect's forms.
  const std::string body = Body()
                               .Long(1).Long(7).Long(0).Long(0).Long(0).Long(0).Long(5)                 // before
                               .Long(1).Long(7).Long(1).Long(-3).Long(1).Long(17486).Long(1)
                               .Bytes(std::string("\x30\x39", 2)).Long(1).Long(3).Bytes(std::string("\x01", 1))
                               .Long(6)                                                                   // after
                               .Bytes("u").Long(1).Long(99)
                               .str();
  std::string out;
  ASSERT_OK(t->Append(body, &out));
  EXPECT_EQ(out,
            R"({"before":{"id":7,"small":null,"day":null,"price":null,"vsd":null,"ts":5},)"
            R"("after":{"id":7,"small":-3,"day":17486,"price":"MDk=","vsd":{"scale":3,"value":"AQ=="},"ts":6},)"
            R"("op":"u","ts_ms":99})");
}

TEST(DatumToJson, ConnectSchemaRefusesUnionsOfSeveralTypes) {
  EXPECT_THAT(DatumToJson::Make(kUnions, JsonDialect::kConnect),
              testing::AllOf(IsError(ErrorKind::kInvalidArgument), HasErrorMessage("field 'multi': a union of 3 branches")));
}

}  // namespace confluent_test
}  // namespace floe::avro
