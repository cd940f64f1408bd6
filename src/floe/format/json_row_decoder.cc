// The JSON value rules of the JSONL decoder as a decoder of one object into
// one row (see json_row_decoder_internal.h), on simdjson On-Demand. A decode
// plan mirrors the schema so that key lookup and "seen" tracking cost no
// allocation per row. Errors are collected on unwind: the innermost call
// records the rule, each level on the way out adds its column name.
#include "floe/format/json_row_decoder_internal.h"

#include <charconv>
#include <cstring>
#include <limits>
#include <optional>

#include "floe/format/byte_stream.h"
#include "floe/format/json_syntax_internal.h"
#include "floe/types/json_value.h"

namespace floe::format::internal {

namespace od = simdjson::ondemand;
static_assert(ByteStream::kPadding >= simdjson::SIMDJSON_PADDING);

namespace {

/// One node of the decode plan per schema field (and list element, map key/value).
struct Node {
  const Type* type = nullptr;
  std::string name;
  bool plain_name = false;  ///< no '"' or '\\': the raw JSON key equals the name
  char name16[16] = {};     ///< the name's first 16 bytes, zero-padded (fast compare)
  bool required = false;
  std::vector<Node> children;
  // Struct lookup: field name -> child index, and a per-object "seen" mark.
  std::unordered_map<std::string_view, int> index;
  std::vector<uint64_t> seen;
  uint64_t gen = 0;
  /// Debezium mode, on a column whose type has encodings beyond the JSONL
  /// rules (date, time, timestamps, decimal, binary, fixed).
  bool debezium = false;
  DebeziumEncoding encoding;
};

bool HasDebeziumEncodings(TypeId id) {
  switch (id) {
    case TypeId::kDate:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
    case TypeId::kDecimal:
    case TypeId::kBinary:
    case TypeId::kFixed: return true;
    default: return false;
  }
}

void EnableDebeziumNode(Node* n) {
  if (n->type) n->debezium = HasDebeziumEncodings(n->type->id);
  for (auto& c : n->children) EnableDebeziumNode(&c);
}

bool IsBase64Text(std::string_view s) {
  for (char c : s) {
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
          c == '/' || c == '=')) {
      return false;
    }
  }
  return true;
}

constexpr int64_t kNanosPerDay = int64_t{86400} * 1000000000;

void BuildNode(const NestedField& f, Node* n) {
  n->type = f.type.get();
  n->name = f.name;
  n->plain_name = f.name.find_first_of("\"\\") == std::string::npos;
  std::memcpy(n->name16, f.name.data(), std::min<size_t>(f.name.size(), 16));
  n->required = f.required;
  for (const auto& c : f.type->fields) {
    n->children.emplace_back();
    BuildNode(c, &n->children.back());
  }
  if (f.type->id == TypeId::kStruct) {
    for (size_t i = 0; i < n->children.size(); ++i) {
      n->index.emplace(std::string_view(n->children[i].name), static_cast<int>(i));
    }
    n->seen.assign(n->children.size(), 0);
  }
}

/// Whether `n` bytes at `p` hold a backslash, 8 bytes at a time. Reads up to
/// 7 bytes past the end: the decoder's buffers are padded.
inline bool HasBackslash(const char* p, size_t n) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
  constexpr uint64_t kBackslashes = 0x5cULL * kOnes;
  for (size_t i = 0; i < n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    w ^= kBackslashes;  // a backslash byte becomes zero
    uint64_t zero = (w - kOnes) & ~w & kHigh;
    if (n - i < 8) zero &= (uint64_t{1} << (8 * (n - i))) - 1;
    if (zero) return true;
  }
  return false;
}

std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' ||
                        s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}


/// Offset of the first byte that breaks UTF-8 in `s`, or npos.
size_t FirstInvalidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
    if (i + len > s.size() || !IsValidUtf8(s.substr(i, len))) return i;
    i += len;
  }
  return std::string_view::npos;
}

}  // namespace

const char* JsonTypeName(od::json_type t) {
  switch (t) {
    case od::json_type::array: return "an array";
    case od::json_type::object: return "an object";
    case od::json_type::number: return "a number";
    case od::json_type::string: return "a string";
    case od::json_type::boolean: return "a boolean";
    case od::json_type::null: return "null";
  }
  return "a value";
}

class JsonRowDecoder::Impl {
 public:
  Impl(SchemaPtr schema, bool ignore_unknown_keys)
      : schema_(std::move(schema)), ignore_unknown_keys_(ignore_unknown_keys) {
    root_.type = nullptr;
    for (const auto& f : schema_->fields()) {
      root_.children.emplace_back();
      BuildNode(f, &root_.children.back());
    }
    for (size_t i = 0; i < root_.children.size(); ++i) {
      root_.index.emplace(std::string_view(root_.children[i].name), static_cast<int>(i));
    }
    root_.seen.assign(root_.children.size(), 0);
  }

