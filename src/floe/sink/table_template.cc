// TableTemplate: parsing `{field}` references, binding them to a schema and
// formatting each row's values into a sanitized table identifier.
#include "floe/sink/table_template.h"

#include <charconv>
#include <cstring>

#include "floe/types/json_value.h"

namespace floe::sink {

namespace {

bool IsIdentifierChar(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// The length of the UTF-8 character starting with `lead`, or 1 for a byte
// that cannot start one (each such byte becomes its own '_').
size_t Utf8Length(unsigned char lead) {
  if (lead >= 0xF0 && lead <= 0xF4) return 4;
  if (lead >= 0xE0) return lead <= 0xEF ? 3 : 1;
  if (lead >= 0xC2) return 2;
  return 1;
}

// Appends `text` with every character outside [A-Za-z0-9_] replaced by '_'.
void AppendSanitized(std::string_view text, std::string* out) {
  size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (IsIdentifierChar(c)) {
      out->push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    out->push_back('_');
    size_t n = c < 0x80 ? 1 : Utf8Length(c);
    // Only well-formed continuation bytes are taken with the lead byte.
    size_t k = 1;
    while (k < n && i + k < text.size() && (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80)
      ++k;
    i += k;
  }
}

void AppendHexText(std::string_view bytes, std::string* out) {
  static constexpr char kDigits[] = "0123456789abcdef";
  for (char b : bytes) {
    const auto u = static_cast<unsigned char>(b);
    out->push_back(kDigits[u >> 4]);
    out->push_back(kDigits[u & 15]);
  }
}

template <typename T>
void AppendInteger(T v, std::string* out) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  (void)ec;  // 24 characters hold any 64-bit integer
  out->append(buf, end);
}

// The text of a present value of primitive type `type` (before sanitizing).
void AppendValueText(const Type& type, const ColumnVector& col, int64_t row, std::string* out) {
  switch (type.id) {
    case TypeId::kBoolean: out->append(col.data<uint8_t>()[row] ? "true" : "false"); return;
    case TypeId::kInt: AppendInteger(col.data<int32_t>()[row], out); return;
    case TypeId::kLong: AppendInteger(col.data<int64_t>()[row], out); return;
    case TypeId::kFloat: {
      std::string s;
      AppendJsonFloat(col.data<float>()[row], &s);
      if (!s.empty() && s.front() == '"') s = s.substr(1, s.size() - 2);  // NaN, Infinity
      out->append(s);
      return;
    }
    case TypeId::kDouble: {
      std::string s;
      AppendJsonDouble(col.data<double>()[row], &s);
      if (!s.empty() && s.front() == '"') s = s.substr(1, s.size() - 2);
      out->append(s);
      return;
    }
    case TypeId::kDecimal: AppendDecimalText(col.data<int128_t>()[row], type.scale, out); return;
    case TypeId::kDate: AppendDateText(col.data<int32_t>()[row], out); return;
    case TypeId::kTime: AppendTimeText(col.data<int64_t>()[row], out); return;
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: AppendTimestampText(col.data<int64_t>()[row], 6, out); return;
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: AppendTimestampText(col.data<int64_t>()[row], 9, out); return;
    case TypeId::kString: out->append(col.bytes(row)); return;
    case TypeId::kUuid: {
      std::string hex;
      AppendHexText(col.bytes(row), &hex);
      for (size_t i = 0; i < hex.size(); ++i) {
        if (i == 8 || i == 12 || i == 16 || i == 20) out->push_back('-');
        out->push_back(hex[i]);
      }
      return;
    }
    case TypeId::kFixed:
    case TypeId::kBinary: AppendHexText(col.bytes(row), out); return;
    case TypeId::kStruct:
    case TypeId::kList:
    case TypeId::kMap: return;  // refused by Bind
  }
}

// The bytes that identify a present value (for the last-value cache).
std::string_view RawBytes(const Type& type, const ColumnVector& col, int64_t row) {
  const int width = FixedValueWidth(type);
  if (width > 0) {
    return std::string_view(reinterpret_cast<const char*>(col.values.data()) + row * width,
                            static_cast<size_t>(width));
  }
  return col.bytes(row);
}

}  // namespace

Result<TableTemplate> TableTemplate::Parse(std::string_view text) {
  TableTemplate t;
  t.text_ = std::string(text);
  auto error = [&](size_t i, std::string_view what) {
    return InvalidArgument("table template '{}', character {}: {}", text, i + 1, what);
  };
  std::string literal;
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '}') return error(i, "'}' without a '{' before it");
    if (c != '{') {
      literal.push_back(c);
      ++i;
      continue;
    }
    size_t close = i + 1;
    while (close < text.size() && text[close] != '}') {
      if (text[close] == '{') return error(close, "'{' inside '{...}': fields do not nest");
      ++close;
    }
    if (close == text.size()) return error(i, "'{' without a closing '}'");
    const std::string_view path = text.substr(i + 1, close - i - 1);
    if (path.empty()) return error(i, "empty '{}': name a field, as in {region} or {meta.kind}");
    size_t start = 0;
    while (true) {
      const size_t dot = path.find('.', start);
      const size_t end = dot == std::string_view::npos ? path.size() : dot;
      if (end == start) {
        return error(i + 1 + start, fmt::format("empty name in the field path '{}'", path));
      }
      if (dot == std::string_view::npos) break;
      start = dot + 1;
    }
    if (!literal.empty()) t.parts_.push_back(Part{std::move(literal), -1});
    literal.clear();
    int index = -1;
    for (size_t k = 0; k < t.fields_.size(); ++k) {
      if (t.fields_[k] == path) index = static_cast<int>(k);
    }
    if (index < 0) {
      index = static_cast<int>(t.fields_.size());
      t.fields_.emplace_back(path);
    }
    t.parts_.push_back(Part{{}, index});
    i = close + 1;
  }
  if (!literal.empty()) t.parts_.push_back(Part{std::move(literal), -1});
  t.bound_ok_ = t.fields_.empty();
  return t;
}

