// avro::Value constructors, comparison and the avsc-style JSON form.
#include "floe/avro/value.h"

#include <charconv>
#include <cmath>
#include <bit>
#include <cstring>

namespace floe::avro {
namespace {

void AppendJsonString(std::string_view s, std::string* out) {
  out->push_back('"');
  for (unsigned char c : s) {
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      case '\b': out->append("\\b"); break;
      case '\f': out->append("\\f"); break;
      default:
        if (c < 0x20) {
          out->append(fmt::format("\\u{:04x}", c));
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
  }
  out->push_back('"');
}

void AppendHex(std::string_view s, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  for (unsigned char c : s) {
    out->push_back(kHex[c >> 4]);
    out->push_back(kHex[c & 15]);
  }
  out->push_back('"');
}

void AppendJson(const Value& v, std::string* out) {
  switch (v.kind()) {
    case Value::Kind::kNull: out->append("null"); return;
    case Value::Kind::kBoolean: out->append(v.boolean() ? "true" : "false"); return;
    case Value::Kind::kInt:
    case Value::Kind::kLong: out->append(std::to_string(v.long_value())); return;
    case Value::Kind::kFloat:
    case Value::Kind::kDouble: {
      double d = v.double_value();
      if (!std::isfinite(d)) {
        AppendJsonString(FormatDoubleJs(d), out);
      } else {
        out->append(FormatDoubleJs(d));
      }
      return;
    }
    case Value::Kind::kString:
    case Value::Kind::kEnum: AppendJsonString(v.bytes(), out); return;
    case Value::Kind::kBytes:
    case Value::Kind::kFixed: AppendHex(v.bytes(), out); return;
    case Value::Kind::kArray: {
      out->push_back('[');
      for (size_t i = 0; i < v.children().size(); ++i) {
        if (i) out->push_back(',');
        AppendJson(v.children()[i], out);
      }
      out->push_back(']');
      return;
    }
    case Value::Kind::kMap: {
      out->push_back('{');
      for (size_t i = 0; i < v.children().size(); ++i) {
        if (i) out->push_back(',');
        AppendJsonString(v.keys()[i], out);
        out->push_back(':');
        AppendJson(v.children()[i], out);
      }
      out->push_back('}');
      return;
    }
    case Value::Kind::kRecord: {
      out->push_back('{');
      const NodePtr& schema = v.record_schema();
      for (size_t i = 0; i < v.children().size(); ++i) {
        if (i) out->push_back(',');
        if (schema && i < schema->fields.size()) {
          AppendJsonString(schema->fields[i].name, out);
        } else {
          AppendJsonString(std::to_string(i), out);
        }
        out->push_back(':');
        AppendJson(v.children()[i], out);
      }
      out->push_back('}');
      return;
    }
  }
}

}  // namespace

Value Value::Boolean(bool v) {
  Value r;
  r.kind_ = Kind::kBoolean;
  r.i_ = v ? 1 : 0;
  return r;
}
Value Value::Int(int32_t v) {
  Value r;
  r.kind_ = Kind::kInt;
  r.i_ = v;
  return r;
}
Value Value::Long(int64_t v) {
  Value r;
  r.kind_ = Kind::kLong;
  r.i_ = v;
  return r;
}
Value Value::Float(float v) {
  Value r;
  r.kind_ = Kind::kFloat;
  r.i_ = std::bit_cast<uint32_t>(v);
  r.d_ = v;
  return r;
}
Value Value::Double(double v) {
  Value r;
  r.kind_ = Kind::kDouble;
  r.d_ = v;
  return r;
}
Value Value::Bytes(std::string bytes) {
  Value r;
  r.kind_ = Kind::kBytes;
  r.bytes_ = std::move(bytes);
  return r;
}
Value Value::String(std::string text) {
  Value r;
  r.kind_ = Kind::kString;
  r.bytes_ = std::move(text);
  return r;
}
Value Value::Fixed(std::string bytes) {
  Value r;
  r.kind_ = Kind::kFixed;
  r.bytes_ = std::move(bytes);
  return r;
}
Value Value::Enum(int32_t index, std::string symbol) {
  Value r;
  r.kind_ = Kind::kEnum;
  r.i_ = index;
  r.bytes_ = std::move(symbol);
  return r;
}
Value Value::Record(NodePtr schema, std::vector<Value> fields) {
  Value r;
  r.kind_ = Kind::kRecord;
  r.schema_ = std::move(schema);
  r.children_ = std::move(fields);
  return r;
}
Value Value::Array(std::vector<Value> items) {
  Value r;
  r.kind_ = Kind::kArray;
  r.children_ = std::move(items);
  return r;
}
Value Value::Map(std::vector<std::pair<std::string, Value>> entries) {
  Value r;
  r.kind_ = Kind::kMap;
  r.keys_.reserve(entries.size());
  r.children_.reserve(entries.size());
  for (auto& [k, v] : entries) {
    r.keys_.push_back(std::move(k));
    r.children_.push_back(std::move(v));
  }
  return r;
}

const Value* Value::field(std::string_view name) const {
  if (kind_ != Kind::kRecord || !schema_) return nullptr;
  int i = schema_->FieldIndex(name);
  if (i < 0 || static_cast<size_t>(i) >= children_.size()) return nullptr;
  return &children_[i];
}

std::string_view Value::KindName(Kind kind) {
  switch (kind) {
    case Kind::kNull: return "null";
    case Kind::kBoolean: return "boolean";
    case Kind::kInt: return "int";
    case Kind::kLong: return "long";
    case Kind::kFloat: return "float";
    case Kind::kDouble: return "double";
    case Kind::kBytes: return "bytes";
    case Kind::kString: return "string";
    case Kind::kFixed: return "fixed";
    case Kind::kEnum: return "enum";
    case Kind::kRecord: return "record";
    case Kind::kArray: return "array";
    case Kind::kMap: return "map";
  }
  return "?";
}

bool Value::operator==(const Value& o) const {
  if (kind_ != o.kind_) return false;
  switch (kind_) {
    case Kind::kNull: return true;
    case Kind::kBoolean:
    case Kind::kInt:
    case Kind::kLong: return i_ == o.i_;
    case Kind::kFloat: return i_ == o.i_ || d_ == o.d_;
    case Kind::kDouble: return std::memcmp(&d_, &o.d_, sizeof d_) == 0 || d_ == o.d_;
    case Kind::kBytes:
    case Kind::kString:
    case Kind::kFixed: return bytes_ == o.bytes_;
    case Kind::kEnum: return i_ == o.i_;
    case Kind::kRecord:
    case Kind::kArray: return children_ == o.children_;
    case Kind::kMap: return keys_ == o.keys_ && children_ == o.children_;
  }
  return false;
}

std::string Value::ToJson() const {
  std::string out;
  AppendJson(*this, &out);
  return out;
}

std::string FormatDoubleJs(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
  if (x == 0) return std::signbit(x) ? "-0" : "0";
  // Shortest round-trip digits and decimal exponent.
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
  std::string_view s(buf, res.ptr - buf);
  bool neg = s[0] == '-';
  if (neg) s.remove_prefix(1);
  size_t e = s.find('e');
  std::string digits;
  for (char c : s.substr(0, e)) {
    if (c != '.') digits.push_back(c);
  }
  int exp10 = std::stoi(std::string(s.substr(e + 1)));
  // x = 0.d1d2...dk * 10^n with n = exp10 + 1 (ECMAScript Number::toString).
  int k = static_cast<int>(digits.size());
  int n = exp10 + 1;
  std::string out = neg ? "-" : "";
  if (k <= n && n <= 21) {
    out += digits;
    out.append(n - k, '0');
  } else if (0 < n && n <= 21) {
    out += digits.substr(0, n);
    out += '.';
    out += digits.substr(n);
  } else if (-6 < n && n <= 0) {
    out += "0.";
    out.append(-n, '0');
    out += digits;
  } else {
    out += digits[0];
    if (k > 1) {
      out += '.';
      out += digits.substr(1);
    }
    out += 'e';
    out += (n - 1 >= 0) ? "+" : "-";
    out += std::to_string(std::abs(n - 1));
  }
  return out;
}

}  // namespace floe::avro
