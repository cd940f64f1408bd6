// The SQL printer: one function per node kind, precedence-aware parentheses.
#include "floe/sql/printer.h"

#include <algorithm>

#include <fmt/format.h>

#include "floe/sql/parser.h"
#include "floe/util/strings.h"

namespace floe::sql {

std::string NameToSql(const std::string& name) {
  bool plain = !name.empty() && ((name[0] >= 'a' && name[0] <= 'z') ||
                                 (name[0] >= 'A' && name[0] <= 'Z') || name[0] == '_');
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '$';
    if (!ok) plain = false;
  }
  if (plain && !IsReservedWord(name)) return name;
  return QuoteIdentifier(name);
}

namespace {

std::string Quoted(const Identifier& id) {
  std::string out;
  for (size_t i = 0; i < id.parts.size(); ++i) {
    if (i) out += '.';
    out += QuoteIdentifier(id.parts[i]);
  }
  return out;
}

std::string NameList(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) out += ", ";
    out += QuoteIdentifier(names[i]);
  }
  return out;
}

std::string PropertyText(const Property& p) {
  return fmt::format("{} = {}", QuoteString(p.key), QuoteString(p.value));
}

/// ( 'k' = 'v', ... ) on one line.
std::string InlineProperties(const Properties& props) {
  std::string out = "(";
  for (size_t i = 0; i < props.size(); ++i) {
    if (i) out += ", ";
    out += PropertyText(props[i]);
  }
  return out + ")";
}

/// WITH (\n  'k' = 'v',\n  ...\n) as Flink prints table options.
std::string BlockProperties(const Properties& props) {
  std::string out = "(\n";
  for (size_t i = 0; i < props.size(); ++i) {
    if (i) out += ",\n";
    out += "  " + PropertyText(props[i]);
  }
  return out + "\n)";
}

std::string HintsText(const std::vector<Hint>& hints) {
  if (hints.empty()) return "";
  std::string out = " /*+ ";
  for (size_t i = 0; i < hints.size(); ++i) {
    const Hint& h = hints[i];
    if (i) out += ", ";
    out += h.name;  // as written: the tree keeps the spelling, so printing keeps it too
    if (EqualsIgnoreCase(h.name, "OPTIONS")) {
      out += "(";
      for (size_t k = 0; k < h.options.size(); ++k) {
        if (k) out += ", ";
        out += fmt::format("{}={}", QuoteString(h.options[k].key), QuoteString(h.options[k].value));
      }
      out += ")";
    } else if (!h.args.empty()) {
      out += "(";
      for (size_t k = 0; k < h.args.size(); ++k) {
        if (k) out += ", ";
        out += QuoteString(h.args[k]);
      }
      out += ")";
    }
  }
  return out + " */";
}

// ---- types ----------------------------------------------------------------

std::string Param(const std::optional<int32_t>& p, int32_t def, TypeStyle style) {
  if (p) return fmt::format("({})", *p);
  if (style == TypeStyle::kAsWritten) return "";
  return fmt::format("({})", def);
}

