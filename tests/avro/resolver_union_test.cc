// Schema resolution of unions with several record branches (Avro spec: Schema
// Resolution, "if both are unions: the first schema in the reader's union that
// matches the selected writer's union schema"; two records match when their
// names do). Found by avro_roundtrip_fuzz: a value of the second record branch
// was read as the first branch when the two records had compatible fields,
// because record names were not compared at all.
#include <gtest/gtest.h>

#include "floe/avro/encoding.h"
#include "floe/avro/schema.h"
#include "floe/avro/value.h"
#include "testing/matchers.h"

namespace floe::avro {
namespace resolver_union_test {

constexpr const char* kSchema = R"({"type":"record","name":"top","fields":[
  {"name":"u","type":[
    {"type":"record","name":"first","fields":[{"name":"x","type":"int"}]},
    {"type":"record","name":"second","namespace":"ns","fields":[{"name":"x","type":"int"}]},
    "null"]}]})";

/// Resolves a value written with the `second` branch to the same schema
/// parsed again (other nodes, as when a reader schema is given).
Value ResolveSecondBranch(const char* reader_json) {
  auto writer = AvroSchema::Parse(kSchema);
  auto reader = AvroSchema::Parse(reader_json);
  EXPECT_TRUE(writer && reader);
  const NodePtr& second = writer->root()->fields[0].type->branches[1];
  Value v = Value::Record(writer->root(), {Value::Record(second, {Value::Int(7)})});
  auto resolver = Resolver::Make(reader->root(), writer->root());
  EXPECT_TRUE(resolver) << resolver.error().ToString();
  auto out = resolver->Resolve(v);
  EXPECT_TRUE(out) << out.error().ToString();
  return out ? *out : Value();
}

TEST(AvroResolverUnion, RecordBranchIsMatchedByName) {
  Value out = ResolveSecondBranch(kSchema);
  ASSERT_EQ(out.children().size(), 1u);
  const Value& u = out.children()[0];
  ASSERT_EQ(u.kind(), Value::Kind::kRecord);
  ASSERT_TRUE(u.record_schema());
  EXPECT_EQ(u.record_schema()->full_name(), "ns.second");
  EXPECT_EQ(u.children()[0], Value::Int(7));
}

TEST(AvroResolverUnion, UnqualifiedNameMatchesWhenNamespacesDiffer) {
  // The reader's `second` is in another namespace: the unqualified name still
  // picks it over `first`.
  std::string reader = kSchema;
  reader.replace(reader.find("\"namespace\":\"ns\""), 16, "\"namespace\":\"zz\"");
  Value out = ResolveSecondBranch(reader.c_str());
  const Value& u = out.children()[0];
  ASSERT_TRUE(u.record_schema());
  EXPECT_EQ(u.record_schema()->full_name(), "zz.second");
}

TEST(AvroResolverUnion, RecordOfAnotherNameStillResolvesStructurally) {
  // No reader branch carries the writer's name: the first compatible record
  // branch reads it (Iceberg readers do not compare record names).
  std::string reader = R"({"type":"record","name":"top","fields":[
    {"name":"u","type":["null",{"type":"record","name":"other","fields":[{"name":"x","type":"int"}]}]}]})";
  Value out = ResolveSecondBranch(reader.c_str());
  const Value& u = out.children()[0];
  ASSERT_TRUE(u.record_schema());
  EXPECT_EQ(u.record_schema()->full_name(), "other");
  EXPECT_EQ(u.children()[0], Value::Int(7));
}

}  // namespace resolver_union_test
}  // namespace floe::avro
