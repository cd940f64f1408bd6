// Confluent-framed Avro data as JSON for floe's row decoders (confluent.h).
#include "floe/avro/confluent.h"

#include "floe/util/strings.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <vector>

#include "floe/avro/encoding.h"
#include "floe/types/json_value.h"
#include "floe/util/civil_time.h"
#include "floe/util/nesting.h"

namespace floe::avro {

// A named namespace, not an anonymous one: the module compiles in unity
// batches, where schema.cc's Writer and value.cc's AppendHex would meet these.
namespace confluent_json {

using OrderedJson = nlohmann::ordered_json;

/// Items of an array or map whose items take no bytes (null, an empty
/// record) cannot be bounded by the bytes left: at most this many per datum.
constexpr int64_t kMaxEmptyItems = int64_t{1} << 20;
/// The longest decimal (bytes) written as text.
constexpr size_t kMaxDecimalBytes = 1024;

constexpr int64_t kMillisPerDay = int64_t{86400} * 1000;
constexpr int64_t kMicrosPerDay = kMillisPerDay * 1000;

void AppendInt(int64_t v, std::string* out) {
  char buf[24];
  auto [p, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, p);
}

/// A double as the shortest text that reads back as it (NaN and the
/// infinities as the strings the JSONL rules take).
void AppendDouble(double v, std::string* out) {
  if (std::isnan(v)) {
    *out += "\"NaN\"";
  } else if (std::isinf(v)) {
    *out += v > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  } else {
    char buf[32];
    auto [p, ec] = std::to_chars(buf, buf + sizeof(buf), v);
    out->append(buf, p);
  }
}

/// A JSON string (valid UTF-8): quotes, backslashes and control characters
/// escaped; other bytes as they are.
void AppendString(std::string_view s, std::string* out) {
  out->push_back('"');
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out->append(s.data() + start, i - start);
    switch (c) {
      case '"': *out += "\\\""; break;
      case '\\': *out += "\\\\"; break;
      case '\n': *out += "\\n"; break;
      case '\r': *out += "\\r"; break;
      case '\t': *out += "\\t"; break;
      case '\b': *out += "\\b"; break;
      case '\f': *out += "\\f"; break;
      default: {
        static const char* kHex = "0123456789abcdef";
        *out += "\\u00";
        out->push_back(kHex[c >> 4]);
        out->push_back(kHex[c & 15]);
      }
    }
    start = i + 1;
  }
  out->append(s.data() + start, s.size() - start);
  out->push_back('"');
}

void AppendHex(std::string_view bytes, std::string* out) {
  static const char* kHex = "0123456789abcdef";
  out->push_back('"');
  for (unsigned char c : bytes) {
    out->push_back(kHex[c >> 4]);
    out->push_back(kHex[c & 15]);
  }
  out->push_back('"');
}

/// Bytes as a JSON string of their base64 (Java's Base64 encoder, which
/// Kafka Connect's JSON converter uses for bytes).
void AppendBase64String(std::string_view bytes, std::string* out) {
  out->push_back('"');
  AppendBase64(bytes, out);
  out->push_back('"');
}

/// A big-endian two's complement integer (Avro's decimal) at `scale` as
/// decimal text: "-12.50".
Status AppendDecimal(std::string_view bytes, int32_t scale, std::string* out) {
  if (bytes.size() > kMaxDecimalBytes) {
    return InvalidArgument("a decimal of {} bytes (at most {} are read)", bytes.size(), kMaxDecimalBytes);
  }
  std::vector<uint8_t> mag(bytes.begin(), bytes.end());
  const bool negative = !mag.empty() && (mag[0] & 0x80);
  if (negative) {  // two's complement negation
    for (uint8_t& c : mag) c = static_cast<uint8_t>(~c);
    for (size_t i = mag.size(); i-- > 0;) {
      if (++mag[i] != 0) break;
    }
  }
  // Repeated division by 10^9, most significant byte first.
  std::vector<uint32_t> groups;
  size_t first = 0;
  while (first < mag.size() && mag[first] == 0) ++first;
  while (first < mag.size()) {
    uint64_t rem = 0;
    for (size_t i = first; i < mag.size(); ++i) {
      const uint64_t cur = (rem << 8) | mag[i];
      mag[i] = static_cast<uint8_t>(cur / 1000000000);
      rem = cur % 1000000000;
    }
    groups.push_back(static_cast<uint32_t>(rem));
    while (first < mag.size() && mag[first] == 0) ++first;
  }
  std::string digits;
  if (groups.empty()) {
    digits = "0";
  } else {
    digits = std::to_string(groups.back());
    for (size_t i = groups.size() - 1; i-- > 0;) {
      std::string g = std::to_string(groups[i]);
      digits.append(9 - g.size(), '0');
      digits += g;
    }
  }
  if (scale > 0) {
    if (digits.size() <= static_cast<size_t>(scale)) digits.insert(0, static_cast<size_t>(scale) + 1 - digits.size(), '0');
    digits.insert(digits.size() - static_cast<size_t>(scale), ".");
  }
  out->push_back('"');
  if (negative) out->push_back('-');
  *out += digits;
  out->push_back('"');
  return Ok();
}

/// A 16-byte uuid as 8-4-4-4-12 hex digits.
void AppendUuid(std::string_view b, std::string* out) {
  static const char* kHex = "0123456789abcdef";
  out->push_back('"');
  for (size_t i = 0; i < b.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out->push_back('-');
    const unsigned char c = static_cast<unsigned char>(b[i]);
    out->push_back(kHex[c >> 4]);
    out->push_back(kHex[c & 15]);
  }
  out->push_back('"');
}

void AppendTimestampText(int64_t units, int digits, std::string* out) {
  out->push_back('"');
  civil::AppendTimestamp(units, digits, civil::YearStyle::kJava, out);
  out->push_back('"');
}

/// Writes data of one schema as JSON, walking the schema beside the bytes.
class Writer {
 public:
  Writer(JsonDialect dialect, Decoder* in, std::string* out) : row_(dialect == JsonDialect::kRow), in_(in), out_(out) {}