Status TableTemplate::Bind(const Schema& schema) {
  std::vector<Bound> bound;
  for (const auto& path : fields_) {
    auto fail = [&](std::string_view why) {
      return InvalidArgument("table template '{}': field '{}' {}", text_, path, why);
    };
    Bound b;
    const std::vector<NestedField>* level = &schema.fields();
    std::string_view rest = path;
    std::string walked;
    while (true) {
      const size_t dot = rest.find('.');
      const std::string_view name = rest.substr(0, dot);
      int found = -1;
      for (size_t k = 0; k < level->size(); ++k) {
        if ((*level)[k].name == name) found = static_cast<int>(k);
      }
      if (found < 0) {
        return fail(walked.empty() ? std::string("is not a column of the rows")
                                   : fmt::format("does not exist: struct '{}' has no field '{}'",
                                                 walked, name));
      }
      const NestedField& f = (*level)[found];
      b.path.push_back(found);
      walked += (walked.empty() ? "" : ".") + std::string(name);
      if (dot == std::string_view::npos) {
        if (f.type->is_nested()) {
          return fail(fmt::format(
              "is a {}, not a primitive value: a destination is named by primitive fields",
              f.type->ToString()));
        }
        b.type = f.type;
        break;
      }
      if (f.type->id != TypeId::kStruct) {
        return fail(
            fmt::format("reaches into '{}', a {}: only struct fields are addressable, not list or "
                        "map elements",
                        walked, f.type->ToString()));
      }
      level = &f.type->fields;
      rest = rest.substr(dot + 1);
    }
    bound.push_back(std::move(b));
  }
  bound_ = std::move(bound);
  bound_ok_ = true;
  return Ok();
}

Error TableTemplate::RowError(const Batch& batch, int64_t row, std::string_view what) const {
  std::string where = fmt::format("row {}", row);
  if (row < static_cast<int64_t>(batch.positions.size())) {
    where += fmt::format(" (input position {})", batch.positions[row]);
  }
  return Error{ErrorKind::kInvalidArgument,
               fmt::format("table template '{}', {}: {}", text_, where, what), false};
}

Result<const std::string*> TableTemplate::FieldText(const Batch& batch, int64_t row,
                                                    size_t i) const {
  const Bound& b = bound_[i];
  const ColumnVector* col = &batch.columns[b.path[0]];
  bool null = col->IsNull(row);
  for (size_t k = 1; k < b.path.size() && !null; ++k) {
    col = &col->children[b.path[k]];
    null = col->IsNull(row);
  }
  if (null) return Fail(RowError(batch, row, fmt::format("field '{}' is null", fields_[i])));
  const std::string_view raw = RawBytes(*b.type, *col, row);
  if (b.cached && raw == b.last_raw) return &b.last_text;
  b.last_raw.assign(raw);
  b.last_text.clear();
  if (b.type->id == TypeId::kString) {
    AppendSanitized(raw, &b.last_text);
  } else {
    b.scratch.clear();
    AppendValueText(*b.type, *col, row, &b.scratch);
    AppendSanitized(b.scratch, &b.last_text);
  }
  b.cached = true;
  return &b.last_text;
}

Status TableTemplate::EvaluateTo(const Batch& batch, int64_t row, std::string* out) const {
  if (!bound_ok_) return Internal("table template '{}' is evaluated before Bind", text_);
  if (row < 0 || row >= batch.num_rows) {
    return InvalidArgument("table template '{}': row {} is outside the batch of {} rows", text_,
                           row, batch.num_rows);
  }
  out->clear();
  for (const auto& p : parts_) {
    if (p.field < 0) {
      out->append(p.literal);
      continue;
    }
    FLOE_ASSIGN_OR_RETURN(const std::string* text,
                          FieldText(batch, row, static_cast<size_t>(p.field)));
    out->append(*text);
  }
  // Every namespace level and the name: not empty, at most kMaxNameBytes.
  size_t start = 0;
  size_t level = 0;
  while (true) {
    const size_t dot = out->find('.', start);
    const size_t end = dot == std::string::npos ? out->size() : dot;
    const size_t length = end - start;
    if (length == 0 || length > kMaxNameBytes) {
      // The error path: which fields wrote into this level.
      std::string fields;
      size_t offset = 0;
      for (const auto& p : parts_) {
        const size_t n = p.field < 0 ? p.literal.size() : bound_[p.field].last_text.size();
        if (p.field >= 0 && offset + n >= start && offset <= end) {
          fields += (fields.empty() ? "'" : ", '") + fields_[p.field] + "'";
        }
        offset += n;
      }
      const bool is_name = dot == std::string::npos;
      std::string what =
          is_name ? std::string("the table name") : fmt::format("namespace level {}", level + 1);
      return Fail(RowError(
          batch, row,
          length == 0 ? fmt::format("{} comes out empty (from field {})", what,
                                    fields.empty() ? "-" : fields)
                      : fmt::format("{} comes out {} bytes long, over {} (from field {})", what,
                                    length, kMaxNameBytes, fields.empty() ? "-" : fields)));
    }
    if (dot == std::string::npos) break;
    start = dot + 1;
    ++level;
  }
  return Ok();
}

Result<std::string> TableTemplate::Evaluate(const Batch& batch, int64_t row) const {
  std::string out;
  FLOE_RETURN_IF_ERROR(EvaluateTo(batch, row, &out));
  return out;
}

}  // namespace floe::sink