  RowError TakeError() {
    RowError e;
    for (auto it = err_path_.rbegin(); it != err_path_.rend(); ++it) {
      if (!e.column.empty()) e.column += '.';
      e.column += *it;
    }
    e.rule = std::move(err_);
    e.fatal = err_fatal_;
    err_path_.clear();
    err_.clear();
    err_fatal_ = false;
    return e;
  }

  void SetLine(std::string_view line) {
    line_begin_ = line.data();
    line_end_ = line.data() + line.size();
  }

  bool DecodeObject(od::object& obj, std::string_view line, ColumnVector* cols) {
    SetLine(line);
    return DecodeObjectFields(root_, cols, obj, /*top=*/true);
  }

  bool BadUtf8() {
    const std::string_view line = Line();
    const size_t bad = FirstInvalidUtf8(line);
    if (bad == std::string_view::npos) return Rule("invalid UTF-8");
    return Rule(fmt::format("invalid UTF-8 (byte 0x{:02x} at offset {} of the line)",
                            static_cast<unsigned char>(line[bad]), bad));
  }

  bool Rule(std::string msg) {
    err_ = std::move(msg);
    return false;
  }
  bool JsonError(simdjson::error_code code) {
    if (code == simdjson::UTF8_ERROR) return Rule("invalid UTF-8");
    if (code == simdjson::DEPTH_ERROR) {
      // The parser's limit, not the line's fault alone: not a row to reject.
      err_fatal_ = true;
      return Rule("JSON nested deeper than the parser's limit");
    }
    // simdjson's messages describe its own state ("document ended early") and
    // give no position: find where the line breaks the grammar instead.
    if (auto e = FindJsonSyntaxError(Line())) return SyntaxRule(e->offset, e->what);
    if (code == simdjson::INCORRECT_TYPE) return Rule("malformed JSON (unexpected value type)");
    return Rule(fmt::format("malformed JSON ({})", simdjson::error_message(code)));
  }
  std::string_view Line() const {
    return std::string_view(line_begin_, static_cast<size_t>(line_end_ - line_begin_));
  }
  bool SyntaxRule(size_t offset, std::string_view what) {
    return Rule(SyntaxMessage(Line(), offset, what));
  }
  bool WrongType(const Node& n, od::value& v, od::json_type jt, const char* expected) {
    std::string_view raw = TrimRight(v.raw_json_token());
    if (jt == od::json_type::object || jt == od::json_type::array) raw = {};
    std::string shown = raw.empty() ? "" : " " + std::string(raw.size() > 64 ? raw.substr(0, 61) : raw) + (raw.size() > 64 ? "..." : "");
    return Rule(fmt::format("expected {} for {}, found {}{}", expected, SqlTypeName(*n.type),
                            JsonTypeName(jt), shown));
  }

  /// The text of a JSON string whose opening quote precedes `p`, without
  /// unescaping, when it holds no escape (the common case): no copy, no call
  /// into simdjson's string parser. False when an escape or no closing quote
  /// (within the line) is found.
  bool PlainString(const char* p, std::string_view* out) const {
    if (p < line_begin_ || p >= line_end_) return false;
    // Keys and values are short: a byte loop beats two memchr calls.
    for (const char* q = p; q < line_end_; ++q) {
      char c = *q;
      if (c == '"') {
        *out = std::string_view(p, static_cast<size_t>(q - p));
        return true;
      }
      if (c == '\\') return false;
    }
    return false;
  }

