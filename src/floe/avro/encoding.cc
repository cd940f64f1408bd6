// Generic Value encoding/decoding and schema resolution (Avro spec 1.11:
// Binary Encoding, Schema Resolution; Iceberg spec: Column Projection).
#include "floe/avro/encoding.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace floe::avro {
namespace {

using Json = nlohmann::json;
using Kind = Value::Kind;

/// Arrays/maps whose items take no bytes (null, empty records) cannot be
/// bounded by the input size; cap them.
constexpr int64_t kMaxZeroSizeItems = int64_t{1} << 20;

bool KindFits(AvroType type, Kind kind, bool exact) {
  switch (type) {
    case AvroType::kNull: return kind == Kind::kNull;
    case AvroType::kBoolean: return kind == Kind::kBoolean;
    case AvroType::kInt: return kind == Kind::kInt;
    case AvroType::kLong: return kind == Kind::kLong || (!exact && kind == Kind::kInt);
    case AvroType::kFloat: return kind == Kind::kFloat || (!exact && (kind == Kind::kInt || kind == Kind::kLong));
    case AvroType::kDouble:
      return kind == Kind::kDouble ||
             (!exact && (kind == Kind::kFloat || kind == Kind::kInt || kind == Kind::kLong));
    case AvroType::kBytes: return kind == Kind::kBytes || (!exact && kind == Kind::kString);
    case AvroType::kString: return kind == Kind::kString || (!exact && kind == Kind::kBytes);
    case AvroType::kFixed: return kind == Kind::kFixed || (!exact && kind == Kind::kBytes);
    case AvroType::kEnum: return kind == Kind::kEnum || (!exact && kind == Kind::kString);
    case AvroType::kRecord: return kind == Kind::kRecord;
    case AvroType::kArray: return kind == Kind::kArray;
    case AvroType::kMap: return kind == Kind::kMap;
    case AvroType::kUnion: return false;
  }
  return false;
}

/// The union branch for a value: a record goes to the branch of its own
/// schema node when present; otherwise the first exact kind, then the first
/// promotable one.
int SelectBranch(const Node& u, const Value& v) {
  if (v.kind() == Kind::kRecord && v.record_schema()) {
    for (size_t i = 0; i < u.branches.size(); ++i) {
      if (u.branches[i].get() == v.record_schema().get()) return static_cast<int>(i);
    }
    for (size_t i = 0; i < u.branches.size(); ++i) {
      if (u.branches[i]->type == AvroType::kRecord &&
          u.branches[i]->full_name() == v.record_schema()->full_name()) {
        return static_cast<int>(i);
      }
    }
  }
  for (bool exact : {true, false}) {
    for (size_t i = 0; i < u.branches.size(); ++i) {
      if (KindFits(u.branches[i]->type, v.kind(), exact)) return static_cast<int>(i);
    }
  }
  return -1;
}

Status Mismatch(const Node& schema, const Value& v) {
  return InvalidArgument("avro: a {} value does not fit schema type {}{}", Value::KindName(v.kind()),
                         AvroTypeName(schema.type), schema.is_named() ? " " + schema.full_name() : "");
}

Status Encode(const Node& s, const Value& v, Encoder* e, int depth) {
  if (depth > 1000) return InvalidArgument("avro: value nested too deeply");
  switch (s.type) {
    case AvroType::kNull:
      if (v.kind() != Kind::kNull) return Mismatch(s, v);
      return Ok();
    case AvroType::kBoolean:
      if (v.kind() != Kind::kBoolean) return Mismatch(s, v);
      e->WriteBoolean(v.boolean());
      return Ok();
    case AvroType::kInt:
      if (v.kind() == Kind::kInt) {
        e->WriteInt(v.int_value());
      } else if (v.kind() == Kind::kLong && v.long_value() >= INT32_MIN && v.long_value() <= INT32_MAX) {
        e->WriteInt(static_cast<int32_t>(v.long_value()));
      } else {
        return Mismatch(s, v);
      }
      return Ok();
    case AvroType::kLong:
      if (v.kind() != Kind::kInt && v.kind() != Kind::kLong) return Mismatch(s, v);
      e->WriteLong(v.long_value());
      return Ok();
    case AvroType::kFloat:
      if (v.kind() != Kind::kFloat) return Mismatch(s, v);
      e->WriteFloat(v.float_value());
      return Ok();
    case AvroType::kDouble:
      if (v.kind() != Kind::kDouble && v.kind() != Kind::kFloat) return Mismatch(s, v);
      e->WriteDouble(v.double_value());
      return Ok();
    case AvroType::kBytes:
    case AvroType::kString:
      if (v.kind() != Kind::kBytes && v.kind() != Kind::kString) return Mismatch(s, v);
      e->WriteBytes(v.bytes());
      return Ok();
    case AvroType::kFixed:
      if (v.kind() != Kind::kFixed && v.kind() != Kind::kBytes) return Mismatch(s, v);
      if (v.bytes().size() != static_cast<size_t>(s.size)) {
        return InvalidArgument("avro: fixed {} needs {} bytes, the value has {}", s.full_name(), s.size,
                               v.bytes().size());
      }
      e->WriteFixed(v.bytes());
      return Ok();
    case AvroType::kEnum: {
      int64_t index = -1;
      if (v.kind() == Kind::kEnum) {
        index = v.enum_index();
      } else if (v.kind() == Kind::kString) {
        auto it = std::find(s.symbols.begin(), s.symbols.end(), v.bytes());
        if (it != s.symbols.end()) index = it - s.symbols.begin();
      } else {
        return Mismatch(s, v);
      }
      if (index < 0 || static_cast<size_t>(index) >= s.symbols.size()) {
        return InvalidArgument("avro: enum {} has no symbol {}", s.full_name(),
                               v.kind() == Kind::kString ? v.bytes() : std::to_string(index));
      }
      e->WriteInt(static_cast<int32_t>(index));
      return Ok();
    }
    case AvroType::kRecord: {
      if (v.kind() != Kind::kRecord) return Mismatch(s, v);
      if (v.children().size() != s.fields.size()) {
        return InvalidArgument("avro: record {} has {} fields, the value has {}", s.full_name(),
                               s.fields.size(), v.children().size());
      }
      for (size_t i = 0; i < s.fields.size(); ++i) {
        Status st = Encode(*s.fields[i].type, v.children()[i], e, depth + 1);
        if (!st) return Fail(std::move(st).error().WithContext(fmt::format("field {}.{}", s.full_name(), s.fields[i].name)));
      }
      return Ok();
    }
    case AvroType::kArray:
    case AvroType::kMap: {
      bool is_map = s.type == AvroType::kMap;
      if (v.kind() != (is_map ? Kind::kMap : Kind::kArray)) return Mismatch(s, v);
      const auto& items = v.children();
      if (!items.empty()) {
        e->WriteLong(static_cast<int64_t>(items.size()));
        for (size_t i = 0; i < items.size(); ++i) {
          if (is_map) e->WriteString(v.keys()[i]);
          FLOE_RETURN_IF_ERROR(Encode(*s.items, items[i], e, depth + 1));
        }
      }
      e->WriteLong(0);
      return Ok();
    }
    case AvroType::kUnion: {
      int b = SelectBranch(s, v);
      if (b < 0) {
        std::string types;
        for (const auto& br : s.branches) types += fmt::format("{}{}", types.empty() ? "" : ",", AvroTypeName(br->type));
        return InvalidArgument("avro: a {} value fits no branch of union [{}]", Value::KindName(v.kind()), types);
      }
      e->WriteLong(b);
      return Encode(*s.branches[b], v, e, depth + 1);
    }
  }
  return Internal("avro: unknown schema type");
}

size_t MinSize(const Node& s, int depth) {
  if (depth > 64) return 0;
  switch (s.type) {
    case AvroType::kNull: return 0;
    case AvroType::kFloat: return 4;
    case AvroType::kDouble: return 8;
    case AvroType::kFixed: return static_cast<size_t>(s.size);
    case AvroType::kRecord: {
      size_t n = 0;
      for (const auto& f : s.fields) n += MinSize(*f.type, depth + 1);
      return n;
    }
    default: return 1;
  }
}

Result<Value> Decode(const NodePtr& sp, Decoder* d, int depth) {
  const Node& s = *sp;
  switch (s.type) {
    case AvroType::kNull: return Value::Null();
    case AvroType::kBoolean: {
      FLOE_ASSIGN_OR_RETURN(bool b, d->ReadBoolean());
      return Value::Boolean(b);
    }
    case AvroType::kInt: {
      FLOE_ASSIGN_OR_RETURN(int32_t v, d->ReadInt());
      return Value::Int(v);
    }
    case AvroType::kLong: {
      FLOE_ASSIGN_OR_RETURN(int64_t v, d->ReadLong());
      return Value::Long(v);
    }
    case AvroType::kFloat: {
      FLOE_ASSIGN_OR_RETURN(float v, d->ReadFloat());
      return Value::Float(v);
    }
    case AvroType::kDouble: {
      FLOE_ASSIGN_OR_RETURN(double v, d->ReadDouble());
      return Value::Double(v);
    }
    case AvroType::kBytes: {
      FLOE_ASSIGN_OR_RETURN(std::string_view v, d->ReadBytes());
      return Value::Bytes(std::string(v));
    }
    case AvroType::kString: {
      FLOE_ASSIGN_OR_RETURN(std::string_view v, d->ReadBytes());
      return Value::String(std::string(v));
    }
    case AvroType::kFixed: {
      FLOE_ASSIGN_OR_RETURN(std::string_view v, d->ReadFixed(static_cast<size_t>(s.size)));
      return Value::Fixed(std::string(v));
    }
    case AvroType::kEnum: {
      FLOE_ASSIGN_OR_RETURN(int32_t i, d->ReadInt());
      if (i < 0 || static_cast<size_t>(i) >= s.symbols.size()) {
        return Corrupt("avro: enum {} index {} out of range (0..{})", s.full_name(), i, s.symbols.size());
      }
      return Value::Enum(i, s.symbols[i]);
    }
    case AvroType::kUnion: {
      FLOE_ASSIGN_OR_RETURN(int64_t b, d->ReadLong());
      if (b < 0 || static_cast<size_t>(b) >= s.branches.size()) {
        return Corrupt("avro: union branch {} out of range (0..{})", b, s.branches.size());
      }
      return Decode(s.branches[b], d, depth + 1);
    }
    case AvroType::kRecord: {
      std::vector<Value> fields;
      fields.reserve(s.fields.size());
      for (const auto& f : s.fields) {
        auto v = Decode(f.type, d, depth + 1);
        if (!v) return Fail(std::move(v).error().WithContext(fmt::format("field {}.{}", s.full_name(), f.name)));
        fields.push_back(std::move(*v));
      }
      return Value::Record(sp, std::move(fields));
    }
    case AvroType::kArray:
    case AvroType::kMap: {
      bool is_map = s.type == AvroType::kMap;
      size_t min_size = MinSize(*s.items, 0) + (is_map ? 1 : 0);
      std::vector<Value> items;
      std::vector<std::string> keys;
      int64_t total = 0;
      while (true) {
        FLOE_ASSIGN_OR_RETURN(int64_t n, d->ReadBlockCount());
        if (n == 0) break;
        if (min_size > 0) {
          if (static_cast<uint64_t>(n) > d->remaining() / min_size) {
            return Corrupt("avro: {} block of {} items exceeds the {} bytes left", AvroTypeName(s.type), n,
                           d->remaining());
          }
        } else if (n > kMaxZeroSizeItems - total) {
          return Corrupt("avro: {} of more than {} zero-byte items", AvroTypeName(s.type), kMaxZeroSizeItems);
        }
        total += n;
        items.reserve(items.size() + static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) {
          if (is_map) {
            FLOE_ASSIGN_OR_RETURN(std::string_view k, d->ReadBytes());
            keys.emplace_back(k);
          }
          FLOE_ASSIGN_OR_RETURN(Value item, Decode(s.items, d, depth + 1));
          items.push_back(std::move(item));
        }
      }
      if (!is_map) return Value::Array(std::move(items));
      std::vector<std::pair<std::string, Value>> entries;
      entries.reserve(items.size());
      for (size_t i = 0; i < items.size(); ++i) entries.emplace_back(std::move(keys[i]), std::move(items[i]));
      return Value::Map(std::move(entries));
    }
  }
  return Internal("avro: unknown schema type");
}

bool PrimitivePromotes(AvroType writer, AvroType reader) {
  if (writer == reader) return true;
  switch (writer) {
    case AvroType::kInt: return reader == AvroType::kLong || reader == AvroType::kFloat || reader == AvroType::kDouble;
    case AvroType::kLong: return reader == AvroType::kFloat || reader == AvroType::kDouble;
    case AvroType::kFloat: return reader == AvroType::kDouble;
    case AvroType::kString: return reader == AvroType::kBytes;
    case AvroType::kBytes: return reader == AvroType::kString;
    default: return false;
  }
}

bool IsPrimitiveType(AvroType t) { return t <= AvroType::kString; }

bool HasNullBranch(const Node& n) {
  if (n.type == AvroType::kNull) return true;
  if (n.type != AvroType::kUnion) return false;
  for (const auto& b : n.branches) {
    if (b->type == AvroType::kNull) return true;
  }
  return false;
}

Result<Value> FromJson(const NodePtr& sp, const Json& j, int depth) {
  const Node& s = *sp;
  if (depth > 200) return InvalidArgument("avro default: nested too deeply");
  auto bad = [&]() {
    return InvalidArgument("avro default {} does not fit type {}", j.dump(-1, ' ', false, Json::error_handler_t::replace),
                           AvroTypeName(s.type));
  };
  switch (s.type) {
    case AvroType::kNull:
      if (!j.is_null()) return bad();
      return Value::Null();
    case AvroType::kBoolean:
      if (!j.is_boolean()) return bad();
      return Value::Boolean(j.get<bool>());
    case AvroType::kInt:
      if (!j.is_number_integer()) return bad();
      if (j.get<int64_t>() < INT32_MIN || j.get<int64_t>() > INT32_MAX) return bad();
      return Value::Int(static_cast<int32_t>(j.get<int64_t>()));
    case AvroType::kLong:
      if (!j.is_number_integer()) return bad();
      return Value::Long(j.get<int64_t>());
    case AvroType::kFloat:
      if (!j.is_number()) return bad();
      return Value::Float(j.get<float>());
    case AvroType::kDouble:
      if (!j.is_number()) return bad();
      return Value::Double(j.get<double>());
    case AvroType::kString:
      if (!j.is_string()) return bad();
      return Value::String(j.get<std::string>());
    case AvroType::kBytes:
    case AvroType::kFixed: {
      // Avro spec: bytes/fixed defaults are strings whose code points 0-255 are the bytes.
      if (!j.is_string()) return bad();
      std::string text = j.get<std::string>();
      std::string bytes;
      for (size_t i = 0; i < text.size(); ++i) {
        unsigned char c = static_cast<unsigned char>(text[i]);
        if (c < 0x80) {
          bytes.push_back(static_cast<char>(c));
        } else if ((c & 0xe0) == 0xc0 && i + 1 < text.size()) {
          unsigned cp = ((c & 0x1f) << 6) | (static_cast<unsigned char>(text[++i]) & 0x3f);
          if (cp > 0xff) return bad();
          bytes.push_back(static_cast<char>(cp));
        } else {
          return bad();
        }
      }
      if (s.type == AvroType::kFixed) {
        if (bytes.size() != static_cast<size_t>(s.size)) return bad();
        return Value::Fixed(std::move(bytes));
      }
      return Value::Bytes(std::move(bytes));
    }
    case AvroType::kEnum: {
      if (!j.is_string()) return bad();
      auto it = std::find(s.symbols.begin(), s.symbols.end(), j.get<std::string>());
      if (it == s.symbols.end()) return bad();
      return Value::Enum(static_cast<int32_t>(it - s.symbols.begin()), *it);
    }
    case AvroType::kUnion:
      if (s.branches.empty()) return bad();
      return FromJson(s.branches[0], j, depth + 1);
    case AvroType::kArray: {
      if (!j.is_array()) return bad();
      std::vector<Value> items;
      for (const auto& x : j) {
        FLOE_ASSIGN_OR_RETURN(Value v, FromJson(s.items, x, depth + 1));
        items.push_back(std::move(v));
      }
      return Value::Array(std::move(items));
    }
    case AvroType::kMap: {
      if (!j.is_object()) return bad();
      std::vector<std::pair<std::string, Value>> entries;
      for (auto it = j.begin(); it != j.end(); ++it) {
        FLOE_ASSIGN_OR_RETURN(Value v, FromJson(s.items, it.value(), depth + 1));
        entries.emplace_back(it.key(), std::move(v));
      }
      return Value::Map(std::move(entries));
    }
    case AvroType::kRecord: {
      if (!j.is_object()) return bad();
      std::vector<Value> fields;
      for (const auto& f : s.fields) {
        auto it = j.find(f.name);
        if (it != j.end()) {
          FLOE_ASSIGN_OR_RETURN(Value v, FromJson(f.type, *it, depth + 1));
          fields.push_back(std::move(v));
        } else if (f.default_json) {
          FLOE_ASSIGN_OR_RETURN(Value v, DefaultValue(f.type, *f.default_json));
          fields.push_back(std::move(v));
        } else {
          return InvalidArgument("avro default for record {} lacks field {}", s.full_name(), f.name);
        }
      }
      return Value::Record(sp, std::move(fields));
    }
  }
  return bad();
}

}  // namespace

