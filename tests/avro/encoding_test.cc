// Avro binary encoding: spec vectors, every type round trip, unions, blocked
// arrays with negative counts, resolution by field id.
#include "floe/avro/encoding.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

#include "testing/hex.h"
#include "testing/matchers.h"

namespace floe::avro {
namespace encoding_test {

using namespace std::string_literals;

std::string Hex(const Buffer& b) { return test::Hex(b.data(), b.size()); }

std::string EncodeLong(int64_t v) {
  Buffer b;
  Encoder e(&b);
  e.WriteLong(v);
  return Hex(b);
}

TEST(AvroEncoding, ZigZagVarintSpecVectors) {
  // Avro spec, Binary Encoding: 0->00, -1->01, 1->02, -2->03, 2->04, -64->7f, 64->80 01.
  EXPECT_EQ(EncodeLong(0), "00");
  EXPECT_EQ(EncodeLong(-1), "01");
  EXPECT_EQ(EncodeLong(1), "02");
  EXPECT_EQ(EncodeLong(-2), "03");
  EXPECT_EQ(EncodeLong(2), "04");
  EXPECT_EQ(EncodeLong(-64), "7f");
  EXPECT_EQ(EncodeLong(64), "8001");
  EXPECT_EQ(EncodeLong(8192), "808001");
  EXPECT_EQ(EncodeLong(std::numeric_limits<int64_t>::max()), "feffffffffffffffff01");
  EXPECT_EQ(EncodeLong(std::numeric_limits<int64_t>::min()), "ffffffffffffffffff01");
}

TEST(AvroEncoding, VarintDecodeRoundTripAndErrors) {
  for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{63}, int64_t{-65}, int64_t{1} << 40,
                    std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()}) {
    Buffer b;
    Encoder e(&b);
    e.WriteLong(v);
    Decoder d(b.data(), b.size());
    auto r = d.ReadLong();
    ASSERT_TRUE(r) << v;
    EXPECT_EQ(*r, v);
    EXPECT_EQ(d.remaining(), 0u);
  }
  // Truncated.
  Decoder t(std::string_view("\x80"));
  EXPECT_EQ(t.ReadLong().error().kind, ErrorKind::kCorrupt);
  // 11 continuation bytes.
  std::string longer(11, '\xff');
  Decoder o(longer);
  EXPECT_EQ(o.ReadLong().error().kind, ErrorKind::kCorrupt);
  // int out of range.
  Buffer b;
  Encoder e(&b);
  e.WriteLong(int64_t{1} << 33);
  Decoder d(b.data(), b.size());
  EXPECT_EQ(d.ReadInt().error().kind, ErrorKind::kCorrupt);
}

TEST(AvroEncoding, PrimitiveBytes) {
  Buffer b;
  Encoder e(&b);
  e.WriteString("foo");  // spec: 06 66 6f 6f
  e.WriteBoolean(true);
  e.WriteFloat(1.0f);   // 00 00 80 3f
  e.WriteDouble(-2.0);  // 00 .. 00 c0
  EXPECT_EQ(Hex(b), "06666f6f01" "0000803f" "00000000000000c0");
}

Result<Value> RoundTrip(const NodePtr& schema, const Value& v, std::string* hex = nullptr) {
  Buffer b;
  Encoder e(&b);
  FLOE_RETURN_IF_ERROR(EncodeValue(*schema, v, &e));
  if (hex) *hex = Hex(b);
  Decoder d(b.data(), b.size());
  FLOE_ASSIGN_OR_RETURN(Value out, DecodeValue(schema, &d));
  if (d.remaining() != 0) return Internal("{} bytes left", d.remaining());
  return out;
}

TEST(AvroEncoding, EveryTypeRoundTrips) {
  auto schema = AvroSchema::Parse(R"({"type":"record","name":"all","fields":[
    {"name":"n","type":"null"},
    {"name":"b","type":"boolean"},
    {"name":"i","type":"int"},
    {"name":"l","type":"long"},
    {"name":"f","type":"float"},
    {"name":"d","type":"double"},
    {"name":"by","type":"bytes"},
    {"name":"s","type":"string"},
    {"name":"e","type":{"type":"enum","name":"color","symbols":["RED","GREEN"]}},
    {"name":"a","type":{"type":"array","items":"long"}},
    {"name":"m","type":{"type":"map","values":"string"}},
    {"name":"u","type":["null","string"]},
    {"name":"x","type":{"type":"fixed","name":"f4","size":4}},
    {"name":"r","type":{"type":"record","name":"inner","fields":[{"name":"z","type":"int"}]}}
  ]})");
  ASSERT_TRUE(schema) << schema.error().ToString();
  const NodePtr& root = schema->root();
  NodePtr inner = root->fields[13].type;
  Value v = Value::Record(root, {
      Value::Null(), Value::Boolean(true), Value::Int(-7), Value::Long(int64_t{1} << 50),
      Value::Float(1.5f), Value::Double(-0.25), Value::Bytes(std::string("\0\xff", 2)),
      Value::String("héllo"), Value::Enum(1, "GREEN"),
      Value::Array({Value::Long(1), Value::Long(-2), Value::Long(3)}),
      Value::Map({{"k1", Value::String("v1")}, {"k2", Value::String("")}}),
      Value::String("in union"), Value::Fixed("abcd"), Value::Record(inner, {Value::Int(42)})});
  auto out = RoundTrip(root, v);
  ASSERT_TRUE(out) << out.error().ToString();
  EXPECT_EQ(*out, v);
  EXPECT_EQ(out->field("s")->bytes(), "héllo");
  EXPECT_EQ(out->field("r")->field("z")->int_value(), 42);
  EXPECT_EQ(out->field("e")->bytes(), "GREEN");
}

