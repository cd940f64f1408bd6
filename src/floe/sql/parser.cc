// The Flink SQL parser: recursive descent over the tokens of one statement.
// Every check of the current token notes what it looked for, so that a syntax
// error lists the tokens that could have come next at the furthest point
// reached, as Calcite's (JavaCC's) ParseException does.
#include "floe/sql/parser.h"

#include <algorithm>
#include <charconv>
#include <set>

#include <fmt/format.h>

#include "floe/util/strings.h"

// Keeps a function's locals out of its callers' frames (see ParsePredicate).
#define FLOE_NOINLINE [[gnu::noinline]]

namespace floe::sql {

std::string Identifier::ToString() const {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += '.';
    out += parts[i];
  }
  return out;
}

Pos Query::pos() const {
  return std::visit([](const auto& b) { return b.pos; }, body);
}

std::string_view OpText(Op op) {
  switch (op) {
    case Op::kNone: return "";
    case Op::kNeg: return "-";
    case Op::kPlus: return "+";
    case Op::kNot: return "NOT";
    case Op::kAdd: return "+";
    case Op::kSub: return "-";
    case Op::kMul: return "*";
    case Op::kDiv: return "/";
    case Op::kMod: return "%";
    case Op::kConcat: return "||";
    case Op::kEq: return "=";
    case Op::kNe: return "<>";
    case Op::kLt: return "<";
    case Op::kLe: return "<=";
    case Op::kGt: return ">";
    case Op::kGe: return ">=";
    case Op::kAnd: return "AND";
    case Op::kOr: return "OR";
    case Op::kIsNull: return "IS NULL";
    case Op::kIsNotNull: return "IS NOT NULL";
    case Op::kIsTrue: return "IS TRUE";
    case Op::kIsNotTrue: return "IS NOT TRUE";
    case Op::kIsFalse: return "IS FALSE";
    case Op::kIsNotFalse: return "IS NOT FALSE";
    case Op::kIsUnknown: return "IS UNKNOWN";
    case Op::kIsNotUnknown: return "IS NOT UNKNOWN";
    case Op::kIsDistinctFrom: return "IS DISTINCT FROM";
    case Op::kIsNotDistinctFrom: return "IS NOT DISTINCT FROM";
  }
  return "";
}

namespace {
bool IsReserved(std::string_view word);
}  // namespace

bool IsReservedWord(std::string_view word) { return IsReserved(word); }

namespace {

/// Words that are never a bare name: the grammar's own words, and the
/// reserved words of Calcite that Flink users meet most (`timestamp`, `time`,
/// `date`, `user`, `value` must be back-quoted as column names in Flink too).
bool IsReserved(std::string_view word) {
  static const std::set<std::string, std::less<>> kReserved = {
      "ALL",        "ALTER",   "AND",    "AS",      "BETWEEN", "BY",       "CASE",     "CAST",
      "CONSTRAINT", "CREATE",  "CROSS",  "CURRENT", "DATE",    "DESCRIBE", "DISTINCT", "DROP",
      "ELSE",       "END",     "ESCAPE", "EXCEPT",  "EXISTS",  "FALSE",    "FETCH",    "FOR",
      "FROM",       "FULL",    "GROUP",  "HAVING",  "IN",      "INNER",    "INSERT",   "INTERSECT",
      "INTERVAL",   "INTO",    "IS",     "JOIN",    "LEFT",    "LIKE",     "LIMIT",    "MINUS",
      "NATURAL",    "NOT",     "NULL",   "OFFSET",  "ON",      "OR",       "ORDER",    "OVERWRITE",
      "PARTITION",  "PRIMARY", "RIGHT",  "SELECT",  "SET",     "TABLE",    "THEN",     "TIME",
      "TIMESTAMP",  "TRUE",    "UNION",  "UNKNOWN", "USER",    "USING",    "VALUE",    "VALUES",
      "WATERMARK",  "WHEN",    "WHERE",  "WINDOW",  "WITH",
  };
  return kReserved.contains(ToUpper(word));
}

/// JavaCC's add_escapes, used on the image of the token in "Encountered".
std::string Escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\'': out += "\\'"; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default: out += c;
    }
  }
  return out;
}

constexpr std::string_view kEnforcedText =
    "Flink doesn't support ENFORCED mode for PRIMARY KEY constraint. ENFORCED/NOT ENFORCED "
    "controls if the constraint checks are performed on the incoming/outgoing data. Flink does not "
    "own the data therefore the only supported mode is the NOT ENFORCED mode";

class Parser {
 public:
  Parser(std::string_view text, std::vector<Token> tokens)
      : text_(text), tokens_(std::move(tokens)) {}

  // ---- statements --------------------------------------------------------

  Result<Statement> StatementEof() {
    Statement st;
    st.pos = Peek().pos;
    FLOE_ASSIGN_OR_RETURN(st.node, ParseStatementNode());
    AcceptSym(";");
    FLOE_RETURN_IF_ERROR(ExpectEof());
    size_t end = tokens_.size() >= 2 ? tokens_[tokens_.size() - 2].end_offset : 0;
    if (tokens_.size() >= 2 && tokens_[tokens_.size() - 2].IsSymbol(";")) {
      end = tokens_[tokens_.size() - 2].offset;
    }
    size_t begin = tokens_.front().offset;
    st.text = std::string(TrimSpace(text_.substr(begin, end > begin ? end - begin : 0)));
    return st;
  }

  Result<DataType> TypeEof() {
    FLOE_ASSIGN_OR_RETURN(DataType t, ParseType());
    FLOE_RETURN_IF_ERROR(ExpectEof());
    return t;
  }

  Result<Expr> ExprEof() {
    FLOE_ASSIGN_OR_RETURN(Expr e, ParseExpr());
    FLOE_RETURN_IF_ERROR(ExpectEof());
    return e;
  }

  /// The hints of one /*+ ... */ body: NAME[(args)] [, NAME[(args)]]*.
  Result<std::vector<Hint>> HintsEof() {
    std::vector<Hint> out;
    do {
      Hint h;
      h.pos = Peek().pos;
      FLOE_ASSIGN_OR_RETURN(h.name, SimpleName());
      if (EqualsIgnoreCase(h.name, "OPTIONS") && !CheckSym("(")) {
        // Flink (FlinkHints): OPTIONS takes at least one 'key'='value'.
        return InvalidArgument("At {}: Hint [{}] only support non empty key value options",
                               PosText(h.pos), h.name);
      }
      if (AcceptSym("(")) {
        if (EqualsIgnoreCase(h.name, "OPTIONS")) {
          do {
            FLOE_ASSIGN_OR_RETURN(Property p, ParseProperty());
            h.options.push_back(std::move(p));
          } while (AcceptSym(","));
        } else if (!CheckSym(")")) {
          do {
            const Token& t = Peek();
            if (t.kind == TokenKind::kString || t.kind == TokenKind::kIdentifier ||
                t.kind == TokenKind::kQuotedIdentifier || t.kind == TokenKind::kInteger) {
              h.args.push_back(t.value);
              ++i_;
            } else {
              Note("<IDENTIFIER>");
              Note("<QUOTED_STRING>");
              return SyntaxError();
            }
          } while (AcceptSym(","));
        }
        FLOE_RETURN_IF_ERROR(ExpectSym(")"));
      }
      out.push_back(std::move(h));
    } while (AcceptSym(","));
    FLOE_RETURN_IF_ERROR(ExpectEof());
    return out;
  }

 private:
  Result<StatementNode> ParseStatementNode() {
    const Token& t = Peek();
    if (Check("CREATE")) return ParseCreate();
    if (Check("DROP")) return ParseDrop();
    if (Check("ALTER")) return ParseAlter();
    if (Check("USE")) return ParseUse();
    if (Check("SHOW")) return ParseShow();
    if (Check("DESCRIBE") || Check("DESC")) {
      ++i_;
      Describe d;
      FLOE_ASSIGN_OR_RETURN(d.name, TableName());
      return d;
    }
    if (Check("SET")) return ParseSet();
    if (Check("RESET")) return ParseReset();
    if (Check("ADD")) {
      ++i_;
      FLOE_RETURN_IF_ERROR(Expect("JAR"));
      AddJar j;
      FLOE_ASSIGN_OR_RETURN(j.path, StringLiteral());
      return j;
    }
    if (Check("REMOVE")) {
      ++i_;
      FLOE_RETURN_IF_ERROR(Expect("JAR"));
      RemoveJar j;
      FLOE_ASSIGN_OR_RETURN(j.path, StringLiteral());
      return j;
    }
    if (Check("INSERT")) {
      FLOE_ASSIGN_OR_RETURN(Insert ins, ParseInsert());
      return ins;
    }
    if (Check("EXECUTE")) {
      ++i_;
      FLOE_RETURN_IF_ERROR(Expect("STATEMENT"));
      FLOE_RETURN_IF_ERROR(Expect("SET"));
      FLOE_RETURN_IF_ERROR(Expect("BEGIN"));
      return ParseStatementSetBody(t.pos);
    }
    if (Check("BEGIN")) {
      ++i_;
      FLOE_RETURN_IF_ERROR(Expect("STATEMENT"));
      FLOE_RETURN_IF_ERROR(Expect("SET"));
      FLOE_RETURN_IF_ERROR(ExpectSym(";"));
      return ParseStatementSetBody(t.pos);
    }
    if (Check("SELECT") || Check("VALUES") || CheckSym("(") || Check("WITH")) {
      FLOE_ASSIGN_OR_RETURN(Query q, ParseQuery());
      return q;
    }
    if (Check("EXPLAIN")) return NotSupported(t, "EXPLAIN");
    return SyntaxError();
  }