std::string TypeBody(const DataType& t, TypeStyle style) {
  const bool as_written = style == TypeStyle::kAsWritten;
  switch (t.name) {
    case TypeName::kBoolean: return "BOOLEAN";
    case TypeName::kTinyInt: return "TINYINT";
    case TypeName::kSmallInt: return "SMALLINT";
    case TypeName::kInt: return "INT";
    case TypeName::kBigInt: return "BIGINT";
    case TypeName::kFloat: return "FLOAT";
    case TypeName::kDouble: return "DOUBLE";
    case TypeName::kDecimal:
      if (as_written && !t.precision) return "DECIMAL";
      if (as_written && !t.scale) return fmt::format("DECIMAL({})", *t.precision);
      return fmt::format("DECIMAL({}, {})", t.precision.value_or(10), t.scale.value_or(0));
    case TypeName::kChar: return "CHAR" + Param(t.precision, 1, style);
    case TypeName::kVarChar:
      if (style == TypeStyle::kSummary && t.precision == kMaxVarLength) return "STRING";
      return "VARCHAR" + Param(t.precision, 1, style);
    case TypeName::kString:
      return style == TypeStyle::kSerializable ? fmt::format("VARCHAR({})", kMaxVarLength)
                                               : "STRING";
    case TypeName::kBinary: return "BINARY" + Param(t.precision, 1, style);
    case TypeName::kVarBinary:
      if (style == TypeStyle::kSummary && t.precision == kMaxVarLength) return "BYTES";
      return "VARBINARY" + Param(t.precision, 1, style);
    case TypeName::kBytes:
      return style == TypeStyle::kSerializable ? fmt::format("VARBINARY({})", kMaxVarLength)
                                               : "BYTES";
    case TypeName::kDate: return "DATE";
    case TypeName::kTime: return "TIME" + Param(t.precision, 0, style);
    case TypeName::kTimestamp: return "TIMESTAMP" + Param(t.precision, 6, style);
    case TypeName::kTimestampLtz:
      if (style == TypeStyle::kSerializable) {
        return fmt::format("TIMESTAMP({}) WITH LOCAL TIME ZONE", t.precision.value_or(6));
      }
      return "TIMESTAMP_LTZ" + Param(t.precision, 6, style);
    case TypeName::kArray: return fmt::format("ARRAY<{}>", TypeToSql(t.elements.at(0), style));
    case TypeName::kMultiset:
      return fmt::format("MULTISET<{}>", TypeToSql(t.elements.at(0), style));
    case TypeName::kMap:
      return fmt::format("MAP<{}, {}>", TypeToSql(t.elements.at(0), style),
                         TypeToSql(t.elements.at(1), style));
    case TypeName::kRow: {
      std::string out = "ROW<";
      for (size_t i = 0; i < t.fields.size(); ++i) {
        const RowField& f = t.fields[i];
        if (i) out += ", ";
        out += QuoteIdentifier(f.name) + " " + TypeToSql(f.type, style);
        if (f.description) out += " " + QuoteString(*f.description);
      }
      return out + ">";
    }
  }
  return "?";
}

// ---- expressions ----------------------------------------------------------

/// Binding strength, loosest first, as the parser's levels.
enum Prec : int {
  kOrPrec = 1,
  kAndPrec = 2,
  kNotPrec = 3,
  kPredicatePrec = 4,
  kAddPrec = 5,
  kMulPrec = 6,
  kUnaryPrec = 7,
  kPrimaryPrec = 8,
};

int PrecOf(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kUnary: return e.op == Op::kNot ? kNotPrec : kUnaryPrec;
    case ExprKind::kBinary:
      switch (e.op) {
        case Op::kOr: return kOrPrec;
        case Op::kAnd: return kAndPrec;
        case Op::kAdd:
        case Op::kSub: return kAddPrec;
        case Op::kMul:
        case Op::kDiv:
        case Op::kMod:
        case Op::kConcat: return kMulPrec;
        default: return kPredicatePrec;
      }
    case ExprKind::kIs:
    case ExprKind::kIn:
    case ExprKind::kBetween:
    case ExprKind::kLike: return kPredicatePrec;
    default: return kPrimaryPrec;
  }
}

std::string Expr2(const Expr& e);

/// `e`, parenthesized when it binds looser than `min`.
std::string Operand(const Expr& e, int min) {
  std::string s = Expr2(e);
  return PrecOf(e) < min ? "(" + s + ")" : s;
}

std::string LiteralText(const Expr& e) {
  switch (e.literal) {
    case LiteralKind::kNull: return "NULL";
    case LiteralKind::kBoolean:
    case LiteralKind::kInteger:
    case LiteralKind::kDecimal:
    case LiteralKind::kApprox: return e.value;
    case LiteralKind::kString: return QuoteString(e.value);
    case LiteralKind::kBinary: return "X" + QuoteString(e.value);
    case LiteralKind::kDate: return "DATE " + QuoteString(e.value);
    case LiteralKind::kTime: return "TIME " + QuoteString(e.value);
    case LiteralKind::kTimestamp: return "TIMESTAMP " + QuoteString(e.value);
    case LiteralKind::kInterval:
      return fmt::format("INTERVAL {}{} {}", e.interval_negative ? "-" : "", QuoteString(e.value),
                         e.interval_unit);
  }
  return "?";
}