// manifest_roundtrip_fuzz: a float partition value 0xff91490d (a signalling
// NaN) was read back as 0xffd1490d. Value kept floats in a double, and the
// float -> double -> float trip sets a signalling NaN's quiet bit. Floats keep
// their bits now, NaN payloads and signs included.
TEST(AvroEncoding, FloatsKeepTheirBitsSignallingNaNsToo) {
  NodePtr f = MakePrimitive(AvroType::kFloat);
  for (uint32_t bits : {0xff91490du, 0x7f800001u, 0x7fc00000u, 0xffc00001u, 0x80000000u, 0x00000001u}) {
    Value v = Value::Float(std::bit_cast<float>(bits));
    EXPECT_EQ(std::bit_cast<uint32_t>(v.float_value()), bits);
    std::string hex;
    auto out = RoundTrip(f, v, &hex);
    ASSERT_OK(out);
    EXPECT_EQ(std::bit_cast<uint32_t>(out->float_value()), bits) << hex;
    EXPECT_EQ(*out, v);
  }
  // Different NaNs are different values; -0 and +0 compare equal, as before.
  EXPECT_FALSE(Value::Float(std::bit_cast<float>(0xff91490du)) == Value::Float(std::bit_cast<float>(0xffd1490du)));
  EXPECT_EQ(Value::Float(-0.0f), Value::Float(0.0f));
}

TEST(AvroEncoding, UnionBranchIndexes) {
  NodePtr u = MakeUnion({MakePrimitive(AvroType::kNull), MakePrimitive(AvroType::kLong),
                         MakePrimitive(AvroType::kString)});
  std::string hex;
  ASSERT_OK(RoundTrip(u, Value::Null(), &hex));
  EXPECT_EQ(hex, "00");
  auto l = RoundTrip(u, Value::Long(1), &hex);
  ASSERT_OK(l);
  EXPECT_EQ(hex, "0202");
  auto s = RoundTrip(u, Value::String("a"), &hex);
  ASSERT_OK(s);
  EXPECT_EQ(hex, "040261");
  // An int value is promoted to the long branch.
  auto i = RoundTrip(u, Value::Int(3), &hex);
  ASSERT_OK(i);
  EXPECT_EQ(hex, "0206");
  EXPECT_EQ(*i, Value::Long(3));
  // A value that fits no branch.
  auto bad = RoundTrip(u, Value::Double(1), &hex);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, ErrorKind::kInvalidArgument);
  // A bad branch index on read.
  Decoder d(std::string_view("\x06"));
  EXPECT_EQ(DecodeValue(u, &d).error().kind, ErrorKind::kCorrupt);
}

TEST(AvroEncoding, BlockedArraysWithNegativeCounts) {
  NodePtr arr = MakeArray(MakePrimitive(AvroType::kInt));
  // Two blocks: count -2 with byte size 2 (items 1, 2), then count 1 (item 3), then 0.
  std::string data = "\x03\x04\x02\x04\x02\x06\x00"s;
  Decoder d(data);
  auto v = DecodeValue(arr, &d);
  ASSERT_TRUE(v) << v.error().ToString();
  EXPECT_EQ(*v, Value::Array({Value::Int(1), Value::Int(2), Value::Int(3)}));
  EXPECT_EQ(d.remaining(), 0u);
  // Map with a negative block.
  NodePtr map = MakeMap(MakePrimitive(AvroType::kLong));
  std::string m = "\x01\x06\x02\x61\x14\x00"s;  // -1 items, 3 bytes: "a" -> 10
  Decoder dm(m);
  auto mv = DecodeValue(map, &dm);
  ASSERT_TRUE(mv) << mv.error().ToString();
  EXPECT_EQ(*mv, Value::Map({{"a", Value::Long(10)}}));
  // A block count larger than the bytes left is corrupt, not a huge allocation.
  std::string huge = "\xfe\xff\xff\xff\x0f";
  Decoder dh(huge);
  EXPECT_EQ(DecodeValue(arr, &dh).error().kind, ErrorKind::kCorrupt);
  // A negative block whose byte size overruns.
  std::string over = "\x03\x7e\x02\x04";
  Decoder dov(over);
  EXPECT_EQ(DecodeValue(arr, &dov).error().kind, ErrorKind::kCorrupt);
  // An array of nulls has a cap on its count.
  NodePtr nulls = MakeArray(MakePrimitive(AvroType::kNull));
  std::string many = "\xfe\xff\xff\xff\xff\xff\xff\xff\x01";
  Decoder dn(many);
  EXPECT_EQ(DecodeValue(nulls, &dn).error().kind, ErrorKind::kCorrupt);
}