  /// After BEGIN: insert; insert; ... END.
  Result<StatementNode> ParseStatementSetBody(Pos set_pos) {
    StatementSet set;
    while (true) {
      while (AcceptSym(";")) {
      }
      if (Accept("END")) break;
      const Token& t = Peek();
      if (!Check("INSERT")) {
        if (t.kind == TokenKind::kEof) return SyntaxError();
        if (t.kind == TokenKind::kIdentifier) {
          return InvalidArgument(
              "From {} to {}: Only INSERT statement is allowed in Statement Set.", PosText(t.pos),
              PosText(t.end));
        }
        Note("END");
        return SyntaxError();
      }
      set.insert_pos.push_back(t.pos);
      FLOE_ASSIGN_OR_RETURN(Insert ins, ParseInsert());
      set.inserts.push_back(std::move(ins));
      if (!CheckSym(";")) {
        Note("END");
        return SyntaxError();
      }
    }
    if (set.inserts.empty()) {
      return InvalidArgument("At {}: a statement set holds at least one INSERT statement",
                             PosText(set_pos));
    }
    return set;
  }

  Result<StatementNode> ParseCreate() {
    ++i_;  // CREATE
    bool temporary = Accept("TEMPORARY");
    if (Check("TABLE")) {
      ++i_;
      FLOE_ASSIGN_OR_RETURN(CreateTable ct, ParseCreateTable());
      ct.temporary = temporary;
      return ct;
    }
    if (!temporary && Accept("CATALOG")) {
      CreateCatalog c;
      FLOE_ASSIGN_OR_RETURN(c.name, SimpleIdentifier());
      FLOE_RETURN_IF_ERROR(Expect("WITH"));
      FLOE_ASSIGN_OR_RETURN(c.options, PropertyList());
      return c;
    }
    if (!temporary && Accept("DATABASE")) {
      CreateDatabase d;
      if (Accept("IF")) {
        FLOE_RETURN_IF_ERROR(Expect("NOT"));
        FLOE_RETURN_IF_ERROR(Expect("EXISTS"));
        d.if_not_exists = true;
      }
      FLOE_ASSIGN_OR_RETURN(d.name, CompoundName(2, "a database is named [catalog.]database"));
      if (Accept("COMMENT")) {
        FLOE_ASSIGN_OR_RETURN(d.comment, StringLiteral());
      }
      if (Accept("WITH")) {
        FLOE_ASSIGN_OR_RETURN(d.options, PropertyList());
      }
      return d;
    }
    for (std::string_view what : {"VIEW", "FUNCTION", "SYSTEM"}) {
      if (Check(what)) return NotSupported(Peek(), fmt::format("CREATE {}", what));
    }
    return SyntaxError();
  }

  Result<CreateTable> ParseCreateTable() {
    CreateTable ct;
    if (Accept("IF")) {
      FLOE_RETURN_IF_ERROR(Expect("NOT"));
      FLOE_RETURN_IF_ERROR(Expect("EXISTS"));
      ct.if_not_exists = true;
    }
    FLOE_ASSIGN_OR_RETURN(ct.name, TableName());
    if (AcceptSym("(")) {
      do {
        FLOE_RETURN_IF_ERROR(ParseTableElement(ct));
      } while (AcceptSym(","));
      FLOE_RETURN_IF_ERROR(ExpectSym(")"));
    }
    if (Accept("COMMENT")) {
      FLOE_ASSIGN_OR_RETURN(ct.comment, StringLiteral());
    }
    if (Check("DISTRIBUTED")) return NotSupported(Peek(), "DISTRIBUTED BY");
    if (Accept("PARTITIONED")) {
      FLOE_RETURN_IF_ERROR(Expect("BY"));
      FLOE_RETURN_IF_ERROR(ExpectSym("("));
      do {
        FLOE_ASSIGN_OR_RETURN(std::string c, SimpleName());
        ct.partitioned_by.push_back(std::move(c));
      } while (AcceptSym(","));
      FLOE_RETURN_IF_ERROR(ExpectSym(")"));
    }
    if (Accept("WITH")) {
      FLOE_ASSIGN_OR_RETURN(ct.options, PropertyList());
    }
    if (Accept("LIKE")) {
      LikeClause like;
      FLOE_ASSIGN_OR_RETURN(like.source, TableName());
      if (AcceptSym("(")) {
        do {
          FLOE_ASSIGN_OR_RETURN(LikeOption o, ParseLikeOption());
          like.options.push_back(o);
        } while (!CheckSym(")"));
        ++i_;
      }
      ct.like = std::move(like);
    }
    if (Check("AS")) return NotSupported(Peek(), "CREATE TABLE ... AS SELECT");
    if (ct.columns.empty() && !ct.like && ct.watermarks.empty()) {
      // Flink: a table without columns needs LIKE (or AS SELECT).
      if (!ct.primary_key) {
        return InvalidArgument("At {}: CREATE TABLE {} has no columns (give a column list or LIKE)",
                               PosText(ct.name.pos), ct.name.ToString());
      }
    }
    return ct;
  }

  Result<LikeOption> ParseLikeOption() {
    LikeOption o;
    o.pos = Peek().pos;
    if (Accept("INCLUDING")) {
      o.strategy = LikeStrategy::kIncluding;
    } else if (Accept("EXCLUDING")) {
      o.strategy = LikeStrategy::kExcluding;
    } else if (Accept("OVERWRITING")) {
      o.strategy = LikeStrategy::kOverwriting;
    } else {
      return SyntaxError();
    }
    static constexpr std::pair<std::string_view, LikeFeature> kFeatures[] = {
        {"ALL", LikeFeature::kAll},
        {"CONSTRAINTS", LikeFeature::kConstraints},
        {"PARTITIONS", LikeFeature::kPartitions},
        {"GENERATED", LikeFeature::kGenerated},
        {"OPTIONS", LikeFeature::kOptions},
        {"WATERMARKS", LikeFeature::kWatermarks},
    };
    const Token& t = Peek();
    for (auto [word, feature] : kFeatures) {
      if (Accept(word)) {
        o.feature = feature;
        // Flink (SqlTableLike): OVERWRITING applies to GENERATED, OPTIONS and
        // WATERMARKS only.
        if (o.strategy == LikeStrategy::kOverwriting &&
            (feature == LikeFeature::kAll || feature == LikeFeature::kConstraints ||
             feature == LikeFeature::kPartitions)) {
          return InvalidArgument(
              "From {} to {}: Illegal merging strategy 'OVERWRITING' for '{}' option.",
              PosText(o.pos), PosText(t.end), word);
        }
        return o;
      }
    }
    return SyntaxError();
  }

  Status ParseTableElement(CreateTable& ct) {
    const Token& t = Peek();
    if (Check("CONSTRAINT") || Check("PRIMARY")) {
      if (ct.primary_key) {
        return InvalidArgument("From {} to {}: Duplicate primary key definition", PosText(t.pos),
                               PosText(t.end));
      }
      PrimaryKey pk;
      pk.pos = t.pos;
      if (Accept("CONSTRAINT")) {
        FLOE_ASSIGN_OR_RETURN(pk.name, SimpleName());
      }
      if (Check("UNIQUE")) return NotSupported(Peek(), "UNIQUE constraint");
      FLOE_RETURN_IF_ERROR(Expect("PRIMARY"));
      FLOE_RETURN_IF_ERROR(Expect("KEY"));
      FLOE_RETURN_IF_ERROR(ExpectSym("("));
      do {
        FLOE_ASSIGN_OR_RETURN(std::string c, SimpleName());
        pk.columns.push_back(std::move(c));
      } while (AcceptSym(","));
      FLOE_RETURN_IF_ERROR(ExpectSym(")"));
      FLOE_RETURN_IF_ERROR(NotEnforced(pk.pos));
      ct.primary_key = std::move(pk);
      return Ok();
    }
    if (Accept("WATERMARK")) {
      Watermark w;
      w.pos = t.pos;
      FLOE_RETURN_IF_ERROR(Expect("FOR"));
      FLOE_ASSIGN_OR_RETURN(w.column, SimpleName());
      FLOE_RETURN_IF_ERROR(Expect("AS"));
      FLOE_ASSIGN_OR_RETURN(w.expr, ParseExpr());
      ct.watermarks.push_back(std::move(w));
      return Ok();
    }
    ColumnDef c;
    c.pos = t.pos;
    FLOE_ASSIGN_OR_RETURN(c.name, SimpleName());
    if (Accept("AS")) {
      FLOE_ASSIGN_OR_RETURN(c.computed, ParseExpr());
    } else {
      FLOE_ASSIGN_OR_RETURN(c.type, ParseType());
      if (Accept("METADATA")) {
        c.metadata = true;
        if (Accept("FROM")) {
          FLOE_ASSIGN_OR_RETURN(c.metadata_key, StringLiteral());
        }
        c.is_virtual = Accept("VIRTUAL");
      }
      const Token& k = Peek();
      if (Check("CONSTRAINT") || Check("PRIMARY")) {
        if (Accept("CONSTRAINT")) {
          FLOE_ASSIGN_OR_RETURN(std::string ignored_name, SimpleName());
          (void)
              ignored_name;  // a column constraint's name is not kept (Flink names the key itself)
        }
        FLOE_RETURN_IF_ERROR(Expect("PRIMARY"));
        FLOE_RETURN_IF_ERROR(Expect("KEY"));
        FLOE_RETURN_IF_ERROR(NotEnforced(k.pos));
        c.primary_key = true;
      }
    }
    if (Accept("COMMENT")) {
      FLOE_ASSIGN_OR_RETURN(c.comment, StringLiteral());
    }
    ct.columns.push_back(std::move(c));
    return Ok();
  }