std::string Expr2(const Expr& e) {
  switch (e.kind) {
    case ExprKind::kLiteral: return LiteralText(e);
    case ExprKind::kColumn: {
      std::string out;
      for (size_t i = 0; i < e.names.size(); ++i) {
        if (i) out += '.';
        out += QuoteIdentifier(e.names[i]);
      }
      return out;
    }
    case ExprKind::kStar: {
      std::string out;
      for (const std::string& n : e.names) out += QuoteIdentifier(n) + ".";
      return out + "*";
    }
    case ExprKind::kUnary: {
      if (e.op == Op::kNot) return "NOT " + Operand(e.args[0], kNotPrec);
      // Two minus signs in a row would start a comment: a space separates a
      // unary operand's sign (parentheses would add a nesting level per
      // sign, and a long chain then passed the parser's depth limit:
      // sql_parse_fuzz).
      const Expr& x = e.args[0];
      std::string inner = x.kind == ExprKind::kUnary && x.op != Op::kNot
                              ? " " + Expr2(x)
                              : Operand(x, kUnaryPrec);
      return std::string(OpText(e.op)) + inner;
    }
    case ExprKind::kBinary: {
      int p = PrecOf(e);
      if (e.op == Op::kAnd || e.op == Op::kOr) {
        // n-ary: a same-operator argument was parenthesized in the source.
        std::string out;
        for (size_t i = 0; i < e.args.size(); ++i) {
          if (i) out += fmt::format(" {} ", OpText(e.op));
          out += Operand(e.args[i], p + 1);
        }
        return out;
      }
      // Left-associative: the right operand must bind tighter.
      return fmt::format("{} {} {}", Operand(e.args[0], p), OpText(e.op),
                         Operand(e.args[1], p == kPredicatePrec ? kAddPrec : p + 1));
    }
    case ExprKind::kIs:
      return fmt::format("{} {}", Operand(e.args[0], kPredicatePrec), OpText(e.op));
    case ExprKind::kIn: {
      std::string out = Operand(e.args[0], kPredicatePrec) + (e.negated ? " NOT IN (" : " IN (");
      for (size_t i = 1; i < e.args.size(); ++i) {
        if (i > 1) out += ", ";
        out += Expr2(e.args[i]);
      }
      return out + ")";
    }
    case ExprKind::kBetween:
      return fmt::format("{} {}BETWEEN {} AND {}", Operand(e.args[0], kPredicatePrec),
                         e.negated ? "NOT " : "", Operand(e.args[1], kAddPrec),
                         Operand(e.args[2], kAddPrec));
    case ExprKind::kLike: {
      std::string out = fmt::format("{} {}LIKE {}", Operand(e.args[0], kPredicatePrec),
                                    e.negated ? "NOT " : "", Operand(e.args[1], kAddPrec));
      if (e.args.size() > 2) out += " ESCAPE " + Operand(e.args[2], kAddPrec);
      return out;
    }
    case ExprKind::kCast:
      return fmt::format("{}({} AS {})", e.try_cast ? "TRY_CAST" : "CAST", Expr2(e.args[0]),
                         TypeToSql(*e.cast_type));
    case ExprKind::kCase: {
      std::string out = "CASE";
      size_t i = 0;
      if (e.has_operand) out += " " + Expr2(e.args[i++]);
      size_t whens_end = e.args.size() - (e.has_else ? 1 : 0);
      for (; i < whens_end; i += 2) {
        out += fmt::format(" WHEN {} THEN {}", Expr2(e.args[i]), Expr2(e.args[i + 1]));
      }
      if (e.has_else) out += " ELSE " + Expr2(e.args.back());
      return out + " END";
    }
    case ExprKind::kCall: {
      std::string out;
      for (size_t i = 0; i < e.names.size(); ++i) {
        if (i) out += '.';
        out += NameToSql(e.names[i]);
      }
      if (!e.keyword.empty()) {
        if (e.keyword == "FROM") {
          out += fmt::format("({} FROM {}", Expr2(e.args[0]), Expr2(e.args[1]));
          if (e.args.size() > 2) out += " FOR " + Expr2(e.args[2]);
          return out + ")";
        }
        if (e.keyword == "IN") {
          return out + fmt::format("({} IN {})", Operand(e.args[0], kAddPrec),
                                   Operand(e.args[1], kAddPrec));
        }
        if (e.keyword == "BOTH" || e.keyword == "LEADING" || e.keyword == "TRAILING") {
          out += "(" + e.keyword + " ";
          if (e.args.size() > 1) out += Expr2(e.args[0]) + " ";
          return out + "FROM " + Expr2(e.args.back()) + ")";
        }
        return out + fmt::format("({} FROM {})", e.keyword, Expr2(e.args[0]));
      }
      out += e.distinct ? "(DISTINCT " : "(";
      for (size_t i = 0; i < e.args.size(); ++i) {
        if (i) out += ", ";
        out += Expr2(e.args[i]);
      }
      return out + ")";
    }
  }
  return "?";
}