Status EncodeValue(const Node& schema, const Value& value, Encoder* encoder) {
  return Encode(schema, value, encoder, 0);
}

Result<Value> DecodeValue(const NodePtr& schema, Decoder* decoder) { return Decode(schema, decoder, 0); }

size_t MinEncodedSize(const Node& schema) { return MinSize(schema, 0); }

Result<Value> DefaultValue(const NodePtr& schema, std::string_view json) {
  try {
    Json j = Json::parse(json, nullptr, false);
    if (j.is_discarded()) return InvalidArgument("avro default is not valid JSON: {}", json);
    return FromJson(schema, j, 0);
  } catch (const std::exception& e) {
    return InvalidArgument("avro default {}: {}", json, e.what());
  }
}

Result<Resolver> Resolver::Make(NodePtr reader, NodePtr writer) {
  if (!reader || !writer) return InvalidArgument("avro resolution: missing schema");
  Resolver r;
  r.reader_ = std::move(reader);
  r.writer_ = std::move(writer);
  FLOE_RETURN_IF_ERROR(r.Check(r.reader_, r.writer_, "$", 0));
  return r;
}

namespace {
/// How well a reader's named type matches a writer's by name: 0 = same full
/// name, 1 = same simple name (another namespace), 2 = neither.
int NameRank(const Node& reader, const Node& writer) {
  if (reader.full_name() == writer.full_name()) return 0;
  return reader.name == writer.name ? 1 : 2;
}
}  // namespace

