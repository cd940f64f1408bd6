/// \file
/// libFuzzer property target: Avro container write -> read is the identity.
/// The input is a recipe read by a small deterministic byte consumer: a random
/// writer schema (records, enums, fixed, arrays, maps, unions, every primitive,
/// logical-type and Iceberg id attributes, named types used again by
/// reference), random records for it, header metadata, and writer options
/// (codec, block size, sync marker). The file is written to memory with
/// floe's ContainerWriter and read back with its ContainerReader, once as
/// written and once resolved to the same schema; the schema JSON, the
/// metadata and every value (union branches, enum symbols, NaN as NaN, -0.0 as
/// -0.0) must come back as written. Any difference, or an error on valid
/// input, prints a description and traps. (Iceberg manifests, which need the
/// iceberg module, have their own target: iceberg/manifest_roundtrip_fuzz.cc.)
/// Seeds: tests/fuzz_seeds/avro_roundtrip_fuzz/.
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "floe/avro/container.h"
#include "floe/avro/encoding.h"
#include "floe/avro/schema.h"
#include "floe/avro/value.h"
#include "floe/io/file.h"

namespace {

using namespace floe;
using namespace floe::avro;

/// Deterministic draws from the fuzz input; zeros once it is used up.
class Draw {
 public:
  Draw(const uint8_t* data, size_t size) : p_(data), n_(size) {}
  uint8_t U8() {
    if (n_ == 0) return 0;
    --n_;
    return *p_++;
  }
  uint64_t Bits(int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v = (v << 8) | U8();
    return v;
  }
  uint32_t Below(uint32_t n) {
    return n <= 1 ? 0 : static_cast<uint32_t>(Bits(n > 256 ? 2 : 1) % n);
  }
  bool Chance(uint8_t in256) { return U8() < in256; }
  std::string Bytes(size_t max) {
    size_t len = Below(static_cast<uint32_t>(max + 1));
    std::string s;
    for (size_t i = 0; i < len; ++i) s.push_back(static_cast<char>(U8()));
    return s;
  }

 private:
  const uint8_t* p_;
  size_t n_;
};

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "avro_roundtrip_fuzz: %s\n", what.c_str());
  std::fflush(stderr);
  __builtin_trap();
}

// ---------------------------------------------------------------------------
// Schemas

constexpr int kMaxDepth = 4;

struct SchemaGen {
  Draw& d;
  int counter = 0;
  std::vector<NodePtr> named;  ///< enums and fixed defined so far (reusable by reference)
  /// A union holds two branches that promote into each other (int/long,
  /// float/double, string/bytes): the reader's choice between them is where
  /// Avro and Java differ, so the resolved read is not compared then.
  bool ambiguous_union = false;

  NodePtr Primitive() {
    static const AvroType kTypes[] = {AvroType::kNull,  AvroType::kBoolean, AvroType::kInt,
                                      AvroType::kLong,  AvroType::kFloat,   AvroType::kDouble,
                                      AvroType::kBytes, AvroType::kString};
    NodePtr n = MakePrimitive(kTypes[d.Below(8)]);
    switch (n->type) {
      case AvroType::kInt:
        if (d.Chance(40)) n->logical_type = "date";
        break;
      case AvroType::kLong:
        if (d.Chance(50)) {
          n->logical_type = d.Chance(128) ? "timestamp-micros" : "time-micros";
          if (d.Chance(128)) n->attributes.SetBool("adjust-to-utc", d.Chance(128));
        }
        break;
      case AvroType::kBytes:
        if (d.Chance(40)) {
          n->logical_type = "decimal";
          n->precision = 1 + static_cast<int32_t>(d.Below(38));
          n->scale = static_cast<int32_t>(d.Below(n->precision + 1));
        }
        break;
      case AvroType::kString:
        if (d.Chance(30)) n->logical_type = "uuid";
        break;
      default: break;
    }
    return n;
  }