  /// True when the raw key text at `p` (after its opening quote) is exactly
  /// the field's name followed by the closing quote.
  bool RawKeyIs(const char* p, const Node& n) const {
    const size_t len = n.name.size();
    if (!n.plain_name || p < line_begin_ || p + len >= line_end_ || p[len] != '"') return false;
    if (len <= 16) {
      // 16-byte loads: the read buffer has padding after every line.
      uint64_t a0, a1, b0, b1;
      std::memcpy(&a0, p, 8);
      std::memcpy(&a1, p + 8, 8);
      std::memcpy(&b0, n.name16, 8);
      std::memcpy(&b1, n.name16 + 8, 8);
      const uint64_t m0 = len >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * len)) - 1;
      const uint64_t m1 = len >= 16 ? ~uint64_t{0} : len <= 8 ? 0 : (uint64_t{1} << (8 * (len - 8))) - 1;
      return ((a0 ^ b0) & m0) == 0 && ((a1 ^ b1) & m1) == 0;
    }
    return std::memcmp(p, n.name.data(), len) == 0;
  }

  /// The content of a JSON string value from its raw token (quotes and
  /// trailing whitespace included) when it holds no escape.
  static bool PlainToken(std::string_view raw, std::string_view* out) {
    raw = TrimRight(raw);
    if (raw.size() < 2 || raw.front() != '"' || raw.back() != '"') return false;
    std::string_view content = raw.substr(1, raw.size() - 2);
    if (HasBackslash(content.data(), content.size())) return false;
    *out = content;
    return true;
  }

  bool DecodeLine(std::string_view line, ColumnVector* cols) {
    SetLine(line);
    simdjson::padded_string_view view(line.data(), line.size(), line.size() + ByteStream::kPadding);
    od::document doc;
    auto err = parser_.iterate(view).get(doc);
    if (err == simdjson::UTF8_ERROR) return LocateBadUtf8(line);
    if (err) return JsonError(err);
    od::object obj;
    od::json_type jt;
    if ((err = doc.type().get(jt))) return JsonError(err);
    if (jt != od::json_type::object) {
      // type() looks at the first byte only: 'nope' would be "null", 'tru' "a boolean".
      if (auto e = FindJsonSyntaxError(line)) return SyntaxRule(e->offset, e->what);
      return Rule(fmt::format("expected a JSON object, found {}", JsonTypeName(jt)));
    }
    if ((err = doc.get_object().get(obj))) return JsonError(err);
    if (!DecodeObjectFields(root_, cols, obj, /*top=*/true)) return false;
    // In bounds after the object means more tokens follow it.
    if (!doc.current_location().error()) {
      if (auto e = FindJsonSyntaxError(line)) return SyntaxRule(e->offset, e->what);
      return Rule("malformed JSON (trailing content after the object)");
    }
    return true;
  }

  /// On a UTF-8 error, finds the column whose string holds the bad byte: the
  /// line is decoded again from a copy with the bad bytes replaced, and the
  /// string decoder checks each value's position.
  bool LocateBadUtf8(std::string_view line) {
    size_t bad = FirstInvalidUtf8(line);
    if (bad == std::string_view::npos) return Rule("invalid UTF-8");
    unsigned char bad_byte = static_cast<unsigned char>(line[bad]);
    scratch_.assign(line.data(), line.size());
    scratch_.append(ByteStream::kPadding, '\0');
    for (size_t i = bad; i < line.size();) {
      size_t next = FirstInvalidUtf8(std::string_view(scratch_.data() + i, line.size() - i));
      if (next == std::string_view::npos) break;
      scratch_[i + next] = '?';
      i += next + 1;
    }
    poison_ = scratch_.data() + bad;
    // Decode into a throwaway batch so the real one is not disturbed further.
    Batch tmp(schema_);
    bool ok = DecodeLine(std::string_view(scratch_.data(), line.size()), tmp.columns.data());
    poison_ = nullptr;
    std::string where = fmt::format("byte 0x{:02x} at offset {} of the line", bad_byte, bad);
    if (!ok && err_.starts_with("invalid UTF-8")) {
      err_ = "invalid UTF-8 in a string (" + where + ")";
      return false;
    }
    err_path_.clear();
    return Rule("invalid UTF-8 (" + where + ")");
  }

  /// Decodes the fields of an object into the columns of struct node `n`
  /// (`cols` = the struct's children, or the batch's columns at the top).
  bool DecodeObjectFields(Node& n, ColumnVector* cols, od::object& obj, bool top) {
    if (++n.gen == 0) {
      std::fill(n.seen.begin(), n.seen.end(), 0);
      n.gen = 1;
    }
    const size_t nfields = n.children.size();
    size_t expect = 0;  // keys usually come in schema order
    for (auto field_result : obj) {
      // By reference into the result: copying simdjson's small structs here
      // cost a store-forwarding stall per field.
      auto err = field_result.error();
      if (err) return JsonError(err);
      od::field& field = field_result.value_unsafe();
      const char* raw_key = field.key().raw();
      std::string_view key;
      int idx = -1;
      if (expect < nfields && RawKeyIs(raw_key, n.children[expect])) {
        idx = static_cast<int>(expect);  // the common case: keys in schema order
      } else {
        if (!PlainString(raw_key, &key)) {
          if ((err = field.unescaped_key().get(key))) return JsonError(err);
        }
        auto it = n.index.find(key);
        if (it != n.index.end()) idx = it->second;
      }
      if (idx < 0) {
        if (ignore_unknown_keys_) continue;
        if (top) return Rule(fmt::format("unknown column '{}'", key));
        return Rule(fmt::format("unknown field '{}' in {}", key, SqlTypeName(*n.type)));
      }
      expect = static_cast<size_t>(idx) + 1;
      Node& child = n.children[idx];
      if (n.seen[idx] == n.gen) {
        err_path_.push_back(child.name);
        return Rule("duplicate key");
      }
      n.seen[idx] = n.gen;
      od::value& v = field.value();
      if (!DecodeValue(child, cols[idx], v)) {
        err_path_.push_back(child.name);
        return false;
      }
    }
    for (size_t i = 0; i < nfields; ++i) {
      if (n.seen[i] == n.gen) continue;
      if (n.children[i].required) {
        err_path_.push_back(n.children[i].name);
        return Rule("null in NOT NULL column (the key is missing)");
      }
      cols[i].AppendNull();
    }
    return true;
  }

  bool DecodeValue(Node& n, ColumnVector& col, od::value& v) {
    od::json_type jt;
    auto err = v.type().get(jt);
    if (err) return JsonError(err);
    if (jt == od::json_type::number) {
      // RFC 8259: no leading zeros. simdjson's own number parsing refuses
      // them, but the fallbacks below parse the raw text, which would not.
      std::string_view raw = TrimRight(v.raw_json_token());
      if (auto lz = LeadingZeroError(raw)) {
        return SyntaxRule(static_cast<size_t>(raw.data() - line_begin_), *lz);
      }
    } else if (jt == od::json_type::boolean) {
      // type() looks at the first byte only: 'tru' and 'falsey' must not pass.
      std::string_view raw = TrimRight(v.raw_json_token());
      if (raw != "true" && raw != "false") return JsonError(simdjson::T_ATOM_ERROR);
    }
    if (jt == od::json_type::null) {
      // type() looks at the first byte only: "nul" or "nullx" must not pass.
      bool is_null = false;
      if (v.is_null().get(is_null) != simdjson::SUCCESS || !is_null) return JsonError(simdjson::N_ATOM_ERROR);
      if (n.required) return Rule("null in NOT NULL column");
      col.AppendNull();
      return true;
    }
    if (n.debezium) {
      const int r = DecodeDebezium(n, col, v, jt);
      if (r >= 0) return r != 0;
    }
    const Type& type = *n.type;
    switch (type.id) {
      case TypeId::kBoolean: {
        if (jt != od::json_type::boolean) return WrongType(n, v, jt, "true or false");
        bool b;
        if ((err = v.get_bool().get(b))) return JsonError(err);
        col.Append<uint8_t>(b ? 1 : 0);
        return true;
      }
      case TypeId::kInt:
      case TypeId::kLong: {
        if (jt != od::json_type::number) return WrongType(n, v, jt, "an integer");
        int64_t x;
        if (v.get_int64().get(x) != simdjson::SUCCESS) {
          auto parsed = ParseIntegerText(TrimRight(v.raw_json_token()), type);
          if (!parsed) return Rule(parsed.error().message);
          x = *parsed;
        }
        if (type.id == TypeId::kInt) {
          if (x < std::numeric_limits<int32_t>::min() || x > std::numeric_limits<int32_t>::max()) {
            return Rule(fmt::format("value {} overflows INT", x));
          }
          col.Append<int32_t>(static_cast<int32_t>(x));
        } else {
          col.Append<int64_t>(x);
        }
        return true;
      }
      case TypeId::kDouble: {
        double d;
        if (jt == od::json_type::number) {
          // simdjson's double of a number with more than 19 digits can be
          // wrong (103 digits gave -1.6e-62 for -0.555..., jsonl_diff_fuzz):
          // such tokens are parsed by std::from_chars (correctly rounded), as
          // the fast path does.
          const std::string_view raw = TrimRight(v.raw_json_token());
          if (raw.size() > 19 || v.get_double().get(d) != simdjson::SUCCESS) {
            auto parsed = ParseDoubleText(raw);
            if (!parsed) return Rule(parsed.error().message);
            d = *parsed;
          }
        } else if (jt == od::json_type::string) {
          std::string_view s;
          if ((err = v.get_string().get(s))) return JsonError(err);
          auto parsed = ParseDoubleText(s);
          if (!parsed) return Rule(parsed.error().message);
          d = *parsed;
        } else {
          return WrongType(n, v, jt, "a number");
        }
        col.Append<double>(d);
        return true;
      }
      case TypeId::kFloat: {
        std::string_view s;
        if (jt == od::json_type::number) {
          s = TrimRight(v.raw_json_token());  // exact: no rounding through double
        } else if (jt == od::json_type::string) {
          if ((err = v.get_string().get(s))) return JsonError(err);
        } else {
          return WrongType(n, v, jt, "a number");
        }
        auto parsed = ParseFloatText(s);
        if (!parsed) return Rule(parsed.error().message);
        col.Append<float>(*parsed);
        return true;
      }
      case TypeId::kDecimal: {
        std::string_view s;
        if (jt == od::json_type::number) {
          s = TrimRight(v.raw_json_token());
        } else if (jt == od::json_type::string) {
          if ((err = v.get_string().get(s))) return JsonError(err);
        } else {
          return WrongType(n, v, jt, "a number or a decimal string");
        }
        auto parsed = ParseDecimalText(s, type);
        if (!parsed) return Rule(parsed.error().message);
        col.Append<int128_t>(*parsed);
        return true;
      }
      default: break;
    }
    if (type.is_nested()) return DecodeNested(n, col, v, jt);
    // The remaining primitives are all JSON strings.
    if (jt != od::json_type::string) {
      return WrongType(n, v, jt,
                       type.id == TypeId::kBinary || type.id == TypeId::kFixed ? "a hex string"
                                                                               : "a string");
    }
    if (poison_ && type.id == TypeId::kString) {
      std::string_view raw = v.raw_json_token();
      if (raw.data() <= poison_ && poison_ < raw.data() + raw.size()) {
        return Rule("invalid UTF-8");
      }
    }
    std::string_view s;
    if (!PlainToken(v.raw_json_token(), &s)) {
      if ((err = v.get_string().get(s))) return JsonError(err);
    }
    switch (type.id) {
      case TypeId::kString: col.AppendBytes(s); return true;
      case TypeId::kDate: {
        auto r = ParseDateText(s);
        if (!r) return Rule(r.error().message);
        col.Append<int32_t>(*r);
        return true;
      }
      case TypeId::kTime: {
        auto r = ParseTimeText(s);
        if (!r) return Rule(r.error().message);
        col.Append<int64_t>(*r);
        return true;
      }
      case TypeId::kTimestamp:
      case TypeId::kTimestampTz:
      case TypeId::kTimestampNs:
      case TypeId::kTimestampTzNs: {
        auto r = ParseTimestampText(s, type, &date_cache_);
        if (!r) return Rule(r.error().message);
        col.Append<int64_t>(*r);
        return true;
      }
      case TypeId::kUuid: {
        uint8_t b[16];
        if (auto st = ParseUuidText(s, b); !st) return Rule(st.error().message);
        col.AppendBytes(std::string_view(reinterpret_cast<const char*>(b), 16));
        return true;
      }
      case TypeId::kFixed:
      case TypeId::kBinary: {
        hex_.clear();
        auto st = ParseHexText(s, type.id == TypeId::kFixed ? type.length : -1, &hex_);
        if (!st) return Rule(st.error().message);
        col.AppendBytes(hex_);
        return true;
      }
      default: return Rule("unsupported type " + SqlTypeName(type));
    }
  }

  /// A value in one of Debezium's encodings (Node::debezium): 1 decoded, 0
  /// an error, -1 not such a value (the JSONL rules apply; `v` is not
  /// consumed then).
  int DecodeDebezium(Node& n, ColumnVector& col, od::value& v, od::json_type jt) {
    const Type& type = *n.type;
    const DebeziumEncoding& e = n.encoding;
    switch (type.id) {
      case TypeId::kDate:
      case TypeId::kTime:
      case TypeId::kTimestamp:
      case TypeId::kTimestampTz:
      case TypeId::kTimestampNs:
      case TypeId::kTimestampTzNs: {
        if (jt == od::json_type::string && type.id == TypeId::kTime) return ZonedTime(col, v);
        if (jt != od::json_type::number) return -1;
        int64_t x;
        if (v.get_int64().get(x) != simdjson::SUCCESS) {
          return Rule(fmt::format("expected an integer ({}) for {}, found {}", UnitName(n),
                                  SqlTypeName(type), QuoteValue(TrimRight(v.raw_json_token()))));
        }
        int64_t unit = e.unit_ns;
        if (unit == 0) {
          unit = type.id == TypeId::kDate ? kNanosPerDay
                 : (type.id == TypeId::kTimestampNs || type.id == TypeId::kTimestampTzNs) ? 1
                                                                                         : 1000;
        }
        const int64_t target = type.id == TypeId::kDate ? kNanosPerDay
                               : (type.id == TypeId::kTimestampNs || type.id == TypeId::kTimestampTzNs)
                                   ? 1
                                   : 1000;
        int64_t out;
        if (unit >= target) {
          if (__builtin_mul_overflow(x, unit / target, &out)) {
            return Rule(fmt::format("value {} ({}) overflows {}", x, UnitName(n), SqlTypeName(type)));
          }
        } else {
          const int64_t d = target / unit;
          if (x % d != 0) {
            return Rule(fmt::format("value {} ({}) is finer than {} holds", x, UnitName(n),
                                    SqlTypeName(type)));
          }
          out = x / d;
        }
        if (type.id == TypeId::kDate) {
          if (out < std::numeric_limits<int32_t>::min() || out > std::numeric_limits<int32_t>::max()) {
            return Rule(fmt::format("value {} ({}) overflows DATE", x, UnitName(n)));
          }
          col.Append<int32_t>(static_cast<int32_t>(out));
        } else {
          if (type.id == TypeId::kTime && (out < 0 || out >= int64_t{86400} * 1000000)) {
            return Rule(fmt::format("value {} ({}) is not a time of day", x, UnitName(n)));
          }
          col.Append<int64_t>(out);
        }
        return 1;
      }
      case TypeId::kDecimal: {
        if (jt == od::json_type::object) return VariableScaleDecimal(n, col, v);
        if (jt != od::json_type::string || e.strings == DebeziumEncoding::Strings::kText) return -1;
        std::string_view s;
        if (!PlainToken(v.raw_json_token(), &s)) return -1;
        if (e.strings == DebeziumEncoding::Strings::kAuto && !IsBase64Text(s)) return -1;
        hex_.clear();
        if (auto st = ParseBase64Text(s, -1, &hex_); !st) {
          return Rule(st.error().message + " (a decimal's unscaled bytes, Kafka Connect's Decimal)");
        }
        auto r = DecimalFromUnscaledBytes(hex_, e.decimal_scale < 0 ? type.scale : e.decimal_scale,
                                          type, s);
        if (!r) return Rule(r.error().message);
        col.Append<int128_t>(*r);
        return 1;
      }
      case TypeId::kBinary:
      case TypeId::kFixed: {
        if (jt != od::json_type::string || e.strings == DebeziumEncoding::Strings::kText) return -1;
        std::string_view s;
        if (!PlainToken(v.raw_json_token(), &s)) return -1;
        hex_.clear();
        auto st = ParseBase64Text(s, type.id == TypeId::kFixed ? type.length : -1, &hex_);
        if (!st) return Rule(st.error().message);
        col.AppendBytes(hex_);
        return 1;
      }
      default: return -1;
    }
  }

  /// "days", "ms", ...: the unit of an integer time value, for messages.
  static std::string UnitName(const Node& n) {
    int64_t unit = n.encoding.unit_ns;
    if (unit == 0) {
      const TypeId id = n.type->id;
      unit = id == TypeId::kDate ? kNanosPerDay
             : (id == TypeId::kTimestampNs || id == TypeId::kTimestampTzNs) ? 1
                                                                           : 1000;
    }
    switch (unit) {
      case kNanosPerDay: return "days";
      case 1000000: return "ms";
      case 1000: return "us";
      case 1: return "ns";
      default: return fmt::format("units of {} ns", unit);
    }
  }

  /// A time of day with a zone (io.debezium.time.ZonedTime, "10:15:30Z",
  /// "10:15:30.5+02:00") as UTC; -1 for a time without a zone.
  int ZonedTime(ColumnVector& col, od::value& v) {
    std::string_view s;
    if (!PlainToken(v.raw_json_token(), &s)) return -1;
    int64_t offset_us = 0;
    std::string_view time = s;
    if (!s.empty() && s.back() == 'Z') {
      time = s.substr(0, s.size() - 1);
    } else if (s.size() > 6 && (s[s.size() - 6] == '+' || s[s.size() - 6] == '-') &&
               s[s.size() - 3] == ':') {
      std::string_view z = s.substr(s.size() - 5);
      int hh = 0, mm = 0;
      auto r1 = std::from_chars(z.data(), z.data() + 2, hh);
      auto r2 = std::from_chars(z.data() + 3, z.data() + 5, mm);
      if (r1.ec != std::errc() || r2.ec != std::errc() || r1.ptr != z.data() + 2 ||
          r2.ptr != z.data() + 5 || hh > 18 || mm > 59) {
        return Rule(fmt::format("value {} is not a time of day with a zone", QuoteValue(s)));
      }
      offset_us = (int64_t{hh} * 3600 + mm * 60) * 1000000;
      if (s[s.size() - 6] == '-') offset_us = -offset_us;
      time = s.substr(0, s.size() - 6);
    } else {
      return -1;
    }
    auto r = ParseTimeText(time);
    if (!r) return Rule(r.error().message);
    const int64_t day = int64_t{86400} * 1000000;
    col.Append<int64_t>((((*r - offset_us) % day) + day) % day);
    return 1;
  }

  /// io.debezium.data.VariableScaleDecimal: {"scale":S,"value":"<base64>"}.
  int VariableScaleDecimal(Node& n, ColumnVector& col, od::value& v) {
    const Type& type = *n.type;
    od::object obj;
    auto err = v.get_object().get(obj);
    if (err) return JsonError(err);
    std::optional<int64_t> scale;
    std::string value;
    bool have_value = false;
    auto shape = [&] {
      return Rule(fmt::format(
          "expected {{\"scale\":S,\"value\":\"<base64>\"}} (io.debezium.data.VariableScaleDecimal) "
          "for {}",
          SqlTypeName(type)));
    };
    for (auto fr : obj) {
      od::field field;
      if ((err = std::move(fr).get(field))) return JsonError(err);
      std::string_view key;
      if ((err = field.unescaped_key().get(key))) return JsonError(err);
      od::value fv = field.value();
      if (key == "scale") {
        int64_t x;
        if (fv.get_int64().get(x) != simdjson::SUCCESS) return shape();
        scale = x;
      } else if (key == "value") {
        std::string_view s;
        if (fv.get_string().get(s) != simdjson::SUCCESS) return shape();
        value.assign(s);
        have_value = true;
      } else {
        return shape();
      }
    }
    if (!scale || !have_value || *scale < -1000 || *scale > 1000) return shape();
    hex_.clear();
    if (auto st = ParseBase64Text(value, -1, &hex_); !st) return Rule(st.error().message);
    auto r = DecimalFromUnscaledBytes(hex_, static_cast<int32_t>(*scale), type, value);
    if (!r) return Rule(r.error().message);
    col.Append<int128_t>(*r);
    return 1;
  }

  void EnableDebezium() { EnableDebeziumNode(&root_); }
  void SetEncoding(size_t column, const DebeziumEncoding& e) {
    if (column < root_.children.size()) root_.children[column].encoding = e;
  }
  void ResetEncodings() {
    for (auto& c : root_.children) c.encoding = DebeziumEncoding{};
  }

  bool DecodeNested(Node& n, ColumnVector& col, od::value& v, od::json_type jt) {
    const Type& type = *n.type;
    simdjson::error_code err;
    if (type.id == TypeId::kStruct) {
      if (jt != od::json_type::object) return WrongType(n, v, jt, "an object");
      od::object obj;
      if ((err = v.get_object().get(obj))) return JsonError(err);
      if (!DecodeObjectFields(n, col.children.data(), obj, false)) return false;
      col.AppendStructRow();
      return true;
    }
    if (type.id == TypeId::kList) {
      if (jt != od::json_type::array) return WrongType(n, v, jt, "an array");
      od::array arr;
      if ((err = v.get_array().get(arr))) return JsonError(err);
      Node& en = n.children[0];
      for (auto el : arr) {
        if ((err = el.error())) return JsonError(err);
        od::value& ev = el.value_unsafe();
        if (!DecodeValue(en, col.children[0], ev)) {
          err_path_.push_back("element");
          return false;
        }
      }
      col.CloseListRow();
      return true;
    }
    // Map: {"keys":[...],"values":[...]} or a plain object with string keys.
    if (jt != od::json_type::object) return WrongType(n, v, jt, "an object");
    od::object obj;
    if ((err = v.get_object().get(obj))) return JsonError(err);
    Node& kn = n.children[0];
    Node& vn = n.children[1];
    ColumnVector& keys = col.children[0];
    ColumnVector& values = col.children[1];
    const int64_t keys_before = keys.length;
    bool canonical = false;
    int field_no = 0;
    for (auto fr : obj) {
      od::field field;
      if ((err = std::move(fr).get(field))) return JsonError(err);
      std::string_view key;
      if ((err = field.unescaped_key().get(key))) return JsonError(err);
      od::value fv = field.value();
      if (field_no == 0 && key == "keys") {
        od::json_type t;
        if ((err = fv.type().get(t))) return JsonError(err);
        canonical = t == od::json_type::array;
      }
      if (canonical) {
        if (field_no > 1 || key != (field_no == 0 ? "keys" : "values")) {
          return Rule("map object must be {\"keys\":[...],\"values\":[...]}");
        }
        od::array arr;
        if ((err = fv.get_array().get(arr))) {
          return Rule(fmt::format("map '{}' must be an array", key));
        }
        Node& target = field_no == 0 ? kn : vn;
        ColumnVector& tcol = field_no == 0 ? keys : values;
        for (auto el : arr) {
          od::value ev;
          if ((err = std::move(el).get(ev))) return JsonError(err);
          if (!DecodeValue(target, tcol, ev)) {
            err_path_.push_back(field_no == 0 ? "key" : "value");
            return false;
          }
        }
      } else {
        if (kn.type->id != TypeId::kString) {
          return Rule(fmt::format(
              "a {} needs the form {{\"keys\":[...],\"values\":[...]}} (object keys are strings)",
              SqlTypeName(type)));
        }
        if (poison_) {
          // a bad byte inside a key: reported by the caller without a column
        }
        keys.AppendBytes(key);
        if (!DecodeValue(vn, values, fv)) {
          err_path_.push_back("value");
          return false;
        }
      }
      ++field_no;
    }
    if (canonical) {
      if (field_no != 2) return Rule("map object must be {\"keys\":[...],\"values\":[...]}");
      if (keys.length != values.length) {
        return Rule(fmt::format("map has {} keys and {} values", keys.length - keys_before,
                                values.length - keys_before));
      }
    }
    col.CloseListRow();
    return true;
  }

  SchemaPtr schema_;
  bool ignore_unknown_keys_;
  Node root_;
  od::parser parser_;
  std::string err_;
  bool err_fatal_ = false;
  std::vector<std::string> err_path_;
  std::string hex_;
  DateCache date_cache_;
  std::string scratch_;
  const char* poison_ = nullptr;
  const char* line_begin_ = nullptr;
  const char* line_end_ = nullptr;
};