Status Resolver::Check(const NodePtr& reader, const NodePtr& writer, const std::string& path, int depth) {
  if (depth > 200) return InvalidArgument("avro resolution at {}: nested too deeply", path);
  const Node& r = *reader;
  const Node& w = *writer;
  if (w.type == AvroType::kUnion) {
    // Each writer branch is resolved on its own; a branch that cannot be read
    // fails only when a value takes it.
    bool any = false;
    for (const auto& b : w.branches) any |= Check(reader, b, path, depth + 1).has_value();
    if (!any && !w.branches.empty()) {
      return InvalidArgument("avro resolution at {}: no branch of the writer's union can be read as {}", path,
                             AvroTypeName(r.type));
    }
    return Ok();
  }
  if (r.type == AvroType::kUnion) {
    // A named writer type is read by the reader branch of the same name first
    // (Avro spec: Schema Resolution, records/enums/fixed match by name), so a
    // union of two compatible records keeps each value in its own branch.
    if (w.is_named()) {
      for (int rank : {0, 1}) {
        for (const auto& b : r.branches) {
          if (b->type == w.type && NameRank(*b, w) == rank && Check(b, writer, path, depth + 1))
            return Ok();
        }
      }
    }
    for (bool exact : {true, false}) {
      for (const auto& b : r.branches) {
        if (exact && b->type != w.type) continue;
        if (Check(b, writer, path, depth + 1)) return Ok();
      }
    }
    return InvalidArgument("avro resolution at {}: writer type {} matches no branch of the reader's union", path,
                           AvroTypeName(w.type));
  }
  if (IsPrimitiveType(w.type) && IsPrimitiveType(r.type)) {
    if (PrimitivePromotes(w.type, r.type)) return Ok();
    return InvalidArgument("avro resolution at {}: writer type {} cannot be read as {}", path, AvroTypeName(w.type),
                           AvroTypeName(r.type));
  }
  if (w.type != r.type) {
    return InvalidArgument("avro resolution at {}: writer type {} cannot be read as {}", path, AvroTypeName(w.type),
                           AvroTypeName(r.type));
  }
  switch (r.type) {
    case AvroType::kFixed:
      if (r.size != w.size) {
        return InvalidArgument("avro resolution at {}: fixed of {} bytes cannot be read as fixed of {}", path, w.size,
                               r.size);
      }
      return Ok();
    case AvroType::kEnum: return Ok();
    case AvroType::kArray:
    case AvroType::kMap: return Check(r.items, w.items, path + "[]", depth + 1);
    case AvroType::kRecord: {
      auto key = std::make_pair(&r, &w);
      if (plans_.contains(key)) return Ok();
      RecordPlan plan;
      for (const auto& rf : r.fields) {
        std::string fpath = path + "." + rf.name;
        int found = -1;
        auto rid = rf.field_id();
        if (rid) {
          for (size_t i = 0; i < w.fields.size() && found < 0; ++i) {
            if (w.fields[i].field_id() == rid) found = static_cast<int>(i);
          }
        }
        if (found < 0) {
          for (size_t i = 0; i < w.fields.size() && found < 0; ++i) {
            const Field& wf = w.fields[i];
            if (rid && wf.field_id()) continue;  // both have ids and they differ
            bool match = wf.name == rf.name;
            for (const auto& a : rf.aliases) match |= wf.name == a;
            if (match) found = static_cast<int>(i);
          }
        }
        if (found >= 0) {
          FLOE_RETURN_IF_ERROR(Check(rf.type, w.fields[found].type, fpath, depth + 1));
          plan.writer_index.push_back(found);
          plan.defaults.emplace_back();
        } else if (rf.default_json) {
          auto v = DefaultValue(rf.type, *rf.default_json);
          if (!v) return Fail(std::move(v).error().WithContext(fmt::format("avro resolution at {}", fpath)));
          plan.writer_index.push_back(-1);
          plan.defaults.push_back(std::move(*v));
        } else if (HasNullBranch(*rf.type)) {
          plan.writer_index.push_back(-1);
          plan.defaults.push_back(Value::Null());
        } else {
          return InvalidArgument(
              "avro resolution at {}: reader field {}{} is missing from the writer schema and has no default",
              fpath, rf.name, rid ? fmt::format(" (field-id {})", *rid) : "");
        }
      }
      plans_.emplace(key, std::move(plan));
      return Ok();
    }
    default: return Ok();
  }
}