TEST(AvroEncoding, TruncatedInputIsCorruptEverywhere) {
  auto schema = AvroSchema::Parse(R"({"type":"record","name":"r","fields":[
    {"name":"s","type":"string"},{"name":"d","type":"double"},
    {"name":"a","type":{"type":"array","items":["null","long"]}}]})");
  ASSERT_OK(schema);
  Value v = Value::Record(schema->root(), {Value::String("abc"), Value::Double(2.5),
                                           Value::Array({Value::Null(), Value::Long(5)})});
  Buffer b;
  Encoder e(&b);
  ASSERT_OK(EncodeValue(*schema->root(), v, &e));
  for (size_t n = 0; n < b.size(); ++n) {
    Decoder d(b.data(), n);
    auto r = DecodeValue(schema->root(), &d);
    ASSERT_FALSE(r) << n;
    EXPECT_EQ(r.error().kind, ErrorKind::kCorrupt);
  }
}

TEST(AvroEncoding, EncodeRejectsValuesThatDoNotFit) {
  auto schema = AvroSchema::Parse(R"({"type":"record","name":"r","fields":[
    {"name":"a","type":"int"},{"name":"f","type":{"type":"fixed","name":"f2","size":2}}]})");
  ASSERT_OK(schema);
  Buffer b;
  Encoder e(&b);
  auto st = EncodeValue(*schema->root(), Value::Record(schema->root(), {Value::String("x"), Value::Fixed("ab")}), &e);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("r.a"), std::string::npos) << st.error().message;
  st = EncodeValue(*schema->root(), Value::Record(schema->root(), {Value::Int(1), Value::Fixed("abc")}), &e);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("needs 2 bytes"), std::string::npos) << st.error().message;
  st = EncodeValue(*schema->root(), Value::Record(schema->root(), {Value::Int(1)}), &e);
  ASSERT_FALSE(st);
}

// Writer: v1-like schema; reader: renamed, reordered, promoted, with an added field.
TEST(AvroResolution, ByFieldIdWithPromotionAndDefaults) {
  auto writer = AvroSchema::Parse(R"({"type":"record","name":"manifest_file","fields":[
    {"name":"path","type":"string","field-id":500},
    {"name":"count","type":"int","field-id":504},
    {"name":"ratio","type":"float","field-id":600},
    {"name":"dropped","type":"string","field-id":601},
    {"name":"parts","type":["null",{"type":"array","element-id":508,"items":
        {"type":"record","name":"r508","fields":[{"name":"contains_null","type":"boolean","field-id":509}]}}],
     "default":null,"field-id":507}]})");
  ASSERT_TRUE(writer) << writer.error().ToString();
  auto reader = AvroSchema::Parse(R"({"type":"record","name":"manifest_file","fields":[
    {"name":"ratio_d","type":"double","field-id":600},
    {"name":"manifest_path","type":"string","field-id":500},
    {"name":"count","type":["null","long"],"field-id":504},
    {"name":"added_later","type":["null","long"],"default":null,"field-id":700},
    {"name":"with_default","type":"int","default":7,"field-id":701},
    {"name":"parts","type":["null",{"type":"array","element-id":508,"items":
        {"type":"record","name":"r508","fields":[
          {"name":"contains_null","type":"boolean","field-id":509},
          {"name":"contains_nan","type":["null","boolean"],"field-id":518,"default":null}]}}],
     "default":null,"field-id":507}]})");
  ASSERT_TRUE(reader) << reader.error().ToString();
  auto resolver = Resolver::Make(reader->root(), writer->root());
  ASSERT_TRUE(resolver) << resolver.error().ToString();
  NodePtr r508 = writer->root()->fields[4].type->branches[1]->items;
  Value w = Value::Record(writer->root(),
                          {Value::String("s3://m.avro"), Value::Int(3), Value::Float(0.5f), Value::String("x"),
                           Value::Array({Value::Record(r508, {Value::Boolean(true)})})});
  auto out = resolver->Resolve(w);
  ASSERT_TRUE(out) << out.error().ToString();
  EXPECT_EQ(out->field("ratio_d")->kind(), Value::Kind::kDouble);
  EXPECT_EQ(out->field("ratio_d")->double_value(), 0.5);
  EXPECT_EQ(out->field("manifest_path")->bytes(), "s3://m.avro");
  EXPECT_EQ(*out->field("count"), Value::Long(3));
  EXPECT_TRUE(out->field("added_later")->is_null());
  EXPECT_EQ(*out->field("with_default"), Value::Int(7));
  const Value& part = out->field("parts")->children()[0];
  EXPECT_EQ(*part.field("contains_null"), Value::Boolean(true));
  EXPECT_TRUE(part.field("contains_nan")->is_null());
  EXPECT_EQ(out->ToJson(),
            R"({"ratio_d":0.5,"manifest_path":"s3://m.avro","count":3,"added_later":null,"with_default":7,)"
            R"("parts":[{"contains_null":true,"contains_nan":null}]})");
}