JsonRowDecoder::JsonRowDecoder(SchemaPtr schema, bool ignore_unknown_keys)
    : impl_(std::make_unique<Impl>(std::move(schema), ignore_unknown_keys)) {}
JsonRowDecoder::~JsonRowDecoder() = default;

bool JsonRowDecoder::DecodeLine(std::string_view line, ColumnVector* cols) {
  return impl_->DecodeLine(line, cols);
}
bool JsonRowDecoder::DecodeObject(od::object& obj, std::string_view line, ColumnVector* cols) {
  return impl_->DecodeObject(obj, line, cols);
}
void JsonRowDecoder::SetLine(std::string_view line) { impl_->SetLine(line); }
bool JsonRowDecoder::Fail(std::string rule) { return impl_->Rule(std::move(rule)); }
bool JsonRowDecoder::FailJson(simdjson::error_code code) { return impl_->JsonError(code); }
bool JsonRowDecoder::FailBadUtf8() { return impl_->BadUtf8(); }
RowError JsonRowDecoder::TakeError() { return impl_->TakeError(); }
void JsonRowDecoder::EnableDebezium() { impl_->EnableDebezium(); }
void JsonRowDecoder::SetEncoding(size_t column, const DebeziumEncoding& encoding) {
  impl_->SetEncoding(column, encoding);
}
void JsonRowDecoder::ResetEncodings() { impl_->ResetEncodings(); }