  /// After PRIMARY KEY [(cols)]: NOT ENFORCED is required (Flink's text otherwise).
  Status NotEnforced(Pos pk_pos) {
    if (Check("NOT") && Peek(1).Is("ENFORCED")) {
      i_ += 2;
      return Ok();
    }
    const Token& t = Peek();
    Pos end = t.Is("ENFORCED") ? t.end : tokens_[i_ > 0 ? i_ - 1 : 0].end;
    if (t.Is("ENFORCED") || t.IsSymbol(",") || t.IsSymbol(")") || t.Is("COMMENT") ||
        t.kind == TokenKind::kEof) {
      return Unsupported("From {} to {}: {}", PosText(pk_pos), PosText(end), kEnforcedText);
    }
    Note("NOT");
    Note("ENFORCED");
    return SyntaxError();
  }

  Result<StatementNode> ParseDrop() {
    ++i_;  // DROP
    bool temporary = Accept("TEMPORARY");
    if (Accept("TABLE")) {
      DropTable d;
      d.temporary = temporary;
      if (Accept("IF")) {
        FLOE_RETURN_IF_ERROR(Expect("EXISTS"));
        d.if_exists = true;
      }
      FLOE_ASSIGN_OR_RETURN(d.name, TableName());
      return d;
    }
    if (!temporary && Accept("DATABASE")) {
      DropDatabase d;
      if (Accept("IF")) {
        FLOE_RETURN_IF_ERROR(Expect("EXISTS"));
        d.if_exists = true;
      }
      FLOE_ASSIGN_OR_RETURN(d.name, CompoundName(2, "a database is named [catalog.]database"));
      if (Accept("CASCADE")) {
        d.cascade = true;
      } else {
        (void)Accept("RESTRICT");  // the default
      }
      return d;
    }
    for (std::string_view what : {"CATALOG", "VIEW", "FUNCTION"}) {
      if (Check(what)) return NotSupported(Peek(), fmt::format("DROP {}", what));
    }
    return SyntaxError();
  }

  Result<StatementNode> ParseAlter() {
    ++i_;  // ALTER
    FLOE_RETURN_IF_ERROR(Expect("TABLE"));
    if (Check("IF")) return NotSupported(Peek(), "ALTER TABLE IF EXISTS");
    FLOE_ASSIGN_OR_RETURN(Identifier name, TableName());
    if (Accept("SET")) {
      AlterTableSet a;
      a.name = std::move(name);
      FLOE_ASSIGN_OR_RETURN(a.options, PropertyList());
      return a;
    }
    if (Accept("RESET")) {
      AlterTableReset a;
      a.name = std::move(name);
      FLOE_RETURN_IF_ERROR(ExpectSym("("));
      do {
        FLOE_ASSIGN_OR_RETURN(std::string k, StringLiteral());
        a.keys.push_back(std::move(k));
      } while (AcceptSym(","));
      FLOE_RETURN_IF_ERROR(ExpectSym(")"));
      return a;
    }
    for (std::string_view what : {"RENAME", "ADD", "MODIFY", "DROP"}) {
      if (Check(what)) return NotSupported(Peek(), fmt::format("ALTER TABLE ... {}", what));
    }
    return SyntaxError();
  }

  Result<StatementNode> ParseUse() {
    ++i_;  // USE
    if (Accept("CATALOG")) {
      UseCatalog u;
      FLOE_ASSIGN_OR_RETURN(u.name, SimpleIdentifier());
      return u;
    }
    if (Check("MODULES")) return NotSupported(Peek(), "USE MODULES");
    UseDatabase u;
    FLOE_ASSIGN_OR_RETURN(u.name, CompoundName(2, "a database is named [catalog.]database"));
    return u;
  }

  Result<StatementNode> ParseShow() {
    ++i_;  // SHOW
    Show s;
    if (Accept("CATALOGS")) {
      s.kind = ShowKind::kCatalogs;
    } else if (Accept("DATABASES")) {
      s.kind = ShowKind::kDatabases;
    } else if (Accept("TABLES")) {
      s.kind = ShowKind::kTables;
      if (Accept("FROM") || Accept("IN")) {
        FLOE_ASSIGN_OR_RETURN(s.from, CompoundName(2, "a database is named [catalog.]database"));
      }
    } else if (Accept("JARS")) {
      s.kind = ShowKind::kJars;
    } else if (Accept("CURRENT")) {
      if (Accept("CATALOG")) {
        s.kind = ShowKind::kCurrentCatalog;
      } else if (Accept("DATABASE")) {
        s.kind = ShowKind::kCurrentDatabase;
      } else {
        return SyntaxError();
      }
    } else if (Accept("CREATE")) {
      if (Check("VIEW") || Check("CATALOG")) {
        return NotSupported(Peek(), fmt::format("SHOW CREATE {}", ToUpper(Peek().value)));
      }
      FLOE_RETURN_IF_ERROR(Expect("TABLE"));
      ShowCreateTable sc;
      FLOE_ASSIGN_OR_RETURN(sc.name, TableName());
      return sc;
    } else {
      for (std::string_view what :
           {"VIEWS", "FUNCTIONS", "MODULES", "COLUMNS", "PARTITIONS", "JOBS", "PROCEDURES"}) {
        if (Check(what)) return NotSupported(Peek(), fmt::format("SHOW {}", what));
      }
      return SyntaxError();
    }
    return s;
  }

  Result<StatementNode> ParseSet() {
    ++i_;  // SET
    Set s;
    if (Peek().kind == TokenKind::kString) {
      FLOE_ASSIGN_OR_RETURN(s.property, ParseProperty());
    } else {
      Note("<QUOTED_STRING>");
    }
    return s;
  }

  Result<StatementNode> ParseReset() {
    ++i_;  // RESET
    Reset r;
    r.key_pos = Peek().pos;
    if (Peek().kind == TokenKind::kString) {
      r.key = Peek().value;
      ++i_;
    } else {
      Note("<QUOTED_STRING>");
    }
    return r;
  }

  Result<Insert> ParseInsert() {
    ++i_;  // INSERT
    Insert ins;
    if (Accept("OVERWRITE")) {
      ins.overwrite = true;
    } else {
      FLOE_RETURN_IF_ERROR(Expect("INTO"));
    }
    FLOE_ASSIGN_OR_RETURN(ins.table, TableName());
    FLOE_ASSIGN_OR_RETURN(ins.hints, OptionalHints());
    if (Accept("PARTITION")) {
      FLOE_RETURN_IF_ERROR(ExpectSym("("));
      do {
        FLOE_ASSIGN_OR_RETURN(std::string k, SimpleName());
        FLOE_RETURN_IF_ERROR(ExpectSym("="));
        FLOE_ASSIGN_OR_RETURN(Expr v, ParseUnary());
        if (v.kind != ExprKind::kLiteral && !(v.kind == ExprKind::kUnary && v.op == Op::kNeg &&
                                              v.args[0].kind == ExprKind::kLiteral)) {
          return InvalidArgument("From {} to {}: a static partition value must be a literal",
                                 PosText(v.span.begin), PosText(v.span.end));
        }
        ins.partition.emplace_back(std::move(k), std::move(v));
      } while (AcceptSym(","));
      FLOE_RETURN_IF_ERROR(ExpectSym(")"));
    }
    if (CheckSym("(") && !(Peek(1).Is("SELECT") || Peek(1).Is("VALUES") || Peek(1).Is("WITH") ||
                           Peek(1).IsSymbol("("))) {
      ++i_;
      do {
        FLOE_ASSIGN_OR_RETURN(std::string c, SimpleName());
        ins.columns.push_back(std::move(c));
      } while (AcceptSym(","));
      FLOE_RETURN_IF_ERROR(ExpectSym(")"));
    }
    if (!(Check("SELECT") || Check("VALUES") || CheckSym("(") || Check("WITH"))) {
      return SyntaxError();
    }
    FLOE_ASSIGN_OR_RETURN(ins.query, ParseQuery());
    return ins;
  }

  // ---- queries -----------------------------------------------------------

  FLOE_NOINLINE Result<Query> ParseQuery() {
    const Token& t = Peek();
    if (t.Is("WITH")) return NotSupported(t, "WITH (common table expressions)");
    if (t.IsSymbol("(")) {
      // A parenthesized query: ( SELECT ... ) keeps its meaning.
      FLOE_RETURN_IF_ERROR(Enter(t));
      ++i_;
      FLOE_ASSIGN_OR_RETURN(Query q, ParseQuery());
      FLOE_RETURN_IF_ERROR(ExpectSym(")"));
      --depth_;
      FLOE_RETURN_IF_ERROR(RefuseSetOps());
      return q;
    }
    Query q;
    if (Accept("VALUES")) {
      Values v;
      v.pos = t.pos;
      do {
        FLOE_RETURN_IF_ERROR(ExpectSym("("));
        std::vector<Expr> row;
        do {
          FLOE_ASSIGN_OR_RETURN(Expr e, ParseExpr());
          row.push_back(std::move(e));
        } while (AcceptSym(","));
        FLOE_RETURN_IF_ERROR(ExpectSym(")"));
        v.rows.push_back(std::move(row));
      } while (AcceptSym(","));
      q.body = std::move(v);
    } else {
      FLOE_RETURN_IF_ERROR(Expect("SELECT"));
      FLOE_ASSIGN_OR_RETURN(Select s, ParseSelectBody(t.pos));
      q.body = std::move(s);
    }
    FLOE_RETURN_IF_ERROR(RefuseSetOps());
    return q;
  }