TEST(AvroResolution, ByNameWithoutIdsAndErrors) {
  auto writer = AvroSchema::Parse(R"({"type":"record","name":"a","fields":[{"name":"x","type":"long"},{"name":"y","type":"string"}]})");
  auto reader = AvroSchema::Parse(R"({"type":"record","name":"b","fields":[{"name":"y","type":"bytes"},{"name":"x2","aliases":["x"],"type":"double"}]})");
  ASSERT_TRUE(writer && reader);
  auto resolver = Resolver::Make(reader->root(), writer->root());
  ASSERT_TRUE(resolver) << resolver.error().ToString();
  auto out = resolver->Resolve(Value::Record(writer->root(), {Value::Long(2), Value::String("q")}));
  ASSERT_OK(out);
  EXPECT_EQ(*out->field("y"), Value::Bytes("q"));
  EXPECT_EQ(*out->field("x2"), Value::Double(2));

  // A required reader field missing from the writer, without default.
  auto missing = AvroSchema::Parse(R"({"type":"record","name":"b","fields":[{"name":"z","type":"int","field-id":9}]})");
  auto bad = Resolver::Make(missing->root(), writer->root());
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("field-id 9"), std::string::npos) << bad.error().message;
  // Incompatible types: long cannot be read as int.
  auto narrow = AvroSchema::Parse(R"({"type":"record","name":"b","fields":[{"name":"x","type":"int"}]})");
  EXPECT_FALSE(Resolver::Make(narrow->root(), writer->root()));
  // Ids win over names: reader id 2 with name x must not take writer's x (id 1).
  auto w2 = AvroSchema::Parse(R"({"type":"record","name":"a","fields":[{"name":"x","type":"long","field-id":1},{"name":"old","type":"long","field-id":2}]})");
  auto r2 = AvroSchema::Parse(R"({"type":"record","name":"a","fields":[{"name":"x","type":"long","field-id":2}]})");
  auto res2 = Resolver::Make(r2->root(), w2->root());
  ASSERT_OK(res2);
  auto o2 = res2->Resolve(Value::Record(w2->root(), {Value::Long(10), Value::Long(20)}));
  ASSERT_OK(o2);
  EXPECT_EQ(*o2->field("x"), Value::Long(20));
}

TEST(AvroValue, JsonLikeAvsc) {
  EXPECT_EQ(FormatDoubleJs(0.1), "0.1");
  EXPECT_EQ(FormatDoubleJs(static_cast<double>(0.1f)), "0.10000000149011612");
  EXPECT_EQ(FormatDoubleJs(1e21), "1e+21");
  EXPECT_EQ(FormatDoubleJs(1e20), "100000000000000000000");
  EXPECT_EQ(FormatDoubleJs(1.5e-7), "1.5e-7");
  EXPECT_EQ(FormatDoubleJs(0.000001), "0.000001");
  EXPECT_EQ(FormatDoubleJs(-0.0), "-0");
  EXPECT_EQ(FormatDoubleJs(123.0), "123");
  EXPECT_EQ(FormatDoubleJs(-3.4028234663852886e38), "-3.4028234663852886e+38");
  EXPECT_EQ(Value::Double(std::nan("")).ToJson(), "\"NaN\"");
  EXPECT_EQ(Value::Bytes("\x01\xab").ToJson(), "\"01ab\"");
  EXPECT_EQ(Value::String("a\"b\n").ToJson(), "\"a\\\"b\\n\"");
}

}  // namespace encoding_test
}  // namespace floe::avro
