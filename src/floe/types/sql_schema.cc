// SQL column list parser: a small tokenizer and a recursive-descent parser into
// a mutable tree, then a second pass that assigns Iceberg field ids.
#include "floe/types/sql_schema.h"
#include "floe/util/strings.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <string>
#include <vector>

namespace floe {
namespace {

enum class Tok { kWord, kQuoted, kNumber, kString, kPunct, kEnd };

struct Token {
  Tok kind = Tok::kEnd;
  std::string text;  ///< word as written, unquoted name, number digits, string contents, punct char
  size_t pos = 0;    ///< 1-based character position
};

std::string Describe(const Token& t) {
  switch (t.kind) {
    case Tok::kEnd: return "end of text";
    case Tok::kQuoted: return fmt::format("`{}`", t.text);
    case Tok::kString: return fmt::format("'{}'", t.text);
    default: return fmt::format("'{}'", t.text);
  }
}

/// The parse tree before ids are assigned.
struct PType;
struct PField {
  std::string name;
  bool required = false;
  std::string doc;
  std::unique_ptr<PType> type;
  size_t pos = 0;  ///< 1-based position of the name
};
struct PType {
  TypeId id = TypeId::kBoolean;
  int32_t precision = 0, scale = 0, length = 0;
  std::vector<PField> fields;  // struct fields; list: [element]; map: [key, value]
};

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Status Tokenize() {
    size_t i = 0;
    while (i < text_.size()) {
      unsigned char c = static_cast<unsigned char>(text_[i]);
      if (std::isspace(c)) {
        ++i;
        continue;
      }
      if (c == '-' && i + 1 < text_.size() && text_[i + 1] == '-') {  // SQL line comment
        while (i < text_.size() && text_[i] != '\n') ++i;
        continue;
      }
      Token t;
      t.pos = i + 1;
      if (std::isalpha(c) || c == '_' || c >= 0x80) {
        size_t j = i;
        while (j < text_.size()) {
          unsigned char d = static_cast<unsigned char>(text_[j]);
          if (!(std::isalnum(d) || d == '_' || d == '$' || d >= 0x80)) break;
          ++j;
        }
        t.kind = Tok::kWord;
        t.text = std::string(text_.substr(i, j - i));
        i = j;
      } else if (std::isdigit(c)) {
        size_t j = i;
        while (j < text_.size() && std::isdigit(static_cast<unsigned char>(text_[j]))) ++j;
        t.kind = Tok::kNumber;
        t.text = std::string(text_.substr(i, j - i));
        i = j;
      } else if (c == '`' || c == '\'' || c == '"') {
        // `name` and "name" are identifiers, 'text' a string; the quote doubles to escape.
        char q = static_cast<char>(c);
        size_t j = i + 1;
        std::string out;
        bool closed = false;
        while (j < text_.size()) {
          if (text_[j] == q) {
            if (j + 1 < text_.size() && text_[j + 1] == q) {
              out += q;
              j += 2;
              continue;
            }
            closed = true;
            ++j;
            break;
          }
          out += text_[j++];
        }
        if (!closed) {
          return InvalidArgument("SQL column list, column {}: unterminated {} quote", t.pos,
                                 std::string(1, q));
        }
        t.kind = q == '\'' ? Tok::kString : Tok::kQuoted;
        t.text = std::move(out);
        i = j;
      } else if (std::string_view("<>(),:[].").find(static_cast<char>(c)) !=
                 std::string_view::npos) {
        t.kind = Tok::kPunct;
        t.text = std::string(1, static_cast<char>(c));
        ++i;
      } else {
        return InvalidArgument("SQL column list, column {}: unexpected character '{}'", t.pos,
                               std::string(1, static_cast<char>(c)));
      }
      tokens_.push_back(std::move(t));
    }
    Token end;
    end.pos = text_.size() + 1;
    tokens_.push_back(end);
    return Ok();
  }

  /// One column of a PRIMARY KEY: its path of names (top-level, then
  /// struct fields) and where it was written.
  struct KeyColumn {
    std::vector<std::string> path;
    size_t pos = 0;
  };
  /// The PRIMARY KEY of the list, if it has one.
  struct PrimaryKey {
    std::vector<KeyColumn> columns;
    size_t pos = 0;  ///< of the PRIMARY word
  };
  const std::optional<PrimaryKey>& primary_key() const { return primary_key_; }