  Status Write(const Node& n, int depth) {
    if (depth > kMaxTypeDepth) return InvalidArgument("the datum nests deeper than {} levels", kMaxTypeDepth);
    switch (n.type) {
      case AvroType::kNull: *out_ += "null"; return Ok();
      case AvroType::kBoolean: {
        FLOE_ASSIGN_OR_RETURN(bool b, in_->ReadBoolean());
        *out_ += b ? "true" : "false";
        return Ok();
      }
      case AvroType::kInt: {
        FLOE_ASSIGN_OR_RETURN(int32_t v, in_->ReadInt());
        if (row_ && n.logical_type == "date") {
          out_->push_back('"');
          civil::AppendDate(v, civil::YearStyle::kJava, out_);
          out_->push_back('"');
        } else if (row_ && n.logical_type == "time-millis") {
          if (v < 0 || v >= kMillisPerDay) return InvalidArgument("time-millis value {} is not a time of day", v);
          out_->push_back('"');
          civil::AppendTimeOfDay(v, 3, out_);
          out_->push_back('"');
        } else {
          AppendInt(v, out_);
        }
        return Ok();
      }
      case AvroType::kLong: {
        FLOE_ASSIGN_OR_RETURN(int64_t v, in_->ReadLong());
        if (row_ && !n.logical_type.empty()) return WriteLogicalLong(n.logical_type, v);
        AppendInt(v, out_);
        return Ok();
      }
      case AvroType::kFloat: {
        FLOE_ASSIGN_OR_RETURN(float v, in_->ReadFloat());
        AppendDouble(static_cast<double>(v), out_);
        return Ok();
      }
      case AvroType::kDouble: {
        FLOE_ASSIGN_OR_RETURN(double v, in_->ReadDouble());
        AppendDouble(v, out_);
        return Ok();
      }
      case AvroType::kBytes: {
        FLOE_ASSIGN_OR_RETURN(std::string_view b, in_->ReadBytes());
        return WriteBytes(n, b);
      }
      case AvroType::kFixed: {
        FLOE_ASSIGN_OR_RETURN(std::string_view b, in_->ReadFixed(static_cast<size_t>(n.size)));
        if (row_ && n.logical_type == "uuid" && n.size == 16) {
          AppendUuid(b, out_);
          return Ok();
        }
        return WriteBytes(n, b);
      }
      case AvroType::kString: {
        FLOE_ASSIGN_OR_RETURN(std::string_view s, in_->ReadBytes());
        // Avro strings are UTF-8 (Avro spec: Primitive Types); JSON text must be.
        if (!IsValidUtf8(s)) return Corrupt("avro: a string that is not valid UTF-8");
        AppendString(s, out_);
        return Ok();
      }
      case AvroType::kEnum: {
        FLOE_ASSIGN_OR_RETURN(int64_t i, in_->ReadLong());
        if (i < 0 || static_cast<size_t>(i) >= n.symbols.size()) {
          return Corrupt("avro: enum index {} of {} ({} symbols)", i, n.full_name(), n.symbols.size());
        }
        AppendString(n.symbols[static_cast<size_t>(i)], out_);
        return Ok();
      }
      case AvroType::kRecord: {
        out_->push_back('{');
        for (size_t i = 0; i < n.fields.size(); ++i) {
          if (i > 0) out_->push_back(',');
          AppendString(n.fields[i].name, out_);
          out_->push_back(':');
          if (Status st = Write(*n.fields[i].type, depth + 1); !st) {
            return Fail(st.error().WithContext(fmt::format("field '{}'", n.fields[i].name)));
          }
        }
        out_->push_back('}');
        return Ok();
      }
      case AvroType::kArray:
      case AvroType::kMap: return WriteBlocks(n, depth);
      case AvroType::kUnion: {
        FLOE_ASSIGN_OR_RETURN(int64_t i, in_->ReadLong());
        if (i < 0 || static_cast<size_t>(i) >= n.branches.size()) {
          return Corrupt("avro: union branch {} of a union of {}", i, n.branches.size());
        }
        return Write(*n.branches[static_cast<size_t>(i)], depth + 1);
      }
    }
    return Internal("avro: unknown type");
  }