  Status RefuseSetOps() {
    for (std::string_view op : {"UNION", "EXCEPT", "INTERSECT", "MINUS"}) {
      if (Check(op)) return NotSupported(Peek(), op);
    }
    return Ok();
  }

  Result<Select> ParseSelectBody(Pos pos) {
    Select s;
    s.pos = pos;
    FLOE_ASSIGN_OR_RETURN(s.hints, OptionalHints());
    if (Check("DISTINCT")) return NotSupported(Peek(), "SELECT DISTINCT");
    (void)Accept("ALL");
    do {
      SelectItem item;
      const Token& t = Peek();
      if (t.IsSymbol("*")) {
        ++i_;
        item.expr.kind = ExprKind::kStar;
        item.expr.span = {t.pos, t.end};
      } else {
        FLOE_ASSIGN_OR_RETURN(item.expr, ParseExpr());
        if (item.expr.kind != ExprKind::kStar) {
          if (Accept("AS")) {
            FLOE_ASSIGN_OR_RETURN(item.alias, SimpleName());
          } else if (IsName(Peek())) {
            item.alias = Peek().value;
            ++i_;
          } else {
            Note("AS");
          }
        }
      }
      s.items.push_back(std::move(item));
    } while (AcceptSym(","));
    if (Accept("FROM")) {
      FLOE_ASSIGN_OR_RETURN(s.from, ParseTableRef());
      const Token& j = Peek();
      for (std::string_view word : {"JOIN", "INNER", "LEFT", "RIGHT", "FULL", "CROSS", "NATURAL"}) {
        if (Check(word)) return NotSupported(j, "JOIN");
      }
      if (CheckSym(",")) return NotSupported(j, "JOIN (a comma-separated FROM list)");
    }
    if (Accept("WHERE")) {
      FLOE_ASSIGN_OR_RETURN(s.where, ParseExpr());
    }
    if (Check("GROUP")) return NotSupported(Peek(), "GROUP BY");
    if (Check("HAVING")) return NotSupported(Peek(), "HAVING");
    if (Check("WINDOW")) return NotSupported(Peek(), "WINDOW");
    if (Check("ORDER")) return NotSupported(Peek(), "ORDER BY");
    if (Accept("LIMIT")) {
      const Token& n = Peek();
      if (n.kind != TokenKind::kInteger) {
        Note("<UNSIGNED_INTEGER_LITERAL>");
        Note("ALL");
        if (Accept("ALL")) return s;
        return SyntaxError();
      }
      int64_t v = 0;
      auto [p, ec] = std::from_chars(n.value.data(), n.value.data() + n.value.size(), v);
      if (ec != std::errc() || p != n.value.data() + n.value.size()) {
        return InvalidArgument("From {} to {}: LIMIT {} is out of range", PosText(n.pos),
                               PosText(n.end), n.value);
      }
      ++i_;
      s.limit = v;
    }
    if (Check("OFFSET")) return NotSupported(Peek(), "OFFSET");
    if (Check("FETCH")) return NotSupported(Peek(), "FETCH");
    return s;
  }

  Result<TableRef> ParseTableRef() {
    const Token& t = Peek();
    if (t.IsSymbol("(")) return NotSupported(t, "a subquery in FROM");
    for (std::string_view word : {"LATERAL", "UNNEST", "TABLE"}) {
      if (t.Is(word)) return NotSupported(t, word);
    }
    TableRef ref;
    FLOE_ASSIGN_OR_RETURN(ref.name, TableName());
    FLOE_ASSIGN_OR_RETURN(ref.hints, OptionalHints());
    if (Check("FOR")) return NotSupported(Peek(), "FOR SYSTEM_TIME AS OF");
    if (Accept("AS")) {
      FLOE_ASSIGN_OR_RETURN(ref.alias, SimpleName());
    } else if (IsName(Peek())) {
      ref.alias = Peek().value;
      ++i_;
    }
    if (ref.alias && CheckSym("(")) return NotSupported(Peek(), "column aliases on a table");
    return ref;
  }

  /// Zero or more hint tokens, each parsed as a hint list of its own.
  Result<std::vector<Hint>> OptionalHints() {
    std::vector<Hint> out;
    while (Peek().kind == TokenKind::kHint) {
      const Token& h = Peek();
      ++i_;
      // The body starts 3 characters after "/*+", on the same line.
      Pos body{h.pos.line, h.pos.column + 3};
      auto toks = Tokenize(h.value, LexOptions{body, false});
      if (!toks) return Fail(toks.error());
      Parser sub(h.value, std::move(*toks));
      auto hints = sub.HintsEof();
      if (!hints) return Fail(hints.error());
      for (auto& x : *hints) out.push_back(std::move(x));
    }
    return out;
  }

  // ---- expressions -------------------------------------------------------

 public:
  Result<Expr> ParseExpr() { return ParseChain(Op::kOr); }

 private:
  FLOE_NOINLINE static Expr Binary(Op op, Expr l, Expr r) {
    Expr e;
    e.kind = ExprKind::kBinary;
    e.op = op;
    e.span = {l.span.begin, r.span.end};
    e.args.push_back(std::move(l));
    e.args.push_back(std::move(r));
    return e;
  }

  /// An OR (or AND) chain as one n-ary node: `a OR b OR c` has three
  /// arguments, so a chain of any length nests one level only.
  FLOE_NOINLINE Result<Expr> ParseChain(Op op) {
    Result<Expr> first = op == Op::kOr ? ParseChain(Op::kAnd) : ParseNot();
    if (!first || !Check(op == Op::kOr ? "OR" : "AND")) return first;
    return ChainRest(op, std::move(*first));
  }

  FLOE_NOINLINE Result<Expr> ChainRest(Op op, Expr first) {
    std::string_view word = op == Op::kOr ? "OR" : "AND";
    Expr e;
    e.kind = ExprKind::kBinary;
    e.op = op;
    e.span.begin = first.span.begin;
    e.args.push_back(std::move(first));
    while (Accept(word)) {
      FLOE_ASSIGN_OR_RETURN(Expr term, op == Op::kOr ? ParseChain(Op::kAnd) : ParseNot());
      e.args.push_back(std::move(term));
    }
    e.span.end = e.args.back().span.end;
    return e;
  }

  FLOE_NOINLINE Result<Expr> ParseNot() {
    if (!Check("NOT")) return ParsePredicate();
    return NotRest();
  }

  FLOE_NOINLINE Result<Expr> NotRest() {
    const Token& t = Peek();
    ++i_;  // NOT
    FLOE_RETURN_IF_ERROR(Enter(t));
    FLOE_ASSIGN_OR_RETURN(Expr operand, ParseNot());
    --depth_;
    Expr e;
    e.kind = ExprKind::kUnary;
    e.op = Op::kNot;
    e.span = {t.pos, operand.span.end};
    e.args.push_back(std::move(operand));
    return e;
  }

  // The recursive path (parentheses, casts, calls, unary operators) goes
  // through small frames: the cold branches live in functions of their own
  // (noinline), so that kMaxSqlDepth levels fit a small thread stack.
  FLOE_NOINLINE Result<Expr> ParsePredicate() {
    Result<Expr> left = ParseAdditive();
    if (!left) return left;
    return PredicateLoop(std::move(*left));
  }