  Result<std::vector<PField>> ColumnList() {
    std::vector<PField> out;
    if (Peek().kind == Tok::kEnd) return Error("expected a column name");
    while (true) {
      if (IsTableConstraint()) {
        FLOE_RETURN_IF_ERROR(TableConstraint());
      } else {
        FLOE_ASSIGN_OR_RETURN(PField f, Field(/*allow_colon=*/false, "column"));
        out.push_back(std::move(f));
      }
      if (IsPunct(",")) {
        Next();
        continue;
      }
      if (Peek().kind == Tok::kEnd) break;
      return Error("expected ',' or the end of the column list");
    }
    return out;
  }

  Result<std::unique_ptr<PType>> SingleType() {
    FLOE_ASSIGN_OR_RETURN(auto t, ParseType());
    if (Peek().kind != Tok::kEnd) return Error("expected the end of the type");
    return t;
  }

 private:
  const Token& Peek(size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }
  const Token& Next() {
    const Token& t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  bool IsPunct(std::string_view p, size_t ahead = 0) const {
    return Peek(ahead).kind == Tok::kPunct && Peek(ahead).text == p;
  }
  bool IsWord(std::string_view upper, size_t ahead = 0) const {
    return Peek(ahead).kind == Tok::kWord && ToUpper(Peek(ahead).text) == upper;
  }
  std::unexpected<floe::Error> Error(std::string_view expected) const {
    return InvalidArgument("SQL column list, column {}: {}, found {}", Peek().pos, expected,
                           Describe(Peek()));
  }
  Status Expect(std::string_view p, std::string_view what) {
    if (!IsPunct(p)) return Error(what);
    Next();
    return Ok();
  }

  Result<int32_t> Int(std::string_view what) {
    if (Peek().kind != Tok::kNumber) return Error(fmt::format("expected {}", what));
    int32_t v = 0;
    const std::string& s = Peek().text;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size()) {
      return Error(fmt::format("expected {} (a small integer)", what));
    }
    Next();
    return v;
  }

  /// `[CONSTRAINT name] PRIMARY KEY (` starts a table constraint; a column
  /// may be named `primary` or `constraint`, and is then followed by a type.
  bool IsTableConstraint() const {
    if (IsWord("CONSTRAINT") && (Peek(1).kind == Tok::kWord || Peek(1).kind == Tok::kQuoted) &&
        IsWord("PRIMARY", 2)) {
      return true;
    }
    return IsWord("PRIMARY") && IsWord("KEY", 1) && IsPunct("(", 2);
  }

  /// `[CONSTRAINT name]` then `PRIMARY KEY` then, as Flink SQL demands,
  /// `NOT ENFORCED` (floe, like Flink, does not check that keys are unique).
  /// Returns the position of PRIMARY.
  Result<size_t> PrimaryKeyWords() {
    if (IsWord("CONSTRAINT")) {
      Next();
      if (Peek().kind != Tok::kWord && Peek().kind != Tok::kQuoted) {
        return Error("expected a constraint name after CONSTRAINT");
      }
      Next();
      if (!IsWord("PRIMARY")) return Error("expected PRIMARY KEY after the constraint name");
    }
    const size_t at = Peek().pos;
    if (primary_key_) {
      return InvalidArgument(
          "SQL column list, column {}: a second PRIMARY KEY (the first is at column {})", at,
          primary_key_->pos);
    }
    Next();
    if (!IsWord("KEY")) return Error("expected KEY after PRIMARY");
    Next();
    return at;
  }
  Status NotEnforced(size_t at) {
    if (IsWord("NOT") && IsWord("ENFORCED", 1)) {
      Next();
      Next();
      return Ok();
    }
    return InvalidArgument(
        "SQL column list, column {}: PRIMARY KEY must be declared NOT ENFORCED (Flink SQL requires "
        "it: "
        "the key is not checked for uniqueness), found {}",
        at, Describe(Peek()));
  }