  NodePtr Type(int depth, bool allow_union = true) {
    uint32_t pick = d.Below(depth >= kMaxDepth ? 3 : 10);
    if (!allow_union && (pick == 6 || pick == 7)) pick = 0;
    switch (pick) {
      case 0:
      case 1:
      case 2: {
        if (pick == 2 && !named.empty() && d.Chance(100)) return named[d.Below(named.size())];
        if (pick == 1) return Fixed();
        return Primitive();
      }
      case 3: {
        std::vector<std::string> symbols;
        const uint32_t n = 1 + d.Below(5);
        for (uint32_t i = 0; i < n; ++i) symbols.push_back(fmt::format("S{}", i));
        NodePtr e = MakeEnum(fmt::format("e{}", ++counter), symbols);
        named.push_back(e);
        return e;
      }
      case 4: {
        NodePtr a = MakeArray(Type(depth + 1));
        if (d.Chance(128)) a->attributes.SetInt("element-id", ++counter);
        return a;
      }
      case 5: return MakeMap(Type(depth + 1));
      case 6:
      case 7: return Union(depth);
      default: return Record(depth);
    }
  }

  NodePtr Fixed() {
    NodePtr f = MakeFixed(fmt::format("f{}", ++counter), static_cast<int32_t>(d.Below(20)));
    if (f->size == 16 && d.Chance(128)) f->logical_type = "uuid";
    named.push_back(f);
    return f;
  }

  NodePtr Union(int depth) {
    // No nested unions, no two branches of one unnamed type (Avro spec: Unions).
    std::vector<NodePtr> branches;
    const uint32_t n = 1 + d.Below(4);
    for (uint32_t i = 0; i < n; ++i) {
      // A branch dropped here must not have defined a named type used later.
      const size_t named_before = named.size();
      NodePtr b = Type(depth + 1, /*allow_union=*/false);
      bool clash = false;
      for (const auto& o : branches) {
        if (o == b ||
            (o->type == b->type && (!b->is_named() || o->full_name() == b->full_name()))) {
          clash = true;
        }
      }
      if (clash) {
        named.resize(named_before);
        continue;
      }
      branches.push_back(b);
    }
    auto has = [&](AvroType t) {
      for (const auto& b : branches) {
        if (b->type == t) return true;
      }
      return false;
    };
    if ((has(AvroType::kInt) &&
         (has(AvroType::kLong) || has(AvroType::kFloat) || has(AvroType::kDouble))) ||
        (has(AvroType::kLong) && (has(AvroType::kFloat) || has(AvroType::kDouble))) ||
        (has(AvroType::kFloat) && has(AvroType::kDouble)) ||
        (has(AvroType::kString) && has(AvroType::kBytes))) {
      ambiguous_union = true;
    }
    return MakeUnion(std::move(branches));
  }

  NodePtr Record(int depth) {
    std::vector<Field> fields;
    const uint32_t n = d.Below(depth == 0 ? 8 : 4) + (depth == 0 ? 1 : 0);
    const int self = ++counter;
    for (uint32_t i = 0; i < n; ++i) {
      Field f = MakeField(fmt::format("x{}", i), Type(depth + 1));
      if (d.Chance(180)) f.attributes.SetInt("field-id", ++counter);
      if (d.Chance(30)) f.doc = fmt::format("doc \"{}\"", i);
      if (f.type->type == AvroType::kUnion && !f.type->branches.empty() &&
          f.type->branches[0]->type == AvroType::kNull && d.Chance(128)) {
        f.default_json = "null";
      }
      fields.push_back(std::move(f));
    }
    NodePtr r =
        MakeRecord(fmt::format("r{}", self), std::move(fields), d.Chance(40) ? "ns.sub" : "");
    return r;
  }
};

// ---------------------------------------------------------------------------
// Values