Status CheckSimdjsonCpu() {
#if defined(__x86_64__) && defined(__PCLMUL__)
  static const bool ok = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("avx2");
  if (!ok) return Unsupported("the JSON decoders need a CPU with AVX2 and PCLMUL");
#endif
  return Ok();
}

// --- RowError, RejectedRow, RowMark ---

std::string RowError::Reason() const {
  if (column.empty()) return image.empty() ? rule : fmt::format("{} image: {}", image, rule);
  if (image.empty()) return fmt::format("column '{}': {}", column, rule);
  return fmt::format("column '{}' of the {} image: {}", column, image, rule);
}

std::string RowError::Message(int64_t line) const {
  if (column.empty()) return fmt::format("line {}: {}", line, Reason());
  return fmt::format("line {}, {}", line, Reason());
}

RejectedRow MakeRejectedRow(int64_t position, std::string_view text, std::string reason) {
  RejectedRow row;
  row.position = position;
  if (text.size() > RejectedRow::kMaxText) {
    // Cut on a character boundary: the text stays valid UTF-8 when it was.
    size_t cut = RejectedRow::kMaxText;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    row.text.reserve(cut + 3);
    row.text.assign(text.substr(0, cut));
    row.text += "...";
  } else {
    row.text.assign(text);
  }
  row.reason = std::move(reason);
  return row;
}