  /// PRIMARY KEY (col[, col...]) NOT ENFORCED; a column is a name, or a
  /// dotted path into structs (`loc.city`).
  Status TableConstraint() {
    FLOE_ASSIGN_OR_RETURN(size_t at, PrimaryKeyWords());
    FLOE_RETURN_IF_ERROR(Expect("(", "expected '(' and the key columns after PRIMARY KEY"));
    PrimaryKey pk;
    pk.pos = at;
    while (true) {
      KeyColumn c;
      c.pos = Peek().pos;
      while (true) {
        if (Peek().kind != Tok::kWord && Peek().kind != Tok::kQuoted) {
          return Error("expected a column name in PRIMARY KEY (...)");
        }
        c.path.push_back(Next().text);
        if (!IsPunct(".")) break;
        Next();
      }
      pk.columns.push_back(std::move(c));
      if (IsPunct(",")) {
        Next();
        continue;
      }
      break;
    }
    FLOE_RETURN_IF_ERROR(Expect(")", "expected ',' or ')' to close PRIMARY KEY (...)"));
    FLOE_RETURN_IF_ERROR(NotEnforced(at));
    primary_key_ = std::move(pk);
    return Ok();
  }

  /// name [:] type [NOT NULL | NULL] [[CONSTRAINT c] PRIMARY KEY NOT ENFORCED]
  /// [COMMENT 'text']. The column constraint is for top-level columns only.
  Result<PField> Field(bool allow_colon, std::string_view what) {
    PField f;
    const Token& name = Peek();
    if (name.kind != Tok::kWord && name.kind != Tok::kQuoted) {
      return Error(fmt::format("expected a {} name", what));
    }
    f.name = name.text;
    f.pos = name.pos;
    Next();
    if (allow_colon && IsPunct(":")) Next();
    FLOE_ASSIGN_OR_RETURN(f.type, ParseType());
    FLOE_ASSIGN_OR_RETURN(f.required, Nullability());
    if (IsWord("PRIMARY") || IsWord("CONSTRAINT")) {
      if (depth_ > 0) {
        return Error(
            "a PRIMARY KEY column constraint belongs to a top-level column; for a nested "
            "field write a table constraint PRIMARY KEY (a.b) NOT ENFORCED");
      }
      FLOE_ASSIGN_OR_RETURN(size_t at, PrimaryKeyWords());
      FLOE_RETURN_IF_ERROR(NotEnforced(at));
      PrimaryKey pk;
      pk.pos = at;
      pk.columns.push_back(KeyColumn{{f.name}, f.pos});
      primary_key_ = std::move(pk);
    }
    if (IsWord("COMMENT")) {
      Next();
      if (Peek().kind != Tok::kString) return Error("expected a quoted comment after COMMENT");
      f.doc = Next().text;
    }
    return f;
  }

  /// Optional NOT NULL / NULL after a type.
  Result<bool> Nullability() {
    if (IsWord("NOT")) {
      Next();
      if (!IsWord("NULL")) return Error("expected NULL after NOT");
      Next();
      return true;
    }
    if (IsWord("NULL")) {
      Next();
      return false;
    }
    return false;
  }

  /// Optional (n) after a type name; returns -1 when absent.
  Result<int32_t> OptionalParen(std::string_view what) {
    if (!IsPunct("(")) return -1;
    Next();
    FLOE_ASSIGN_OR_RETURN(int32_t v, Int(what));
    FLOE_RETURN_IF_ERROR(Expect(")", "expected ')'"));
    return v;
  }

  static std::unique_ptr<PType> Simple(TypeId id) {
    auto t = std::make_unique<PType>();
    t->id = id;
    return t;
  }

  /// After TIMESTAMP[(p)]: WITH [LOCAL] TIME ZONE / WITHOUT TIME ZONE.
  Result<bool> ZoneSuffix(bool tz) {
    if (IsWord("WITH") || IsWord("WITHOUT")) {
      bool with = IsWord("WITH");
      Next();
      if (with && IsWord("LOCAL")) Next();
      if (!IsWord("TIME")) return Error("expected TIME ZONE");
      Next();
      if (!IsWord("ZONE")) return Error("expected ZONE");
      Next();
      return with;
    }
    return tz;
  }