Value RandomValue(Draw& d, const NodePtr& s, int depth) {
  switch (s->type) {
    case AvroType::kNull: return Value::Null();
    case AvroType::kBoolean: return Value::Boolean(d.U8() & 1);
    case AvroType::kInt: {
      const uint8_t pick = d.U8() & 7;
      return Value::Int(pick == 0   ? std::numeric_limits<int32_t>::min()
                        : pick == 1 ? std::numeric_limits<int32_t>::max()
                                    : static_cast<int32_t>(d.Bits(pick == 2 ? 1 : 4)));
    }
    case AvroType::kLong: {
      const uint8_t pick = d.U8() & 7;
      return Value::Long(pick == 0   ? std::numeric_limits<int64_t>::min()
                         : pick == 1 ? std::numeric_limits<int64_t>::max()
                                     : static_cast<int64_t>(d.Bits(pick == 2 ? 1 : 8)));
    }
    case AvroType::kFloat: {
      uint32_t bits = static_cast<uint32_t>(d.Bits(4));
      float v;
      std::memcpy(&v, &bits, 4);
      return Value::Float(v);
    }
    case AvroType::kDouble: {
      uint64_t bits = d.Bits(8);
      double v;
      std::memcpy(&v, &bits, 8);
      return Value::Double(v);
    }
    case AvroType::kBytes: return Value::Bytes(d.Bytes(d.Chance(20) ? 400 : 8));
    case AvroType::kString: return Value::String(d.Bytes(d.Chance(20) ? 400 : 8));
    case AvroType::kFixed: {
      std::string b;
      for (int32_t i = 0; i < s->size; ++i) b.push_back(static_cast<char>(d.U8()));
      return Value::Fixed(std::move(b));
    }
    case AvroType::kEnum: {
      const uint32_t i = d.Below(s->symbols.size());
      return Value::Enum(static_cast<int32_t>(i), s->symbols[i]);
    }
    case AvroType::kArray: {
      std::vector<Value> items;
      const uint32_t n = depth > 6 ? 0 : d.Below(d.Chance(20) ? 60 : 4);
      for (uint32_t i = 0; i < n; ++i) items.push_back(RandomValue(d, s->items, depth + 1));
      return Value::Array(std::move(items));
    }
    case AvroType::kMap: {
      std::vector<std::pair<std::string, Value>> entries;
      const uint32_t n = depth > 6 ? 0 : d.Below(4);
      for (uint32_t i = 0; i < n; ++i) {
        // Distinct keys: a map with a repeated key has no single reading.
        entries.emplace_back(fmt::format("{}{}", i, d.Bytes(3)),
                             RandomValue(d, s->items, depth + 1));
      }
      return Value::Map(std::move(entries));
    }
    case AvroType::kUnion: {
      if (s->branches.empty()) Fail("RandomValue: an empty union has no values");
      // The encoder takes the first branch of the value's kind (records: their
      // own branch), so only that branch of each kind can be written.
      uint32_t b = d.Below(s->branches.size());
      if (s->branches[b]->type != AvroType::kRecord) {
        for (uint32_t i = 0; i < b; ++i) {
          if (s->branches[i]->type == s->branches[b]->type) {
            b = i;
            break;
          }
        }
      }
      return RandomValue(d, s->branches[b], depth + 1);
    }
    case AvroType::kRecord: {
      std::vector<Value> fields;
      for (const auto& f : s->fields) fields.push_back(RandomValue(d, f.type, depth + 1));
      return Value::Record(s, std::move(fields));
    }
  }
  Fail("RandomValue: unknown Avro type");
}

/// True when any union under `s` has no branch (no value can be written).
bool HasEmptyUnion(const NodePtr& s, int depth = 0) {
  if (depth > 16) return false;
  switch (s->type) {
    case AvroType::kUnion:
      if (s->branches.empty()) return true;
      for (const auto& b : s->branches) {
        if (HasEmptyUnion(b, depth + 1)) return true;
      }
      return false;
    case AvroType::kArray:
    case AvroType::kMap: return HasEmptyUnion(s->items, depth + 1);
    case AvroType::kRecord:
      for (const auto& f : s->fields) {
        if (HasEmptyUnion(f.type, depth + 1)) return true;
      }
      return false;
    default: return false;
  }
}

// ---------------------------------------------------------------------------
// Comparison