// ---- statements -----------------------------------------------------------

std::string SelectText(const Select& s) {
  std::string out = "SELECT" + HintsText(s.hints) + " ";
  for (size_t i = 0; i < s.items.size(); ++i) {
    if (i) out += ", ";
    out += Expr2(s.items[i].expr);
    if (s.items[i].alias) out += " AS " + QuoteIdentifier(*s.items[i].alias);
  }
  if (s.from) {
    out += " FROM " + Quoted(s.from->name) + HintsText(s.from->hints);
    if (s.from->alias) out += " AS " + QuoteIdentifier(*s.from->alias);
  }
  if (s.where) out += " WHERE " + Expr2(*s.where);
  if (s.limit) out += fmt::format(" LIMIT {}", *s.limit);
  return out;
}

std::string ValuesText(const Values& v) {
  std::string out = "VALUES ";
  for (size_t r = 0; r < v.rows.size(); ++r) {
    if (r) out += ", ";
    out += "(";
    for (size_t i = 0; i < v.rows[r].size(); ++i) {
      if (i) out += ", ";
      out += Expr2(v.rows[r][i]);
    }
    out += ")";
  }
  return out;
}

std::string InsertText(const Insert& ins) {
  std::string out = ins.overwrite ? "INSERT OVERWRITE " : "INSERT INTO ";
  out += Quoted(ins.table) + HintsText(ins.hints);
  if (!ins.partition.empty()) {
    out += " PARTITION (";
    for (size_t i = 0; i < ins.partition.size(); ++i) {
      if (i) out += ", ";
      out += QuoteIdentifier(ins.partition[i].first) + " = " + Expr2(ins.partition[i].second);
    }
    out += ")";
  }
  if (!ins.columns.empty()) out += " (" + NameList(ins.columns) + ")";
  return out + " " + QueryToSql(ins.query);
}

std::string ColumnText(const ColumnDef& c, TypeStyle style) {
  std::string out = QuoteIdentifier(c.name) + " ";
  if (c.computed) {
    out += "AS " + Expr2(*c.computed);
  } else {
    out += TypeToSql(*c.type, style);
    if (c.metadata) {
      out += " METADATA";
      if (c.metadata_key) out += " FROM " + QuoteString(*c.metadata_key);
      if (c.is_virtual) out += " VIRTUAL";
    }
    if (c.primary_key) out += " PRIMARY KEY NOT ENFORCED";
  }
  if (c.comment) out += " COMMENT " + QuoteString(*c.comment);
  return out;
}

std::string_view LikeWord(LikeStrategy s) {
  switch (s) {
    case LikeStrategy::kIncluding: return "INCLUDING";
    case LikeStrategy::kExcluding: return "EXCLUDING";
    case LikeStrategy::kOverwriting: return "OVERWRITING";
  }
  return "";
}