  /// Comparisons and IS / IN / BETWEEN / LIKE after an operand.
  FLOE_NOINLINE Result<Expr> PredicateLoop(Expr left) {
    ChainGuard guard(this);
    while (true) {
      static constexpr std::pair<std::string_view, Op> kCompare[] = {
          {"=", Op::kEq},  {"<>", Op::kNe}, {"!=", Op::kNe}, {"<", Op::kLt},
          {"<=", Op::kLe}, {">", Op::kGt},  {">=", Op::kGe},
      };
      bool matched = false;
      for (auto [sym, op] : kCompare) {
        if (CheckSym(sym)) {
          FLOE_RETURN_IF_ERROR(EnterChain(Peek()));
          ++i_;
          FLOE_ASSIGN_OR_RETURN(Expr right, ParseAdditive());
          left = Binary(op, std::move(left), std::move(right));
          matched = true;
          break;
        }
      }
      if (matched) continue;
      if (Accept("IS")) {
        bool is_not = Accept("NOT");
        Op op;
        const Token& w = Peek();
        if (Accept("NULL")) {
          op = is_not ? Op::kIsNotNull : Op::kIsNull;
        } else if (Accept("TRUE")) {
          op = is_not ? Op::kIsNotTrue : Op::kIsTrue;
        } else if (Accept("FALSE")) {
          op = is_not ? Op::kIsNotFalse : Op::kIsFalse;
        } else if (Accept("UNKNOWN")) {
          op = is_not ? Op::kIsNotUnknown : Op::kIsUnknown;
        } else if (Accept("DISTINCT")) {
          FLOE_RETURN_IF_ERROR(Expect("FROM"));
          FLOE_RETURN_IF_ERROR(EnterChain(w));
          FLOE_ASSIGN_OR_RETURN(Expr right, ParseAdditive());
          left = Binary(is_not ? Op::kIsNotDistinctFrom : Op::kIsDistinctFrom, std::move(left),
                        std::move(right));
          continue;
        } else {
          return SyntaxError();
        }
        Expr e;
        e.kind = ExprKind::kIs;
        e.op = op;
        e.span = {left.span.begin, w.end};
        e.args.push_back(std::move(left));
        left = std::move(e);
        continue;
      }
      bool negated = false;
      if (Check("NOT") && (Peek(1).Is("IN") || Peek(1).Is("BETWEEN") || Peek(1).Is("LIKE"))) {
        ++i_;
        negated = true;
      }
      if (Accept("IN")) {
        Expr e;
        e.kind = ExprKind::kIn;
        e.negated = negated;
        FLOE_RETURN_IF_ERROR(ExpectSym("("));
        if (Check("SELECT")) return NotSupported(Peek(), "IN (subquery)");
        e.args.push_back(std::move(left));
        do {
          FLOE_ASSIGN_OR_RETURN(Expr item, ParseExpr());
          e.args.push_back(std::move(item));
        } while (AcceptSym(","));
        const Token& close = Peek();
        FLOE_RETURN_IF_ERROR(ExpectSym(")"));
        e.span = {e.args[0].span.begin, close.end};
        left = std::move(e);
        continue;
      }
      if (Accept("BETWEEN")) {
        Expr e;
        e.kind = ExprKind::kBetween;
        e.negated = negated;
        if (Check("SYMMETRIC")) return NotSupported(Peek(), "BETWEEN SYMMETRIC");
        (void)Accept("ASYMMETRIC");  // the default
        FLOE_ASSIGN_OR_RETURN(Expr low, ParseAdditive());
        FLOE_RETURN_IF_ERROR(Expect("AND"));
        FLOE_ASSIGN_OR_RETURN(Expr high, ParseAdditive());
        e.span = {left.span.begin, high.span.end};
        e.args.push_back(std::move(left));
        e.args.push_back(std::move(low));
        e.args.push_back(std::move(high));
        left = std::move(e);
        continue;
      }
      if (Accept("LIKE")) {
        Expr e;
        e.kind = ExprKind::kLike;
        e.negated = negated;
        FLOE_ASSIGN_OR_RETURN(Expr pattern, ParseAdditive());
        e.span = {left.span.begin, pattern.span.end};
        e.args.push_back(std::move(left));
        e.args.push_back(std::move(pattern));
        if (Accept("ESCAPE")) {
          FLOE_ASSIGN_OR_RETURN(Expr esc, ParseAdditive());
          e.span.end = esc.span.end;
          e.args.push_back(std::move(esc));
        }
        left = std::move(e);
        continue;
      }
      if (negated) return SyntaxError();
      return left;
    }
  }

  FLOE_NOINLINE Result<Expr> ParseAdditive() {
    Result<Expr> left = ParseMultiplicative();
    if (!left || !(CheckSym("+") || CheckSym("-"))) return left;
    return AdditiveLoop(std::move(*left));
  }

  FLOE_NOINLINE Result<Expr> AdditiveLoop(Expr left) {
    ChainGuard guard(this);
    while (true) {
      const Token& t = Peek();
      Op op = AcceptSym("+") ? Op::kAdd : AcceptSym("-") ? Op::kSub : Op::kNone;
      if (op == Op::kNone) return left;
      FLOE_RETURN_IF_ERROR(EnterChain(t));
      FLOE_ASSIGN_OR_RETURN(Expr right, ParseMultiplicative());
      left = Binary(op, std::move(left), std::move(right));
    }
  }

  /// * / % and || (Calcite gives || the precedence of * and /).
  FLOE_NOINLINE Result<Expr> ParseMultiplicative() {
    Result<Expr> left = ParseUnary();
    if (!left || !(CheckSym("*") || CheckSym("/") || CheckSym("%") || CheckSym("||"))) return left;
    return MultiplicativeLoop(std::move(*left));
  }

  FLOE_NOINLINE Result<Expr> MultiplicativeLoop(Expr left) {
    ChainGuard guard(this);
    while (true) {
      const Token& t = Peek();
      Op op = AcceptSym("*")    ? Op::kMul
              : AcceptSym("/")  ? Op::kDiv
              : AcceptSym("%")  ? Op::kMod
              : AcceptSym("||") ? Op::kConcat
                                : Op::kNone;
      if (op == Op::kNone) return left;
      FLOE_RETURN_IF_ERROR(EnterChain(t));
      FLOE_ASSIGN_OR_RETURN(Expr right, ParseUnary());
      left = Binary(op, std::move(left), std::move(right));
    }
  }

  FLOE_NOINLINE Result<Expr> ParseUnary() {
    if (!(CheckSym("-") || CheckSym("+"))) return ParsePrimary();
    return UnaryRest();
  }

  FLOE_NOINLINE Result<Expr> UnaryRest() {
    const Token& t = Peek();
    Op op = AcceptSym("-") ? Op::kNeg : AcceptSym("+") ? Op::kPlus : Op::kNone;
    FLOE_RETURN_IF_ERROR(Enter(t));
    FLOE_ASSIGN_OR_RETURN(Expr operand, ParseUnary());
    --depth_;
    Expr e;
    e.kind = ExprKind::kUnary;
    e.op = op;
    e.span = {t.pos, operand.span.end};
    e.args.push_back(std::move(operand));
    return e;
  }

  static Expr Literal(LiteralKind kind, std::string value, const Token& t) {
    Expr e;
    e.kind = ExprKind::kLiteral;
    e.literal = kind;
    e.value = std::move(value);
    e.span = {t.pos, t.end};
    return e;
  }

  FLOE_NOINLINE Result<Expr> ParsePrimary() {
    const Token& t = Peek();
    if (!CheckSym("(")) return ParsePrimaryOther();
    ++i_;
    if (Check("SELECT") || Check("VALUES") || Check("WITH")) {
      return NotSupported(Peek(), "a subquery in an expression");
    }
    FLOE_RETURN_IF_ERROR(Enter(t));
    Result<Expr> inner = ParseExpr();
    if (!inner) return inner;
    if (CheckSym(",")) return NotSupported(Peek(), "a row constructor");
    const Token& close = Peek();
    FLOE_RETURN_IF_ERROR(ExpectSym(")"));
    --depth_;
    // The parentheses are not a node: precedence is in the tree's shape.
    // Widen the span so "From ... to ..." covers what the user wrote.
    inner->span = {t.pos, close.end};
    return inner;
  }

  FLOE_NOINLINE Result<Expr> ParsePrimaryOther() {
    const Token& t = Peek();
    switch (t.kind) {
      case TokenKind::kInteger: ++i_; return Literal(LiteralKind::kInteger, t.value, t);
      case TokenKind::kDecimal: ++i_; return Literal(LiteralKind::kDecimal, t.value, t);
      case TokenKind::kApprox: ++i_; return Literal(LiteralKind::kApprox, t.value, t);
      case TokenKind::kString: ++i_; return Literal(LiteralKind::kString, t.value, t);
      case TokenKind::kBinaryString: ++i_; return Literal(LiteralKind::kBinary, t.value, t);
      default: break;
    }
    if (Accept("NULL")) return Literal(LiteralKind::kNull, "", t);
    if (Accept("TRUE")) return Literal(LiteralKind::kBoolean, "TRUE", t);
    if (Accept("FALSE")) return Literal(LiteralKind::kBoolean, "FALSE", t);
    static constexpr std::pair<std::string_view, LiteralKind> kTyped[] = {
        {"DATE", LiteralKind::kDate},
        {"TIME", LiteralKind::kTime},
        {"TIMESTAMP", LiteralKind::kTimestamp},
    };
    for (auto [word, kind] : kTyped) {
      if (Accept(word)) {
        const Token& s = Peek();
        if (s.kind != TokenKind::kString) {
          Note("<QUOTED_STRING>");
          return SyntaxError();
        }
        ++i_;
        Expr e = Literal(kind, s.value, t);
        e.span.end = s.end;
        return e;
      }
    }
    if (Accept("INTERVAL")) return ParseInterval(t);
    if (Check("CAST") || Check("TRY_CAST")) return ParseCast(t);
    if (Accept("CASE")) return ParseCase(t);
    if (Check("EXISTS")) return NotSupported(t, "EXISTS (subquery)");
    if (IsName(t) || t.kind == TokenKind::kQuotedIdentifier) {
      Expr e;
      e.kind = ExprKind::kColumn;
      e.span = {t.pos, t.end};
      e.names.push_back(t.value);
      ++i_;
      while (CheckSym(".")) {
        const Token& n = Peek(1);
        if (n.IsSymbol("*")) {
          i_ += 2;
          e.kind = ExprKind::kStar;
          e.span.end = n.end;
          return e;
        }
        ++i_;
        FLOE_ASSIGN_OR_RETURN(std::string part, SimpleName());
        e.names.push_back(std::move(part));
        e.span.end = tokens_[i_ - 1].end;
      }
      if (e.names.size() > 4) {
        return InvalidArgument(
            "From {} to {}: a column is named [[[catalog.]database.]table.]column",
            PosText(e.span.begin), PosText(e.span.end));
      }
      if (CheckSym("(")) return ParseCall(std::move(e));
      Note("(");
      return e;
    }
    NoteExpressionStarts();
    return SyntaxError();
  }