bool SameValue(const Value& a, const Value& b, const std::string& path, std::string* why) {
  auto differ = [&] {
    *why = fmt::format("{}: wrote {} {}, read {} {}", path, Value::KindName(a.kind()), a.ToJson(),
                       Value::KindName(b.kind()), b.ToJson());
    return false;
  };
  if (a.kind() != b.kind()) return differ();
  switch (a.kind()) {
    case Value::Kind::kNull: return true;
    case Value::Kind::kBoolean: return a.boolean() == b.boolean() || differ();
    case Value::Kind::kInt:
    case Value::Kind::kLong: return a.long_value() == b.long_value() || differ();
    // Bit for bit: a NaN keeps its payload and sign (and a signalling NaN
    // stays signalling) through the writer and the reader.
    case Value::Kind::kFloat: {
      float x = a.float_value(), y = b.float_value();
      return std::memcmp(&x, &y, 4) == 0 || differ();
    }
    case Value::Kind::kDouble: {
      double x = a.double_value(), y = b.double_value();
      return std::memcmp(&x, &y, 8) == 0 || differ();
    }
    case Value::Kind::kBytes:
    case Value::Kind::kString:
    case Value::Kind::kFixed:
    case Value::Kind::kEnum:
      return (a.bytes() == b.bytes() && a.enum_index() == b.enum_index()) || differ();
    case Value::Kind::kRecord:
      if (!a.record_schema() || !b.record_schema() ||
          a.record_schema()->full_name() != b.record_schema()->full_name()) {
        *why = fmt::format("{}: wrote record {}, read record {}", path,
                           a.record_schema() ? a.record_schema()->full_name() : "?",
                           b.record_schema() ? b.record_schema()->full_name() : "?");
        return false;
      }
      [[fallthrough]];
    case Value::Kind::kArray:
    case Value::Kind::kMap:
      if (a.children().size() != b.children().size() || a.keys() != b.keys()) return differ();
      for (size_t i = 0; i < a.children().size(); ++i) {
        std::string p = a.kind() == Value::Kind::kRecord
                            ? path + "." + a.record_schema()->fields[i].name
                        : a.kind() == Value::Kind::kMap ? path + "[" + a.keys()[i] + "]"
                                                        : fmt::format("{}[{}]", path, i);
        if (!SameValue(a.children()[i], b.children()[i], p, why)) return false;
      }
      return true;
  }
  return differ();
}

class StringOutput final : public OutputFile {
 public:
  explicit StringOutput(std::string* sink) : sink_(sink) {}
  Status Write(const void* data, size_t size) override {
    buf_.append(static_cast<const char*>(data), size);
    return Ok();
  }
  int64_t Tell() const override { return static_cast<int64_t>(buf_.size()); }
  Status Commit() override {
    *sink_ = std::move(buf_);
    return Ok();
  }
  void Abort() override { buf_.clear(); }
  const std::string& path() const override { return name_; }

 private:
  std::string* sink_;
  std::string buf_;
  std::string name_ = "roundtrip.avro";
};