std::string_view LikeWord(LikeFeature f) {
  switch (f) {
    case LikeFeature::kAll: return "ALL";
    case LikeFeature::kConstraints: return "CONSTRAINTS";
    case LikeFeature::kPartitions: return "PARTITIONS";
    case LikeFeature::kGenerated: return "GENERATED";
    case LikeFeature::kOptions: return "OPTIONS";
    case LikeFeature::kWatermarks: return "WATERMARKS";
  }
  return "";
}

/// Flink's layout (ShowCreateUtil): the column list, then each clause
/// ending with a newline.
std::string CreateTableText(const CreateTable& ct, TypeStyle style, bool show_form) {
  std::string out = "CREATE ";
  if (ct.temporary) out += "TEMPORARY ";
  out += "TABLE ";
  if (ct.if_not_exists && !show_form) out += "IF NOT EXISTS ";
  out += Quoted(ct.name);
  std::vector<std::string> elements;
  for (const ColumnDef& c : ct.columns) elements.push_back("  " + ColumnText(c, style));
  for (const Watermark& w : ct.watermarks) {
    elements.push_back(
        fmt::format("  WATERMARK FOR {} AS {}", QuoteIdentifier(w.column), Expr2(w.expr)));
  }
  if (ct.primary_key) {
    std::string pk = "  ";
    if (ct.primary_key->name) pk += "CONSTRAINT " + QuoteIdentifier(*ct.primary_key->name) + " ";
    pk += "PRIMARY KEY (" + NameList(ct.primary_key->columns) + ") NOT ENFORCED";
    elements.push_back(std::move(pk));
  }
  // Flink 1.x (ShowCreateUtil, 1.15 to 1.20): "\n) " then each clause on
  // its own line.
  if (!elements.empty()) {
    out += " (\n";
    for (size_t i = 0; i < elements.size(); ++i) {
      if (i) out += ",\n";
      out += elements[i];
    }
    out += "\n)";
  }
  out += " ";
  if (ct.comment) out += "COMMENT " + QuoteString(*ct.comment) + "\n";
  if (!ct.partitioned_by.empty()) out += "PARTITIONED BY (" + NameList(ct.partitioned_by) + ")\n";
  if (!ct.options.empty()) out += "WITH " + BlockProperties(ct.options) + "\n";
  if (ct.like && !show_form) {
    out += "LIKE " + Quoted(ct.like->source);
    if (!ct.like->options.empty()) {
      out += " (";
      for (const LikeOption& o : ct.like->options) {
        out += fmt::format("\n  {} {}", LikeWord(o.strategy), LikeWord(o.feature));
      }
      out += "\n)";
    }
    out += "\n";
  }
  return out;
}

std::string_view ShowWord(ShowKind k) {
  switch (k) {
    case ShowKind::kCatalogs: return "CATALOGS";
    case ShowKind::kDatabases: return "DATABASES";
    case ShowKind::kTables: return "TABLES";
    case ShowKind::kJars: return "JARS";
    case ShowKind::kCurrentCatalog: return "CURRENT CATALOG";
    case ShowKind::kCurrentDatabase: return "CURRENT DATABASE";
  }
  return "";
}