  void NoteExpressionStarts() {
    for (std::string_view s : {"(",
                               "+",
                               "-",
                               "CASE",
                               "CAST",
                               "DATE",
                               "EXISTS",
                               "FALSE",
                               "INTERVAL",
                               "NOT",
                               "NULL",
                               "TIME",
                               "TIMESTAMP",
                               "TRUE",
                               "TRY_CAST",
                               "<APPROX_NUMERIC_LITERAL>",
                               "<BACK_QUOTED_IDENTIFIER>",
                               "<BINARY_STRING_LITERAL>",
                               "<DECIMAL_NUMERIC_LITERAL>",
                               "<IDENTIFIER>",
                               "<QUOTED_STRING>",
                               "<UNSIGNED_INTEGER_LITERAL>"}) {
      Note(s);
    }
  }

  FLOE_NOINLINE Result<Expr> ParseCall(Expr name) {
    const Token& open = Peek();
    FLOE_RETURN_IF_ERROR(Enter(open));
    ++i_;  // (
    Expr e;
    e.kind = ExprKind::kCall;
    e.names = std::move(name.names);
    e.span.begin = name.span.begin;
    const std::string fname = e.names.size() == 1 ? ToUpper(e.names[0]) : "";
    if (Accept("DISTINCT")) {
      e.distinct = true;
    } else if (fname == "TRIM" || fname == "SUBSTRING" || fname == "POSITION" ||
               fname == "EXTRACT") {
      FLOE_ASSIGN_OR_RETURN(bool done, ParseKeywordCall(fname, &e));
      if (done) {
        const Token& close = Peek();
        FLOE_RETURN_IF_ERROR(ExpectSym(")"));
        --depth_;
        e.span.end = close.end;
        return e;
      }
    } else {
      (void)Accept("ALL");
    }
    if (!CheckSym(")")) {
      do {
        const Token& a = Peek();
        if (a.IsSymbol("*")) {
          ++i_;
          Expr star;
          star.kind = ExprKind::kStar;
          star.span = {a.pos, a.end};
          e.args.push_back(std::move(star));
        } else {
          FLOE_ASSIGN_OR_RETURN(Expr arg, ParseExpr());
          e.args.push_back(std::move(arg));
        }
      } while (AcceptSym(","));
    }
    const Token& close = Peek();
    FLOE_RETURN_IF_ERROR(ExpectSym(")"));
    --depth_;
    e.span.end = close.end;
    if (Check("OVER")) return NotSupported(Peek(), "OVER (window aggregation)");
    return e;
  }

  /// The keyword forms of SUBSTRING(s FROM i [FOR n]), POSITION(a IN b),
  /// TRIM([BOTH|LEADING|TRAILING] [chars] FROM s) and EXTRACT(unit FROM x),
  /// after the '('. False (nothing consumed) when the call is written with
  /// commas.
  Result<bool> ParseKeywordCall(const std::string& fname, Expr* e) {
    const size_t start = i_;
    if (fname == "EXTRACT") {
      // The unit is a bare word (printed back unquoted).
      if (Peek().kind != TokenKind::kIdentifier || IsReserved(Peek().value) || !Peek(1).Is("FROM"))
        return false;
      e->keyword = ToUpper(Peek().value);
      i_ += 2;
      FLOE_ASSIGN_OR_RETURN(Expr x, ParseExpr());
      e->args.push_back(std::move(x));
      return true;
    }
    if (fname == "TRIM") {
      std::string mode;
      for (std::string_view m : {"BOTH", "LEADING", "TRAILING"}) {
        if (Accept(m)) {
          mode = std::string(m);
          break;
        }
      }
      if (Accept("FROM")) {  // TRIM(BOTH FROM s)
        FLOE_ASSIGN_OR_RETURN(Expr s, ParseExpr());
        e->keyword = mode.empty() ? "BOTH" : mode;
        e->args.push_back(std::move(s));
        return true;
      }
      FLOE_ASSIGN_OR_RETURN(Expr first, ParseExpr());
      if (Accept("FROM")) {
        FLOE_ASSIGN_OR_RETURN(Expr s, ParseExpr());
        e->keyword = mode.empty() ? "BOTH" : mode;
        e->args.push_back(std::move(first));
        e->args.push_back(std::move(s));
        return true;
      }
      if (!mode.empty()) {
        Note("FROM");
        return SyntaxError();
      }
      i_ = start;
      return false;
    }
    if (fname == "POSITION") {
      // The operand is parsed without predicates, whose IN would take the keyword.
      FLOE_ASSIGN_OR_RETURN(Expr a, ParseAdditive());
      if (!Accept("IN")) {
        i_ = start;
        return false;
      }
      FLOE_ASSIGN_OR_RETURN(Expr b, ParseAdditive());
      e->keyword = "IN";
      e->args.push_back(std::move(a));
      e->args.push_back(std::move(b));
      return true;
    }
    // SUBSTRING
    FLOE_ASSIGN_OR_RETURN(Expr s, ParseExpr());
    if (!Accept("FROM")) {
      i_ = start;
      return false;
    }
    FLOE_ASSIGN_OR_RETURN(Expr from, ParseExpr());
    e->keyword = "FROM";
    e->args.push_back(std::move(s));
    e->args.push_back(std::move(from));
    if (Accept("FOR")) {
      FLOE_ASSIGN_OR_RETURN(Expr len, ParseExpr());
      e->args.push_back(std::move(len));
    }
    return true;
  }

  /// CAST(x AS type) / TRY_CAST(x AS type)
  FLOE_NOINLINE Result<Expr> ParseCast(const Token& t) {
    bool try_cast = t.Is("TRY_CAST");
    ++i_;
    FLOE_RETURN_IF_ERROR(Enter(t));
    FLOE_RETURN_IF_ERROR(ExpectSym("("));
    FLOE_ASSIGN_OR_RETURN(Expr operand, ParseExpr());
    FLOE_RETURN_IF_ERROR(Expect("AS"));
    FLOE_ASSIGN_OR_RETURN(DataType type, ParseType());
    const Token& close = Peek();
    FLOE_RETURN_IF_ERROR(ExpectSym(")"));
    --depth_;
    Expr e;
    e.kind = ExprKind::kCast;
    e.try_cast = try_cast;
    e.span = {t.pos, close.end};
    e.args.push_back(std::move(operand));
    e.cast_type = std::move(type);
    return e;
  }

  /// CASE [operand] WHEN a THEN b ... [ELSE c] END
  FLOE_NOINLINE Result<Expr> ParseCase(const Token& start) {
    FLOE_RETURN_IF_ERROR(Enter(start));
    Expr e;
    e.kind = ExprKind::kCase;
    if (!Check("WHEN")) {
      e.has_operand = true;
      FLOE_ASSIGN_OR_RETURN(Expr operand, ParseExpr());
      e.args.push_back(std::move(operand));
    }
    FLOE_RETURN_IF_ERROR(Expect("WHEN"));
    do {
      FLOE_ASSIGN_OR_RETURN(Expr when, ParseExpr());
      FLOE_RETURN_IF_ERROR(Expect("THEN"));
      FLOE_ASSIGN_OR_RETURN(Expr then, ParseExpr());
      e.args.push_back(std::move(when));
      e.args.push_back(std::move(then));
    } while (Accept("WHEN"));
    if (Accept("ELSE")) {
      e.has_else = true;
      FLOE_ASSIGN_OR_RETURN(Expr other, ParseExpr());
      e.args.push_back(std::move(other));
    }
    const Token& end = Peek();
    FLOE_RETURN_IF_ERROR(Expect("END"));
    --depth_;
    e.span = {start.pos, end.end};
    return e;
  }

  /// INTERVAL [-|+]'value' unit [TO unit], unit one of YEAR MONTH DAY HOUR
  /// MINUTE SECOND (Flink also takes the plural forms and prints the singular).
  Result<Expr> ParseInterval(const Token& start) {
    bool negative = false;
    if (AcceptSym("-")) {
      negative = true;
    } else {
      (void)AcceptSym("+");
    }
    const Token& s = Peek();
    if (s.kind != TokenKind::kString) {
      Note("<QUOTED_STRING>");
      return SyntaxError();
    }
    ++i_;
    FLOE_ASSIGN_OR_RETURN(std::string unit, IntervalUnit());
    if (Accept("TO")) {
      FLOE_ASSIGN_OR_RETURN(std::string to, IntervalUnit());
      unit += " TO " + to;
    }
    Expr e = Literal(LiteralKind::kInterval, s.value, start);
    e.interval_negative = negative;
    e.interval_unit = std::move(unit);
    e.span.end = tokens_[i_ - 1].end;
    return e;
  }

  Result<std::string> IntervalUnit() {
    for (std::string_view u : {"YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND"}) {
      if (Accept(u)) return std::string(u);
      if (Peek().Is(fmt::format("{}S", u))) {
        ++i_;
        return std::string(u);
      }
    }
    return SyntaxError();
  }

  // ---- data types --------------------------------------------------------