 private:
  Status WriteLogicalLong(const std::string& logical, int64_t v) {
    if (logical == "time-micros") {
      if (v < 0 || v >= kMicrosPerDay) return InvalidArgument("time-micros value {} is not a time of day", v);
      out_->push_back('"');
      civil::AppendTimeOfDay(v, 6, out_);
      out_->push_back('"');
    } else if (logical == "timestamp-millis" || logical == "local-timestamp-millis") {
      constexpr int64_t kLimit = INT64_MAX / 1000;
      if (v > kLimit || v < -kLimit) return InvalidArgument("{} value {} is beyond the years a timestamp holds", logical, v);
      AppendTimestampText(v * 1000, 6, out_);
    } else if (logical == "timestamp-micros" || logical == "local-timestamp-micros") {
      AppendTimestampText(v, 6, out_);
    } else if (logical == "timestamp-nanos" || logical == "local-timestamp-nanos") {
      AppendTimestampText(v, 9, out_);
    } else {
      AppendInt(v, out_);
    }
    return Ok();
  }

  Status WriteBytes(const Node& n, std::string_view b) {
    if (!row_) {
      AppendBase64String(b, out_);
      return Ok();
    }
    if (n.logical_type == "decimal") return AppendDecimal(b, n.scale, out_);
    AppendHex(b, out_);
    return Ok();
  }

  Status WriteBlocks(const Node& n, int depth) {
    const bool map = n.type == AvroType::kMap;
    out_->push_back(map ? '{' : '[');
    const size_t min_size = MinEncodedSize(*n.items);
    bool first = true;
    for (;;) {
      FLOE_ASSIGN_OR_RETURN(int64_t count, in_->ReadBlockCount());
      if (count == 0) break;
      // Each item takes at least min_size bytes (a map entry one more, its key's length).
      const size_t per_item = min_size + (map ? 1 : 0);
      if (per_item > 0 && static_cast<uint64_t>(count) > in_->remaining() / per_item) {
        return Corrupt("avro: block of {} items exceeds the {} bytes left", count, in_->remaining());
      }
      if (per_item == 0 && (empty_items_ += count) > kMaxEmptyItems) {
        return Corrupt("avro: more than {} items that take no bytes", kMaxEmptyItems);
      }
      for (int64_t i = 0; i < count; ++i) {
        if (!first) out_->push_back(',');
        first = false;
        if (map) {
          FLOE_ASSIGN_OR_RETURN(std::string_view key, in_->ReadBytes());
          if (!IsValidUtf8(key)) return Corrupt("avro: a map key that is not valid UTF-8");
          AppendString(key, out_);
          out_->push_back(':');
        }
        FLOE_RETURN_IF_ERROR(Write(*n.items, depth + 1));
      }
    }
    out_->push_back(map ? '}' : ']');
    return Ok();
  }