void ReadBack(const std::string& file, const std::vector<Value>& records, const Metadata& metadata,
              const std::string& schema_json, Codec codec, NodePtr reader_schema,
              const std::string& context) {
  ReaderOptions options;
  options.reader_schema = reader_schema;
  const char* mode = reader_schema ? "resolved read" : "read";
  auto reader = ContainerReader::Open(MemoryInput(file, "roundtrip.avro"), options);
  if (!reader)
    Fail(fmt::format("{}: reader refused floe's file: {}\n{}", mode, reader.error().ToString(),
                     context));
  if ((*reader)->writer_schema().ToJson() != schema_json) {
    Fail(fmt::format("{}: schema came back as {}\n{}", mode, (*reader)->writer_schema().ToJson(),
                     context));
  }
  if ((*reader)->codec() != codec)
    Fail(
        fmt::format("{}: codec came back as {}\n{}", mode, CodecName((*reader)->codec()), context));
  for (const auto& [key, value] : metadata) {
    auto got = (*reader)->metadata(key);
    if (!got || *got != value)
      Fail(fmt::format("{}: metadata '{}' did not come back\n{}", mode, key, context));
  }
  Value v;
  size_t i = 0;
  while (true) {
    auto more = (*reader)->Next(&v);
    if (!more)
      Fail(fmt::format("{}: reader failed on record {}: {}\n{}", mode, i, more.error().ToString(),
                       context));
    if (!*more) break;
    if (i >= records.size()) Fail(fmt::format("{}: more records than written\n{}", mode, context));
    std::string why;
    if (!SameValue(records[i], v, fmt::format("record {}", i), &why))
      Fail(fmt::format("{}: {}\n{}", mode, why, context));
    ++i;
  }
  if (i != records.size())
    Fail(fmt::format("{}: read {} records, wrote {}\n{}", mode, i, records.size(), context));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Draw d(data, size);
  SchemaGen gen{d};
  NodePtr root = gen.Record(0);
  AvroSchema schema(root);
  if (HasEmptyUnion(root)) return 0;
  if (auto st = schema.Validate(); !st)
    Fail("generated an invalid schema: " + st.error().ToString() + "\n" + schema.ToJson());
  const std::string schema_json = schema.ToJson();
  // What floe writes it must parse back to the same schema.
  auto reparsed = AvroSchema::Parse(schema_json);
  if (!reparsed)
    Fail("schema JSON does not parse back: " + reparsed.error().ToString() + "\n" + schema_json);
  if (reparsed->ToJson() != schema_json) {
    Fail("schema JSON changed on re-parse:\n" + schema_json + "\n" + reparsed->ToJson());
  }

  WriterOptions options;
  static const Codec kCodecs[] = {Codec::kUncompressed, Codec::kDeflateRaw, Codec::kSnappy,
                                  Codec::kZstd};
  options.codec = kCodecs[d.Below(4)];
  options.block_size = d.Chance(128) ? 1 + d.Below(2000) : 64 * 1024;
  if (d.Chance(128)) {
    std::array<uint8_t, 16> sync;
    for (auto& b : sync) b = d.U8();
    options.sync_marker = sync;
  }
  Metadata metadata;
  const uint32_t keys = d.Below(4);
  for (uint32_t i = 0; i < keys; ++i)
    metadata.emplace_back(fmt::format("user.k{}", i), d.Bytes(40));

  std::vector<Value> records;
  const uint32_t count = d.Chance(40) ? d.Below(500) : d.Below(20);
  for (uint32_t i = 0; i < count; ++i) records.push_back(RandomValue(d, root, 0));
  const std::string context =
      fmt::format("schema {} codec {} block_size {} records {}", schema_json,
                  CodecName(options.codec), options.block_size, records.size());

  // FLOE_FUZZ_DESCRIBE=1 prints each recipe (to pick seeds that cover each type and codec).
  if (std::getenv("FLOE_FUZZ_DESCRIBE")) std::fprintf(stderr, "recipe: %s\n", context.c_str());
  std::string file;
  auto writer =
      ContainerWriter::Open(std::make_unique<StringOutput>(&file), schema, metadata, options);
  if (!writer) Fail("writer refused to open: " + writer.error().ToString() + "\n" + context);
  for (size_t i = 0; i < records.size(); ++i) {
    if (auto st = (*writer)->Append(records[i]); !st) {
      Fail(fmt::format("writer refused record {} {}: {}\n{}", i, records[i].ToJson(),
                       st.error().ToString(), context));
    }
  }
  auto length = (*writer)->Close();
  if (!length) Fail("writer failed to close: " + length.error().ToString() + "\n" + context);
  if (*length != static_cast<int64_t>(file.size())) {
    Fail(fmt::format("Close says {} bytes, file has {}\n{}", *length, file.size(), context));
  }

  ReadBack(file, records, metadata, schema_json, options.codec, nullptr, context);
  if (!gen.ambiguous_union)
    ReadBack(file, records, metadata, schema_json, options.codec, reparsed->root(), context);
  return 0;
}