  Result<std::unique_ptr<PType>> Timestamp(bool tz, bool ns) {
    size_t at = Peek().pos;
    FLOE_ASSIGN_OR_RETURN(int32_t p, OptionalParen("a timestamp precision"));
    if (p > 9) {
      return InvalidArgument("SQL column list, column {}: timestamp precision {} is above 9", at,
                             p);
    }
    if (p > 6) ns = true;
    FLOE_ASSIGN_OR_RETURN(tz, ZoneSuffix(tz));
    if (ns) return Simple(tz ? TypeId::kTimestampTzNs : TypeId::kTimestampNs);
    return Simple(tz ? TypeId::kTimestampTz : TypeId::kTimestamp);
  }

  Result<std::unique_ptr<PType>> ParseType() {
    if (++depth_ > 200) return Error("types nested deeper than 200 levels");
    struct DepthGuard {
      int* d;
      ~DepthGuard() { --*d; }
    } guard{&depth_};

    if (Peek().kind != Tok::kWord) return Error("expected a type name");
    const Token& word = Next();
    const std::string u = ToUpper(word.text);
    if (u == "BOOLEAN" || u == "BOOL") return Simple(TypeId::kBoolean);
    if (u == "INT" || u == "INTEGER" || u == "TINYINT" || u == "SMALLINT") {
      return Simple(TypeId::kInt);
    }
    if (u == "BIGINT" || u == "LONG") return Simple(TypeId::kLong);
    if (u == "FLOAT" || u == "REAL") return Simple(TypeId::kFloat);
    if (u == "DOUBLE") {
      if (IsWord("PRECISION")) Next();
      return Simple(TypeId::kDouble);
    }
    if (u == "DECIMAL" || u == "NUMERIC" || u == "DEC") {
      auto t = Simple(TypeId::kDecimal);
      t->precision = 10;
      t->scale = 0;
      size_t at = Peek().pos;
      if (IsPunct("(")) {
        Next();
        FLOE_ASSIGN_OR_RETURN(t->precision, Int("a decimal precision"));
        if (IsPunct(",")) {
          Next();
          FLOE_ASSIGN_OR_RETURN(t->scale, Int("a decimal scale"));
        }
        FLOE_RETURN_IF_ERROR(Expect(")", "expected ')' to close DECIMAL(P, S)"));
      }
      if (t->precision < 1 || t->precision > 38 || t->scale > t->precision) {
        return InvalidArgument(
            "SQL column list, column {}: DECIMAL({}, {}): precision must be 1..38 and scale "
            "0..precision",
            at, t->precision, t->scale);
      }
      return t;
    }
    if (u == "DATE") return Simple(TypeId::kDate);
    if (u == "TIME") {
      FLOE_ASSIGN_OR_RETURN(int32_t p, OptionalParen("a time precision"));
      (void)p;
      if (IsWord("WITHOUT")) FLOE_RETURN_IF_ERROR(ZoneSuffix(false));
      return Simple(TypeId::kTime);
    }
    if (u == "TIMESTAMP") return Timestamp(false, false);
    if (u == "TIMESTAMPTZ" || u == "TIMESTAMP_LTZ") return Timestamp(true, false);
    if (u == "TIMESTAMP_NS") return Timestamp(false, true);
    if (u == "TIMESTAMPTZ_NS" || u == "TIMESTAMP_LTZ_NS") return Timestamp(true, true);
    if (u == "STRING" || u == "VARCHAR" || u == "CHAR" || u == "TEXT") {
      FLOE_ASSIGN_OR_RETURN(int32_t n, OptionalParen("a length"));
      (void)n;
      return Simple(TypeId::kString);
    }
    if (u == "UUID") return Simple(TypeId::kUuid);
    if (u == "FIXED" || u == "BINARY") {
      size_t at = Peek().pos;
      int32_t len = -1;
      if (IsPunct("(") || IsPunct("[")) {
        std::string close = IsPunct("(") ? ")" : "]";
        Next();
        FLOE_ASSIGN_OR_RETURN(len, Int("a length"));
        FLOE_RETURN_IF_ERROR(Expect(close, fmt::format("expected '{}'", close)));
        if (len < 1) {
          return InvalidArgument("SQL column list, column {}: {} length must be at least 1", at,
                                 u);
        }
      }
      if (len < 0) {
        if (u == "FIXED") return Error("expected '(' and a length after FIXED");
        return Simple(TypeId::kBinary);
      }
      auto t = Simple(TypeId::kFixed);
      t->length = len;
      return t;
    }
    if (u == "VARBINARY" || u == "BYTES" || u == "BLOB") {
      FLOE_ASSIGN_OR_RETURN(int32_t n, OptionalParen("a length"));
      (void)n;
      return Simple(TypeId::kBinary);
    }
    if (u == "ARRAY" || u == "LIST") {
      FLOE_RETURN_IF_ERROR(Expect("<", fmt::format("expected '<' after {}", u)));
      auto t = Simple(TypeId::kList);
      PField e;
      e.name = "element";
      FLOE_ASSIGN_OR_RETURN(e.type, ParseType());
      FLOE_ASSIGN_OR_RETURN(e.required, Nullability());
      t->fields.push_back(std::move(e));
      FLOE_RETURN_IF_ERROR(Expect(">", fmt::format("expected '>' to close {}<...>", u)));
      return t;
    }
    if (u == "MAP") {
      FLOE_RETURN_IF_ERROR(Expect("<", "expected '<' after MAP"));
      auto t = Simple(TypeId::kMap);
      PField k, v;
      k.name = "key";
      v.name = "value";
      FLOE_ASSIGN_OR_RETURN(k.type, ParseType());
      FLOE_ASSIGN_OR_RETURN(bool key_required, Nullability());
      (void)key_required;
      k.required = true;  // Iceberg map keys are always required
      FLOE_RETURN_IF_ERROR(Expect(",", "expected ',' between the MAP key and value types"));
      FLOE_ASSIGN_OR_RETURN(v.type, ParseType());
      FLOE_ASSIGN_OR_RETURN(v.required, Nullability());
      FLOE_RETURN_IF_ERROR(Expect(">", "expected '>' to close MAP<...>"));
      t->fields.push_back(std::move(k));
      t->fields.push_back(std::move(v));
      return t;
    }
    if (u == "STRUCT" || u == "ROW") {
      bool paren = u == "ROW" && IsPunct("(");
      FLOE_RETURN_IF_ERROR(
          paren ? Expect("(", "") : Expect("<", fmt::format("expected '<' after {}", u)));
      auto t = Simple(TypeId::kStruct);
      const char* close = paren ? ")" : ">";
      if (!IsPunct(close)) {
        while (true) {
          FLOE_ASSIGN_OR_RETURN(PField f, Field(/*allow_colon=*/true, "field"));
          for (const auto& other : t->fields) {
            if (other.name == f.name) {
              return InvalidArgument("SQL column list: duplicate field name '{}' in {}", f.name,
                                     u);
            }
          }
          t->fields.push_back(std::move(f));
          if (IsPunct(",")) {
            Next();
            continue;
          }
          break;
        }
      }
      FLOE_RETURN_IF_ERROR(
          Expect(close, fmt::format("expected ',' or '{}' to close {}{}...{}", close, u,
                                    paren ? "(" : "<", close)));
      return t;
    }
    pos_--;  // point the error at the unknown word
    return Error("expected a type name (BOOLEAN, INT, BIGINT, FLOAT, DOUBLE, DECIMAL(P,S), DATE, "
                 "TIME, TIMESTAMP, TIMESTAMPTZ, TIMESTAMP_NS, TIMESTAMPTZ_NS, STRING, UUID, "
                 "FIXED(L), BINARY, ARRAY<T>, STRUCT<...>, ROW<...>, MAP<K, V>)");
  }