  bool row_;
  Decoder* in_;
  std::string* out_;
  int64_t empty_items_ = 0;
};

// ------------------------------------------------ the Connect JSON schema

/// The Connect schema name of Avro's own logical types, for a schema that
/// was not written by AvroConverter (no connect.name).
std::string_view ConnectNameOfLogical(const Node& n) {
  const std::string& l = n.logical_type;
  if (n.type == AvroType::kInt) {
    if (l == "date") return "org.apache.kafka.connect.data.Date";
    if (l == "time-millis") return "org.apache.kafka.connect.data.Time";
  } else if (n.type == AvroType::kLong) {
    if (l == "time-micros") return "io.debezium.time.MicroTime";
    if (l == "timestamp-millis") return "org.apache.kafka.connect.data.Timestamp";
    if (l == "local-timestamp-millis") return "io.debezium.time.Timestamp";
    if (l == "timestamp-micros" || l == "local-timestamp-micros") return "io.debezium.time.MicroTimestamp";
    if (l == "timestamp-nanos" || l == "local-timestamp-nanos") return "io.debezium.time.NanoTimestamp";
  } else if (n.type == AvroType::kBytes || n.type == AvroType::kFixed) {
    if (l == "decimal") return "org.apache.kafka.connect.data.Decimal";
  } else if (n.type == AvroType::kString) {
    if (l == "uuid") return "io.debezium.data.Uuid";
  }
  return {};
}

class ConnectSchemaBuilder {
 public:
  Result<OrderedJson> Build(const Node& n, bool optional, int depth) {
    if (depth > kMaxTypeDepth) return InvalidArgument("the schema nests deeper than {} levels", kMaxTypeDepth);
    if (n.type == AvroType::kUnion) {
      // Kafka Connect's optional: ["null", T] (either order).
      const auto other = n.OptionalBranch();
      if (!other) {
        return InvalidArgument(
            "a union of {} branches: Kafka Connect's schemas hold [\"null\", T] unions only (the Debezium envelope "
            "and its images have no others)",
            n.branches.size());
      }
      return Build(*n.branches[static_cast<size_t>(*other)], true, depth + 1);
    }
    OrderedJson j;
    switch (n.type) {
      case AvroType::kNull: return InvalidArgument("a field of type null: Kafka Connect's schemas have none");
      case AvroType::kBoolean: j["type"] = "boolean"; break;
      case AvroType::kInt: {
        auto t = n.attributes.GetString("connect.type");
        j["type"] = t && (*t == "int8" || *t == "int16") ? *t : std::string("int32");
        break;
      }
      case AvroType::kLong: j["type"] = "int64"; break;
      case AvroType::kFloat: j["type"] = "float32"; break;
      case AvroType::kDouble: j["type"] = "float64"; break;
      case AvroType::kBytes:
      case AvroType::kFixed: j["type"] = "bytes"; break;
      case AvroType::kString:
      case AvroType::kEnum: j["type"] = "string"; break;
      case AvroType::kArray: {
        j["type"] = "array";
        FLOE_ASSIGN_OR_RETURN(j["items"], Build(*n.items, false, depth + 1));
        break;
      }
      case AvroType::kMap: {
        j["type"] = "map";
        j["keys"] = OrderedJson{{"type", "string"}, {"optional", false}};
        FLOE_ASSIGN_OR_RETURN(j["values"], Build(*n.items, false, depth + 1));
        break;
      }
      case AvroType::kRecord: {
        for (const Node* open : open_) {
          if (open == &n) return InvalidArgument("record {} contains itself: Kafka Connect's schemas cannot", n.full_name());
        }
        open_.push_back(&n);
        j["type"] = "struct";
        OrderedJson fields = OrderedJson::array();
        for (const Field& f : n.fields) {
          auto field = Build(*f.type, false, depth + 1);
          if (!field) {
            open_.pop_back();
            return Fail(field.error().WithContext(fmt::format("field '{}'", f.name)));
          }
          (*field)["field"] = f.name;
          fields.push_back(std::move(*field));
        }
        open_.pop_back();
        j["fields"] = std::move(fields);
        break;
      }
      case AvroType::kUnion: break;
    }
    j["optional"] = optional;
    // The name, version and parameters AvroConverter keeps as connect.* attributes.
    std::string name;
    if (auto cn = n.attributes.GetString("connect.name")) {
      name = *cn;
    } else if (auto logical = ConnectNameOfLogical(n); !logical.empty()) {
      name = logical;
    } else if (n.type == AvroType::kRecord) {
      name = n.full_name();
    }
    if (!name.empty()) j["name"] = name;
    if (auto v = n.attributes.GetInt("connect.version")) j["version"] = *v;
    OrderedJson params = OrderedJson::object();
    if (const std::string* p = n.attributes.Find("connect.parameters")) {
      OrderedJson pj = OrderedJson::parse(*p, nullptr, false);
      if (pj.is_object()) params = std::move(pj);
    }
    if (name == "org.apache.kafka.connect.data.Decimal" && !params.contains("scale")) {
      params["scale"] = std::to_string(n.logical_type == "decimal" ? n.scale : 0);
      if (n.logical_type == "decimal") params["connect.decimal.precision"] = std::to_string(n.precision);
    }
    if (!params.empty()) j["parameters"] = std::move(params);
    return j;
  }