struct NodePrinter {
  std::string operator()(const CreateCatalog& s) const {
    return fmt::format("CREATE CATALOG {} WITH {}", Quoted(s.name), InlineProperties(s.options));
  }
  std::string operator()(const UseCatalog& s) const { return "USE CATALOG " + Quoted(s.name); }
  std::string operator()(const UseDatabase& s) const { return "USE " + Quoted(s.name); }
  std::string operator()(const CreateDatabase& s) const {
    std::string out = "CREATE DATABASE ";
    if (s.if_not_exists) out += "IF NOT EXISTS ";
    out += Quoted(s.name);
    if (s.comment) out += " COMMENT " + QuoteString(*s.comment);
    if (!s.options.empty()) out += " WITH " + InlineProperties(s.options);
    return out;
  }
  std::string operator()(const DropDatabase& s) const {
    return fmt::format("DROP DATABASE {}{}{}", s.if_exists ? "IF EXISTS " : "", Quoted(s.name),
                       s.cascade ? " CASCADE" : "");
  }
  std::string operator()(const Show& s) const {
    std::string out = fmt::format("SHOW {}", ShowWord(s.kind));
    if (s.from) out += " FROM " + Quoted(*s.from);
    return out;
  }
  std::string operator()(const ShowCreateTable& s) const {
    return "SHOW CREATE TABLE " + Quoted(s.name);
  }
  std::string operator()(const Describe& s) const { return "DESCRIBE " + Quoted(s.name); }
  std::string operator()(const Set& s) const {
    return s.property ? "SET " + PropertyText(*s.property) : "SET";
  }
  std::string operator()(const Reset& s) const {
    return s.key ? "RESET " + QuoteString(*s.key) : "RESET";
  }
  std::string operator()(const CreateTable& s) const {
    std::string out = CreateTableText(s, TypeStyle::kAsWritten, false);
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
    return out;
  }
  std::string operator()(const DropTable& s) const {
    return fmt::format("DROP {}TABLE {}{}", s.temporary ? "TEMPORARY " : "",
                       s.if_exists ? "IF EXISTS " : "", Quoted(s.name));
  }
  std::string operator()(const AlterTableSet& s) const {
    return fmt::format("ALTER TABLE {} SET {}", Quoted(s.name), InlineProperties(s.options));
  }
  std::string operator()(const AlterTableReset& s) const {
    std::string out = fmt::format("ALTER TABLE {} RESET (", Quoted(s.name));
    for (size_t i = 0; i < s.keys.size(); ++i) {
      if (i) out += ", ";
      out += QuoteString(s.keys[i]);
    }
    return out + ")";
  }
  std::string operator()(const AddJar& s) const { return "ADD JAR " + QuoteString(s.path); }
  std::string operator()(const RemoveJar& s) const { return "REMOVE JAR " + QuoteString(s.path); }
  std::string operator()(const Insert& s) const { return InsertText(s); }
  std::string operator()(const StatementSet& s) const {
    std::string out = "EXECUTE STATEMENT SET\nBEGIN\n";
    for (const Insert& ins : s.inserts) out += InsertText(ins) + ";\n";
    return out + "END";
  }
  std::string operator()(const Query& q) const { return QueryToSql(q); }
};

}  // namespace

std::string TypeToSql(const DataType& type, TypeStyle style) {
  std::string out = TypeBody(type, style);
  if (!type.nullable) out += " NOT NULL";
  return out;
}

std::string ExprToSql(const Expr& expr) { return Expr2(expr); }

std::string QueryToSql(const Query& query) {
  if (const auto* s = std::get_if<Select>(&query.body)) return SelectText(*s);
  return ValuesText(std::get<Values>(query.body));
}

std::string ToSql(const StatementNode& node) { return std::visit(NodePrinter{}, node); }
std::string ToSql(const Statement& statement) { return ToSql(statement.node); }

std::string ShowCreateTableText(const CreateTable& table) {
  CreateTable t = table;
  std::stable_sort(t.options.begin(), t.options.end(),
                   [](const Property& a, const Property& b) { return a.key < b.key; });
  // A column constraint becomes the table constraint Flink prints.
  for (ColumnDef& c : t.columns) {
    if (c.primary_key && !t.primary_key) t.primary_key = PrimaryKey{std::nullopt, {c.name}, c.pos};
    c.primary_key = false;
  }
  if (t.primary_key) {
    if (!t.primary_key->name) {
      // Flink names an unnamed key PK_<columns joined by _> (table.q: `PK_user`).
      std::string name = "PK";
      for (const std::string& c : t.primary_key->columns) name += "_" + c;
      t.primary_key->name = name;
    }
    // Primary key columns are NOT NULL (Flink makes them so).
    for (ColumnDef& c : t.columns) {
      if (c.type && std::find(t.primary_key->columns.begin(), t.primary_key->columns.end(),
                              c.name) != t.primary_key->columns.end()) {
        c.type->nullable = false;
      }
    }
  }
  return CreateTableText(t, TypeStyle::kSerializable, true);
}