  std::string_view text_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;
  std::optional<PrimaryKey> primary_key_;
};

// Id assignment (Java TypeUtil.assignFreshIds): a struct's fields are numbered
// first, then their types in order; a list's element / a map's key and value
// likewise before their own nested types.
TypePtr Build(const PType& t, int32_t* next_id);

std::vector<NestedField> BuildFields(const std::vector<PField>& fields, int32_t* next_id) {
  std::vector<int32_t> ids;
  for (size_t i = 0; i < fields.size(); ++i) ids.push_back((*next_id)++);
  std::vector<NestedField> out;
  for (size_t i = 0; i < fields.size(); ++i) {
    out.push_back(
        NestedField{ids[i], fields[i].name, fields[i].required, Build(*fields[i].type, next_id),
                    fields[i].doc});
  }
  return out;
}

TypePtr Build(const PType& t, int32_t* next_id) {
  switch (t.id) {
    case TypeId::kStruct: return StructType(BuildFields(t.fields, next_id));
    case TypeId::kList: {
      auto f = BuildFields(t.fields, next_id);
      return ListType(f[0].id, f[0].required, f[0].type);
    }
    case TypeId::kMap: {
      auto f = BuildFields(t.fields, next_id);
      return MapType(f[0].id, f[0].type, f[1].id, f[1].required, f[1].type);
    }
    case TypeId::kDecimal: return DecimalType(t.precision, t.scale);
    case TypeId::kFixed: return FixedType(t.length);
    default: return Primitive(t.id);
  }
}

}  // namespace