 private:
  std::vector<const Node*> open_;  ///< records being built (a recursive one is refused)
};

}  // namespace confluent_json

Result<ConfluentFrame> ParseConfluentFrame(std::string_view value) {
  if (value.size() < kConfluentHeaderBytes) {
    return Corrupt("not in Confluent's wire format: {} bytes, shorter than the 5-byte header (magic byte 0, schema id)",
                   value.size());
  }
  if (static_cast<uint8_t>(value[0]) != kConfluentMagic) {
    return Corrupt("not in Confluent's wire format: the first byte is 0x{:02x}, not the magic byte 0x00",
                   static_cast<uint8_t>(value[0]));
  }
  ConfluentFrame f;
  uint32_t id = 0;
  for (size_t i = 1; i < kConfluentHeaderBytes; ++i) id = (id << 8) | static_cast<uint8_t>(value[i]);
  f.schema_id = static_cast<int32_t>(id);
  f.body = value.substr(kConfluentHeaderBytes);
  return f;
}

std::string ConfluentHeader(int32_t schema_id) {
  const auto id = static_cast<uint32_t>(schema_id);
  std::string h(kConfluentHeaderBytes, '\0');
  h[1] = static_cast<char>(id >> 24);
  h[2] = static_cast<char>((id >> 16) & 0xff);
  h[3] = static_cast<char>((id >> 8) & 0xff);
  h[4] = static_cast<char>(id & 0xff);
  return h;
}

Result<std::shared_ptr<const DatumToJson>> DatumToJson::Make(std::string_view schema_json, JsonDialect dialect) {
  FLOE_ASSIGN_OR_RETURN(AvroSchema schema, AvroSchema::Parse(schema_json));
  if (!schema.root() || schema.root()->type != AvroType::kRecord) {
    return InvalidArgument("the writer's schema is {}, not a record: each message must be one {}",
                           schema.root() ? AvroTypeName(schema.root()->type) : std::string_view("empty"),
                           dialect == JsonDialect::kRow ? "row (a record)" : "change event (a record)");
  }
  std::shared_ptr<DatumToJson> t(new DatumToJson());
  t->schema_ = std::move(schema);
  t->dialect_ = dialect;
  if (dialect == JsonDialect::kConnect) {
    confluent_json::ConnectSchemaBuilder b;
    auto j = b.Build(*t->schema_.root(), false, 0);
    if (!j) return Fail(j.error().WithContext("the writer's schema as a Kafka Connect schema"));
    t->connect_schema_ = j->dump();
  }
  return std::shared_ptr<const DatumToJson>(std::move(t));
}

Status DatumToJson::Append(std::string_view body, std::string* out) const {
  const size_t mark = out->size();
  Decoder in(body);
  confluent_json::Writer w(dialect_, &in, out);
  Status st = w.Write(*schema_.root(), 0);
  if (st && in.remaining() > 0) {
    st = Corrupt("avro: {} bytes follow the datum (the body is {} bytes; was it written with another schema?)",
                 in.remaining(), body.size());
  }
  if (!st) out->resize(mark);
  return st;
}

}  // namespace floe::avro