// ---- ClearPositions -------------------------------------------------------

void ClearPositions(DataType& type) {
  type.pos = {};
  for (DataType& e : type.elements) ClearPositions(e);
  for (RowField& f : type.fields) {
    f.pos = {};
    ClearPositions(f.type);
  }
}

void ClearPositions(Expr& expr) {
  expr.span = {};
  for (Expr& a : expr.args) ClearPositions(a);
  if (expr.cast_type) ClearPositions(*expr.cast_type);
}

namespace {

void Clear(Identifier& id) { id.pos = {}; }
void Clear(Properties& props) {
  for (Property& p : props) p.pos = {};
}
void Clear(std::vector<Hint>& hints) {
  for (Hint& h : hints) {
    h.pos = {};
    Clear(h.options);
  }
}

void Clear(Query& q) {
  if (auto* s = std::get_if<Select>(&q.body)) {
    s->pos = {};
    Clear(s->hints);
    for (SelectItem& item : s->items) ClearPositions(item.expr);
    if (s->from) {
      Clear(s->from->name);
      Clear(s->from->hints);
    }
    if (s->where) ClearPositions(*s->where);
  } else {
    Values& v = std::get<Values>(q.body);
    v.pos = {};
    for (auto& row : v.rows) {
      for (Expr& e : row) ClearPositions(e);
    }
  }
}

void Clear(Insert& ins) {
  Clear(ins.table);
  Clear(ins.hints);
  for (auto& [k, v] : ins.partition) ClearPositions(v);
  Clear(ins.query);
}

struct NodeClearer {
  void operator()(CreateCatalog& s) const { Clear(s.name), Clear(s.options); }
  void operator()(UseCatalog& s) const { Clear(s.name); }
  void operator()(UseDatabase& s) const { Clear(s.name); }
  void operator()(CreateDatabase& s) const { Clear(s.name), Clear(s.options); }
  void operator()(DropDatabase& s) const { Clear(s.name); }
  void operator()(Show& s) const {
    if (s.from) Clear(*s.from);
  }
  void operator()(ShowCreateTable& s) const { Clear(s.name); }
  void operator()(Describe& s) const { Clear(s.name); }
  void operator()(Set& s) const {
    if (s.property) s.property->pos = {};
  }
  void operator()(Reset& s) const { s.key_pos = {}; }
  void operator()(CreateTable& s) const {
    Clear(s.name);
    for (ColumnDef& c : s.columns) {
      c.pos = {};
      if (c.type) ClearPositions(*c.type);
      if (c.computed) ClearPositions(*c.computed);
    }
    for (Watermark& w : s.watermarks) {
      w.pos = {};
      ClearPositions(w.expr);
    }
    if (s.primary_key) s.primary_key->pos = {};
    Clear(s.options);
    if (s.like) {
      Clear(s.like->source);
      for (LikeOption& o : s.like->options) o.pos = {};
    }
  }
  void operator()(DropTable& s) const { Clear(s.name); }
  void operator()(AlterTableSet& s) const { Clear(s.name), Clear(s.options); }
  void operator()(AlterTableReset& s) const { Clear(s.name); }
  void operator()(AddJar&) const {}
  void operator()(RemoveJar&) const {}
  void operator()(Insert& s) const { Clear(s); }
  void operator()(StatementSet& s) const {
    for (Insert& ins : s.inserts) Clear(ins);
    for (Pos& p : s.insert_pos) p = {};
  }
  void operator()(Query& q) const { Clear(q); }
};

}  // namespace

void ClearPositions(Statement& statement) {
  statement.pos = {};
  statement.text.clear();
  std::visit(NodeClearer{}, statement.node);
}

}  // namespace floe::sql