 public:
  FLOE_NOINLINE Result<DataType> ParseType() {
    const Token& t = Peek();
    FLOE_RETURN_IF_ERROR(Enter(t));
    DataType d;
    d.pos = t.pos;
    FLOE_RETURN_IF_ERROR(ParseTypeName(d));
    if (Check("NOT") && Peek(1).Is("NULL")) {
      i_ += 2;
      d.nullable = false;
    } else if (Accept("NULL")) {
      d.nullable = true;
    } else {
      Note("NOT");
      Note("NULL");
    }
    --depth_;
    return d;
  }

 private:
  FLOE_NOINLINE Status ParseTypeName(DataType& d) {
    const Token& t = Peek();
    struct Simple {
      std::string_view word;
      TypeName name;
    };
    static constexpr Simple kSimple[] = {
        {"BOOLEAN", TypeName::kBoolean},   {"TINYINT", TypeName::kTinyInt},
        {"SMALLINT", TypeName::kSmallInt}, {"INT", TypeName::kInt},
        {"INTEGER", TypeName::kInt},       {"BIGINT", TypeName::kBigInt},
        {"FLOAT", TypeName::kFloat},       {"STRING", TypeName::kString},
        {"BYTES", TypeName::kBytes},       {"DATE", TypeName::kDate},
    };
    for (const Simple& s : kSimple) {
      if (Accept(s.word)) {
        d.name = s.name;
        return Ok();
      }
    }
    if (Accept("DOUBLE")) {
      d.name = TypeName::kDouble;
      (void)Accept("PRECISION");
      return Ok();
    }
    if (Accept("DECIMAL") || Accept("DEC") || Accept("NUMERIC")) {
      d.name = TypeName::kDecimal;
      if (AcceptSym("(")) {
        FLOE_ASSIGN_OR_RETURN(d.precision, TypeInt());
        if (AcceptSym(",")) {
          FLOE_ASSIGN_OR_RETURN(d.scale, TypeInt());
        }
        FLOE_RETURN_IF_ERROR(ExpectSym(")"));
      }
      int32_t p = d.precision.value_or(10), s = d.scale.value_or(0);
      if (p < 1 || p > 38) {
        return TypeError(t, "Decimal precision must be between 1 and 38 (both inclusive).");
      }
      if (s < 0 || s > p) {
        return TypeError(
            t, fmt::format("Decimal scale must be between 0 and the precision {} (both inclusive).",
                           p));
      }
      return Ok();
    }
    struct Sized {
      std::string_view word;
      TypeName name;
      std::string_view what;
    };
    static constexpr Sized kSized[] = {
        {"CHAR", TypeName::kChar, "Character string length"},
        {"VARCHAR", TypeName::kVarChar, "Variable character string length"},
        {"BINARY", TypeName::kBinary, "Binary string length"},
        {"VARBINARY", TypeName::kVarBinary, "Variable binary string length"},
    };
    for (const Sized& s : kSized) {
      if (Accept(s.word)) {
        d.name = s.name;
        FLOE_ASSIGN_OR_RETURN(d.precision, OptionalTypeParam());
        if (d.precision && *d.precision < 1) {
          return TypeError(t, fmt::format("{} must be between 1 and {} (both inclusive).", s.what,
                                          kMaxVarLength));
        }
        return Ok();
      }
    }
    if (Accept("TIME")) {
      d.name = TypeName::kTime;
      FLOE_ASSIGN_OR_RETURN(d.precision, OptionalTypeParam());
      if (d.precision && *d.precision > 9) {
        return TypeError(t, "Time precision must be between 0 and 9 (both inclusive).");
      }
      if (Check("WITHOUT") && Peek(1).Is("TIME") && Peek(2).Is("ZONE")) i_ += 3;
      if (Check("WITH")) return NotSupported(Peek(), "TIME WITH TIME ZONE");
      return Ok();
    }
    if (Accept("TIMESTAMP")) {
      d.name = TypeName::kTimestamp;
      FLOE_ASSIGN_OR_RETURN(d.precision, OptionalTypeParam());
      if (d.precision && *d.precision > 9) {
        return TypeError(t, "Timestamp precision must be between 0 and 9 (both inclusive).");
      }
      if (Check("WITHOUT") && Peek(1).Is("TIME") && Peek(2).Is("ZONE")) {
        i_ += 3;
      } else if (Check("WITH")) {
        if (Peek(1).Is("LOCAL") && Peek(2).Is("TIME") && Peek(3).Is("ZONE")) {
          i_ += 4;
          d.name = TypeName::kTimestampLtz;
        } else {
          return NotSupported(Peek(), "TIMESTAMP WITH TIME ZONE (use TIMESTAMP_LTZ)");
        }
      } else {
        Note("WITH");
        Note("WITHOUT");
      }
      return Ok();
    }
    if (Accept("TIMESTAMP_LTZ")) {
      d.name = TypeName::kTimestampLtz;
      FLOE_ASSIGN_OR_RETURN(d.precision, OptionalTypeParam());
      if (d.precision && *d.precision > 9) {
        return TypeError(
            t,
            "Timestamp with local time zone precision must be between 0 and 9 (both inclusive).");
      }
      return Ok();
    }
    if (Accept("ARRAY") || Accept("MULTISET")) {
      d.name = t.Is("ARRAY") ? TypeName::kArray : TypeName::kMultiset;
      FLOE_RETURN_IF_ERROR(ExpectSym("<"));
      FLOE_ASSIGN_OR_RETURN(DataType e, ParseType());
      d.elements.push_back(std::move(e));
      return ExpectSym(">");
    }
    if (Accept("MAP")) {
      d.name = TypeName::kMap;
      FLOE_RETURN_IF_ERROR(ExpectSym("<"));
      FLOE_ASSIGN_OR_RETURN(DataType k, ParseType());
      FLOE_RETURN_IF_ERROR(ExpectSym(","));
      FLOE_ASSIGN_OR_RETURN(DataType v, ParseType());
      d.elements.push_back(std::move(k));
      d.elements.push_back(std::move(v));
      return ExpectSym(">");
    }
    if (Accept("ROW")) {
      d.name = TypeName::kRow;
      std::string_view close;
      if (AcceptSym("<>")) return Ok();  // ROW<> lexes as the operator <>
      if (AcceptSym("<")) {
        close = ">";
      } else if (AcceptSym("(")) {
        close = ")";
      } else {
        return SyntaxError();
      }
      if (!CheckSym(close)) {
        do {
          RowField f;
          f.pos = Peek().pos;
          FLOE_ASSIGN_OR_RETURN(f.name, SimpleName());
          FLOE_ASSIGN_OR_RETURN(f.type, ParseType());
          if (Peek().kind == TokenKind::kString) {
            f.description = Peek().value;
            ++i_;
          }
          d.fields.push_back(std::move(f));
        } while (AcceptSym(","));
      }
      return ExpectSym(close);
    }
    for (std::string_view s :
         {"ARRAY",         "BIGINT",  "BINARY",    "BOOLEAN",  "BYTES",  "CHAR",    "DATE",
          "DEC",           "DECIMAL", "DOUBLE",    "FLOAT",    "INT",    "INTEGER", "MAP",
          "MULTISET",      "NUMERIC", "ROW",       "SMALLINT", "STRING", "TIME",    "TIMESTAMP",
          "TIMESTAMP_LTZ", "TINYINT", "VARBINARY", "VARCHAR"}) {
      Note(s);
    }
    return SyntaxError();
  }

  std::unexpected<Error> TypeError(const Token& t, std::string_view msg) const {
    return InvalidArgument("From {} to {}: {}", PosText(t.pos), PosText(tokens_[i_ - 1].end), msg);
  }

  Result<std::optional<int32_t>> OptionalTypeParam() {
    if (!AcceptSym("(")) return std::optional<int32_t>();
    FLOE_ASSIGN_OR_RETURN(int32_t v, TypeInt());
    FLOE_RETURN_IF_ERROR(ExpectSym(")"));
    return std::optional<int32_t>(v);
  }

  Result<int32_t> TypeInt() {
    const Token& t = Peek();
    if (t.kind != TokenKind::kInteger) {
      Note("<UNSIGNED_INTEGER_LITERAL>");
      return SyntaxError();
    }
    int32_t v = 0;
    auto [p, ec] = std::from_chars(t.value.data(), t.value.data() + t.value.size(), v);
    if (ec != std::errc() || p != t.value.data() + t.value.size()) {
      return InvalidArgument("From {} to {}: {} is out of range for a type parameter",
                             PosText(t.pos), PosText(t.end), t.value);
    }
    ++i_;
    return v;
  }

  // ---- names and literals ------------------------------------------------

  static bool IsName(const Token& t) {
    return (t.kind == TokenKind::kIdentifier && !IsReserved(t.value)) ||
           t.kind == TokenKind::kQuotedIdentifier;
  }

  Result<std::string> SimpleName() {
    const Token& t = Peek();
    if (IsName(t)) {
      ++i_;
      return t.value;
    }
    Note("<IDENTIFIER>");
    Note("<BACK_QUOTED_IDENTIFIER>");
    return SyntaxError();
  }

  Result<Identifier> SimpleIdentifier() {
    Identifier id;
    id.pos = Peek().pos;
    FLOE_ASSIGN_OR_RETURN(std::string n, SimpleName());
    id.parts.push_back(std::move(n));
    return id;
  }