Result<Value> Resolver::Resolve(Value value) const { return ResolveAs(std::move(value), reader_, 0); }

Result<Value> Resolver::ResolveAs(Value v, const NodePtr& reader, int depth) const {
  const Node& r = *reader;
  if (depth > 1000) return InvalidArgument("avro resolution: value nested too deeply");
  if (r.type == AvroType::kUnion) {
    int chosen = -1;
    if (v.kind() == Kind::kRecord && v.record_schema()) {
      // The branch Check planned: same full name, else same simple name, else
      // the first compatible record.
      const Node& w = *v.record_schema();
      for (int rank = 0; rank <= 2 && chosen < 0; ++rank) {
        for (size_t i = 0; i < r.branches.size() && chosen < 0; ++i) {
          if (NameRank(*r.branches[i], w) <= rank && plans_.contains({r.branches[i].get(), &w})) {
            chosen = static_cast<int>(i);
          }
        }
      }
    } else {
      chosen = SelectBranch(r, v);
    }
    if (chosen < 0) {
      return InvalidArgument("avro resolution: a {} value fits no branch of the reader's union",
                             Value::KindName(v.kind()));
    }
    return ResolveAs(std::move(v), r.branches[chosen], depth + 1);
  }
  auto mismatch = [&]() {
    return InvalidArgument("avro resolution: a {} value cannot be read as {}", Value::KindName(v.kind()),
                           AvroTypeName(r.type));
  };
  switch (r.type) {
    case AvroType::kNull:
      if (!v.is_null()) return mismatch();
      return v;
    case AvroType::kBoolean:
    case AvroType::kInt:
      if (!KindFits(r.type, v.kind(), true)) return mismatch();
      return v;
    case AvroType::kLong:
      if (!KindFits(r.type, v.kind(), false)) return mismatch();
      return Value::Long(v.long_value());
    case AvroType::kFloat:
      if (v.kind() == Kind::kFloat) return v;
      if (v.kind() == Kind::kInt || v.kind() == Kind::kLong) return Value::Float(static_cast<float>(v.long_value()));
      return mismatch();
    case AvroType::kDouble:
      if (v.kind() == Kind::kDouble) return v;
      if (v.kind() == Kind::kFloat) return Value::Double(v.double_value());
      if (v.kind() == Kind::kInt || v.kind() == Kind::kLong) return Value::Double(static_cast<double>(v.long_value()));
      return mismatch();
    case AvroType::kBytes:
      if (v.kind() == Kind::kBytes) return v;
      if (v.kind() == Kind::kString) return Value::Bytes(v.bytes());
      return mismatch();
    case AvroType::kString:
      if (v.kind() == Kind::kString) return v;
      if (v.kind() == Kind::kBytes) return Value::String(v.bytes());
      return mismatch();
    case AvroType::kFixed:
      if (v.kind() != Kind::kFixed || v.bytes().size() != static_cast<size_t>(r.size)) return mismatch();
      return v;
    case AvroType::kEnum: {
      if (v.kind() != Kind::kEnum) return mismatch();
      auto it = std::find(r.symbols.begin(), r.symbols.end(), v.bytes());
      if (it == r.symbols.end() && r.enum_default) {
        it = std::find(r.symbols.begin(), r.symbols.end(), *r.enum_default);
      }
      if (it == r.symbols.end()) {
        return InvalidArgument("avro resolution: enum symbol {} is not in the reader's enum {}", v.bytes(),
                               r.full_name());
      }
      return Value::Enum(static_cast<int32_t>(it - r.symbols.begin()), *it);
    }
    case AvroType::kArray:
    case AvroType::kMap: {
      if (v.kind() != (r.type == AvroType::kArray ? Kind::kArray : Kind::kMap)) return mismatch();
      for (auto& item : v.mutable_children()) {
        FLOE_ASSIGN_OR_RETURN(item, ResolveAs(std::move(item), r.items, depth + 1));
      }
      return v;
    }
    case AvroType::kRecord: {
      if (v.kind() != Kind::kRecord || !v.record_schema()) return mismatch();
      auto it = plans_.find({&r, v.record_schema().get()});
      if (it == plans_.end()) {
        return InvalidArgument("avro resolution: writer record {} cannot be read as {}",
                               v.record_schema()->full_name(), r.full_name());
      }
      const RecordPlan& plan = it->second;
      std::vector<Value> fields;
      fields.reserve(r.fields.size());
      auto& children = v.mutable_children();
      for (size_t i = 0; i < r.fields.size(); ++i) {
        int wi = plan.writer_index[i];
        if (wi < 0) {
          fields.push_back(plan.defaults[i]);
        } else if (static_cast<size_t>(wi) >= children.size()) {
          return InvalidArgument("avro resolution: record {} value has {} fields", r.full_name(), children.size());
        } else {
          auto f = ResolveAs(std::move(children[wi]), r.fields[i].type, depth + 1);
          if (!f) return Fail(std::move(f).error().WithContext(fmt::format("field {}.{}", r.full_name(), r.fields[i].name)));
          fields.push_back(std::move(*f));
        }
      }
      return Value::Record(reader, std::move(fields));
    }
    case AvroType::kUnion: break;
  }
  return mismatch();
}

}  // namespace floe::avro