void RowMark::Take(const Batch& batch) {
  entries_.clear();
  num_rows_ = batch.num_rows;
  for (const auto& c : batch.columns) TakeColumn(c);
}

void RowMark::TakeColumn(const ColumnVector& c) {
  entries_.push_back({c.length, c.values.size(), c.offsets.size(), !c.validity.empty()});
  for (const auto& child : c.children) TakeColumn(child);
}

void RowMark::Restore(Batch* batch) const {
  size_t i = 0;
  for (auto& c : batch->columns) RestoreColumn(&c, &i);
  batch->num_rows = num_rows_;
  const auto n = static_cast<size_t>(num_rows_);
  if (batch->row_kinds.size() > n) batch->row_kinds.resize(n);
  if (batch->sequence_numbers.size() > n) batch->sequence_numbers.resize(n);
  if (batch->positions.size() > n) batch->positions.resize(n);
}

void RowMark::RestoreColumn(ColumnVector* c, size_t* i) const {
  const Entry& e = entries_[(*i)++];
  c->length = e.length;
  c->values.Resize(e.values);
  c->offsets.resize(e.offsets);
  // A validity vector made by the failed row held only 1s before it.
  if (e.validity) {
    c->validity.resize(static_cast<size_t>(e.length));
  } else {
    c->validity.clear();
  }
  for (auto& child : c->children) RestoreColumn(&child, i);
}

}  // namespace floe::format::internal