  /// name [. name]*, at most `max_parts` parts.
  Result<Identifier> CompoundName(size_t max_parts, std::string_view rule) {
    Identifier id;
    id.pos = Peek().pos;
    do {
      FLOE_ASSIGN_OR_RETURN(std::string n, SimpleName());
      id.parts.push_back(std::move(n));
    } while (AcceptSym("."));
    if (id.parts.size() > max_parts) {
      return InvalidArgument("From {} to {}: '{}' has {} parts; {}", PosText(id.pos),
                             PosText(tokens_[i_ - 1].end), id.ToString(), id.parts.size(), rule);
    }
    return id;
  }

  Result<Identifier> TableName() {
    return CompoundName(3, "a table is named [[catalog.]database.]table");
  }

  Result<std::string> StringLiteral() {
    const Token& t = Peek();
    if (t.kind == TokenKind::kString) {
      ++i_;
      return t.value;
    }
    Note("<QUOTED_STRING>");
    return SyntaxError();
  }

  Result<Property> ParseProperty() {
    Property p;
    p.pos = Peek().pos;
    FLOE_ASSIGN_OR_RETURN(p.key, StringLiteral());
    FLOE_RETURN_IF_ERROR(ExpectSym("="));
    FLOE_ASSIGN_OR_RETURN(p.value, StringLiteral());
    return p;
  }

  /// ( 'k' = 'v' [, ...] ), possibly empty.
  Result<Properties> PropertyList() {
    FLOE_RETURN_IF_ERROR(ExpectSym("("));
    Properties out;
    if (!CheckSym(")")) {
      do {
        FLOE_ASSIGN_OR_RETURN(Property p, ParseProperty());
        out.push_back(std::move(p));
      } while (AcceptSym(","));
    }
    FLOE_RETURN_IF_ERROR(ExpectSym(")"));
    return out;
  }

  // ---- token checks and errors -------------------------------------------

  const Token& Peek(size_t k = 0) const {
    size_t at = std::min(i_ + k, tokens_.size() - 1);
    return tokens_[at];
  }

  /// Records that `item` could have come at the current token. Items are
  /// kept as views of string literals and formatted only for an error: this
  /// runs for every alternative tried at every token.
  void Note(std::string_view item, bool quote = false) {
    if (!expected_at_ || i_ > *expected_at_) {
      expected_.clear();
      expected_at_ = i_;
    }
    if (i_ == *expected_at_) expected_.emplace_back(item, quote);
  }

  bool Check(std::string_view keyword) {
    if (Peek().Is(keyword)) return true;
    Note(keyword, true);
    return false;
  }
  bool Accept(std::string_view keyword) {
    if (!Check(keyword)) return false;
    ++i_;
    return true;
  }
  Status Expect(std::string_view keyword) {
    if (Accept(keyword)) return Ok();
    return SyntaxError();
  }
  bool CheckSym(std::string_view symbol) {
    if (Peek().IsSymbol(symbol)) return true;
    Note(symbol, true);
    return false;
  }
  bool AcceptSym(std::string_view symbol) {
    if (!CheckSym(symbol)) return false;
    ++i_;
    return true;
  }
  Status ExpectSym(std::string_view symbol) {
    if (AcceptSym(symbol)) return Ok();
    return SyntaxError();
  }
  Status ExpectEof() {
    if (Peek().kind == TokenKind::kEof) return Ok();
    Note("<EOF>");
    return SyntaxError();
  }

  /// A left-deep chain of binary operators (`a + b + c`) nests one level
  /// per operator in the tree: each operator counts as a level while the
  /// chain is parsed, and the guard gives the levels back when it ends.
  struct ChainGuard {
    explicit ChainGuard(Parser* p) : p(p), saved(p->depth_) {}
    ~ChainGuard() { p->depth_ = saved; }
    Parser* p;
    int saved;
  };
  Status EnterChain(const Token& t) { return Enter(t); }

  /// Opens one nesting level at `t`; the caller closes it with --depth_.
  Status Enter(const Token& t) {
    if (++depth_ > kMaxSqlDepth) {
      return InvalidArgument("SQL nested deeper than {} levels at {}", kMaxSqlDepth,
                             PosText(t.pos));
    }
    return Ok();
  }

  /// The source text of a token, as JavaCC's "Encountered" prints it.
  std::string Image(const Token& t) const {
    switch (t.kind) {
      case TokenKind::kEof: return "<EOF>";
      case TokenKind::kHint: return "/*+";
      default: return Escape(text_.substr(t.offset, t.end_offset - t.offset));
    }
  }

  /// Calcite's ParseException text at the current token.
  std::unexpected<Error> SyntaxError() const {
    const Token& t = Peek();
    std::string msg = fmt::format("Encountered \"{}\" at {}.", Image(t), PosText(t.pos));
    if (expected_at_ && *expected_at_ == i_ && !expected_.empty()) {
      std::set<std::string> unique;
      for (auto [item, quote] : expected_) {
        unique.insert(quote ? fmt::format("\"{}\"", item) : std::string(item));
      }
      std::vector<std::string> items(unique.begin(), unique.end());
      // <EOF> first, then the rest in sorted order.
      std::stable_partition(items.begin(), items.end(),
                            [](const std::string& s) { return s == "<EOF>"; });
      msg += items.size() == 1 ? "\nWas expecting:" : "\nWas expecting one of:";
      for (const std::string& item : items) {
        msg += "\n    " + item + (item == "<EOF>" ? " " : " ...");
      }
    }
    return InvalidArgument("{}", msg);
  }

  /// Valid Flink SQL that floe's subset leaves out.
  std::unexpected<Error> NotSupported(const Token& t, std::string_view what) const {
    return Unsupported(
        "From {} to {}: {} is not supported by floe's SQL (queries read one table: SELECT ... FROM "
        "t [WHERE ...] [LIMIT n])",
        PosText(t.pos), PosText(t.end), what);
  }

  std::string_view text_;
  std::vector<Token> tokens_;
  size_t i_ = 0;
  int depth_ = 0;
  std::vector<std::pair<std::string_view, bool>> expected_;  ///< item, quoted
  std::optional<size_t> expected_at_;
};

Result<Parser> MakeParser(std::string_view text, Pos start) {
  FLOE_ASSIGN_OR_RETURN(auto tokens, Tokenize(text, LexOptions{start, false}));
  return Parser(text, std::move(tokens));
}

}  // namespace

Result<Statement> ParseStatement(std::string_view text, Pos start) {
  FLOE_ASSIGN_OR_RETURN(Parser p, MakeParser(text, start));
  return p.StatementEof();
}

Result<DataType> ParseDataType(std::string_view text, Pos start) {
  FLOE_ASSIGN_OR_RETURN(Parser p, MakeParser(text, start));
  return p.TypeEof();
}

Result<Expr> ParseExpression(std::string_view text, Pos start) {
  FLOE_ASSIGN_OR_RETURN(Parser p, MakeParser(text, start));
  return p.ExprEof();
}

SplitResult SplitStatements(std::string_view script) {
  SplitResult out;
  // Lenient lexing never fails.
  std::vector<Token> tokens = Tokenize(script, LexOptions{Pos{}, true}).value();
  size_t first = 0;  // index of the current statement's first token
  bool in_set = false, inner_start = false;
  auto emit = [&](size_t end_offset) {
    const Token& f = tokens[first];
    out.statements.push_back(
        StatementSource{script.substr(f.offset, end_offset - f.offset), f.pos, f.offset});
  };
  for (size_t k = 0; k < tokens.size(); ++k) {
    const Token& t = tokens[k];
    if (t.kind == TokenKind::kEof) break;
    if (t.kind == TokenKind::kUnterminated) {
      out.rest_incomplete = true;
      continue;
    }
    if (k == first && !in_set) {
      auto word = [&](size_t j, std::string_view w) {
        return j < tokens.size() && tokens[j].Is(w);
      };
      if (word(k, "EXECUTE") && word(k + 1, "STATEMENT") && word(k + 2, "SET") &&
          word(k + 3, "BEGIN")) {
        in_set = inner_start = true;
        k += 3;
        continue;
      }
      if (word(k, "BEGIN") && word(k + 1, "STATEMENT") && word(k + 2, "SET")) {
        in_set = true;
        inner_start = false;
        k += 2;
        continue;
      }
    }
    if (in_set) {
      if (t.IsSymbol(";")) {
        inner_start = true;
      } else if (inner_start) {
        inner_start = false;
        if (t.Is("END")) in_set = false;
      }
      continue;
    }
    if (t.IsSymbol(";")) {
      if (k > first) emit(t.offset);
      first = k + 1;
    }
  }
  if (first < tokens.size() && tokens[first].kind != TokenKind::kEof) {
    const Token& f = tokens[first];
    out.rest = StatementSource{script.substr(f.offset), f.pos, f.offset};
    if (in_set) out.rest_incomplete = true;
  }
  return out;
}

Result<std::vector<Statement>> ParseScript(std::string_view text) {
  SplitResult split = SplitStatements(text);
  std::vector<Statement> out;
  auto parse = [&](const StatementSource& s) -> Status {
    FLOE_ASSIGN_OR_RETURN(Statement st, ParseStatement(s.text, s.pos));
    out.push_back(std::move(st));
    return Ok();
  };
  for (const StatementSource& s : split.statements) FLOE_RETURN_IF_ERROR(parse(s));
  if (split.rest) FLOE_RETURN_IF_ERROR(parse(*split.rest));
  return out;
}

}  // namespace floe::sql