namespace {
/// A name as written in a column list: bare when it is a plain identifier
/// that is no keyword of the list, else backquoted.
std::string QuoteName(const std::string& name) {
  bool plain = !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) plain = false;
  }
  const std::string u = ToUpper(name);
  if (u == "NOT" || u == "NULL" || u == "COMMENT") plain = false;
  if (plain) return name;
  std::string out = "`";
  for (char c : name) {
    if (c == '`') out += '`';
    out += c;
  }
  return out + "`";
}
}  // namespace

std::string SqlTypeName(const Type& t) {
  switch (t.id) {
    case TypeId::kBoolean: return "BOOLEAN";
    case TypeId::kInt: return "INT";
    case TypeId::kLong: return "BIGINT";
    case TypeId::kFloat: return "FLOAT";
    case TypeId::kDouble: return "DOUBLE";
    case TypeId::kDecimal: return fmt::format("DECIMAL({}, {})", t.precision, t.scale);
    case TypeId::kDate: return "DATE";
    case TypeId::kTime: return "TIME";
    case TypeId::kTimestamp: return "TIMESTAMP";
    case TypeId::kTimestampTz: return "TIMESTAMPTZ";
    case TypeId::kTimestampNs: return "TIMESTAMP_NS";
    case TypeId::kTimestampTzNs: return "TIMESTAMPTZ_NS";
    case TypeId::kString: return "STRING";
    case TypeId::kUuid: return "UUID";
    case TypeId::kFixed: return fmt::format("FIXED({})", t.length);
    case TypeId::kBinary: return "BINARY";
    case TypeId::kList:
      return fmt::format("ARRAY<{}{}>", SqlTypeName(*t.element().type),
                         t.element().required ? " NOT NULL" : "");
    case TypeId::kMap:
      return fmt::format("MAP<{}, {}{}>", SqlTypeName(*t.key().type), SqlTypeName(*t.value().type),
                         t.value().required ? " NOT NULL" : "");
    case TypeId::kStruct: {
      std::string out = "STRUCT<";
      for (size_t i = 0; i < t.fields.size(); ++i) {
        if (i) out += ", ";
        out += QuoteName(t.fields[i].name) + " " + SqlTypeName(*t.fields[i].type);
        if (t.fields[i].required) out += " NOT NULL";
      }
      return out + ">";
    }
  }
  return "?";
}

std::string FormatSqlColumns(const Schema& schema) {
  std::string out;
  for (const auto& f : schema.fields()) {
    if (!out.empty()) out += ", ";
    out += QuoteName(f.name) + " " + SqlTypeName(*f.type);
    if (f.required) out += " NOT NULL";
  }
  return out;
}

namespace {

std::string JoinPath(const std::vector<std::string>& path, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += (i ? "." : "") + path[i];
  return out;
}

// Checks the key columns against the Iceberg spec's rules for identifier
// fields (Schemas: primitive, not float or double, required, not in a list
// or map nor in an optional struct) and makes each one required: Flink SQL
// makes primary key columns NOT NULL, and Iceberg's Flink connector turns
// the primary key into the identifier fields of that schema. An optional
// struct on the way is refused rather than made required: that would change
// what the struct itself may hold.
Status ApplyPrimaryKey(const Parser::PrimaryKey& pk, std::vector<PField>* columns) {
  std::vector<std::string> seen;
  for (const auto& c : pk.columns) {
    const std::string path = JoinPath(c.path, c.path.size());
    auto fail = [&](std::string_view why) {
      return InvalidArgument("SQL column list, column {}: PRIMARY KEY column '{}' {}", c.pos, path,
                             why);
    };
    if (std::find(seen.begin(), seen.end(), path) != seen.end()) return fail("is listed twice");
    seen.push_back(path);
    std::vector<PField>* fields = columns;
    for (size_t i = 0; i < c.path.size(); ++i) {
      auto it = std::find_if(fields->begin(), fields->end(),
                             [&](const PField& f) { return f.name == c.path[i]; });
      if (it == fields->end()) {
        return fail(i == 0 ? std::string("is not a column of the list")
                           : fmt::format("does not exist: struct '{}' has no field '{}'",
                                         JoinPath(c.path, i), c.path[i]));
      }
      PField& f = *it;
      if (i + 1 == c.path.size()) {
        if (f.type->id == TypeId::kStruct || f.type->id == TypeId::kList ||
            f.type->id == TypeId::kMap) {
          return fail("must be of a primitive type (Iceberg spec: identifier fields)");
        }
        if (f.type->id == TypeId::kFloat || f.type->id == TypeId::kDouble) {
          return fail("cannot be FLOAT or DOUBLE (Iceberg spec: identifier fields)");
        }
        f.required = true;
        break;
      }
      if (f.type->id != TypeId::kStruct) {
        return fail(
            fmt::format("reaches into '{}', which is not a struct: key columns are top-level "
                        "or struct fields, never inside arrays or maps",
                        JoinPath(c.path, i + 1)));
      }
      if (!f.required) {
        return fail(
            fmt::format("is inside the optional struct '{}': declare it NOT NULL (Iceberg spec: "
                        "an identifier field cannot be nested in an optional struct)",
                        JoinPath(c.path, i + 1)));
      }
      fields = &f.type->fields;
    }
  }
  return Ok();
}

// The field id at `path` (names of nested struct fields) of built fields.
int32_t IdAtPath(const std::vector<NestedField>& fields, const std::vector<std::string>& path) {
  const std::vector<NestedField>* level = &fields;
  for (size_t i = 0; i < path.size(); ++i) {
    for (const auto& f : *level) {
      if (f.name != path[i]) continue;
      if (i + 1 == path.size()) return f.id;
      level = &f.type->fields;
      break;
    }
  }
  return -1;  // not reached: ApplyPrimaryKey resolved every path
}

}  // namespace

Result<Schema> ParseSqlColumns(std::string_view text) {
  Parser p(text);
  FLOE_RETURN_IF_ERROR(p.Tokenize());
  FLOE_ASSIGN_OR_RETURN(auto cols, p.ColumnList());
  if (p.primary_key()) FLOE_RETURN_IF_ERROR(ApplyPrimaryKey(*p.primary_key(), &cols));
  int32_t next_id = 1;
  std::vector<NestedField> fields = BuildFields(cols, &next_id);
  std::vector<int32_t> identifiers;
  if (p.primary_key()) {
    for (const auto& c : p.primary_key()->columns) identifiers.push_back(IdAtPath(fields, c.path));
  }
  Schema schema(std::move(fields), 0, std::move(identifiers));
  FLOE_RETURN_IF_ERROR(schema.Validate());
  return schema;
}

Result<TypePtr> ParseSqlType(std::string_view text, int32_t first_id) {
  Parser p(text);
  FLOE_RETURN_IF_ERROR(p.Tokenize());
  FLOE_ASSIGN_OR_RETURN(auto t, p.SingleType());
  int32_t next_id = first_id;
  return Build(*t, &next_id);
}

}  // namespace floe
