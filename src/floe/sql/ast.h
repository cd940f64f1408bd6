/// \file
/// The syntax tree of floe's Flink SQL subset: one struct per statement kind,
/// data types, expressions and queries. Every node keeps where it starts in
/// the source (expressions also where they end, for Calcite's "From line 1,
/// column 8 to line 1, column 15" messages). The tree is plain data: the
/// parser (parser.h) builds it, the printer (printer.h) turns it back into
/// SQL, and the engine resolves names, types and options later.
///
/// Nothing here is resolved: a table name is the 1-3 identifiers written, a
/// function call is a name and arguments, a type is what was spelled (with
/// its precision when one was written).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "floe/sql/lexer.h"

namespace floe::sql {

/// A start and an inclusive end position.
struct Span {
  Pos begin;
  Pos end;
  bool operator==(const Span&) const = default;
};

/// A possibly qualified name: `t`, `db.t`, `cat.db.t` (each part unquoted or
/// back-quoted in the source, kept as written).
struct Identifier {
  std::vector<std::string> parts;
  Pos pos;
  /// The parts joined by '.', unquoted ("c.db.t").
  std::string ToString() const;
  bool operator==(const Identifier&) const = default;
};

/// One `'key' = 'value'` of a WITH (...) list, SET, or an OPTIONS hint.
struct Property {
  std::string key;
  std::string value;
  Pos pos;
  bool operator==(const Property&) const = default;
};
using Properties = std::vector<Property>;

/// A table hint `/*+ NAME(...) */`. OPTIONS('k'='v', ...) fills `options`;
/// other hints keep their plain arguments in `args`.
struct Hint {
  std::string name;  ///< as written; compare case-insensitively
  Properties options;
  std::vector<std::string> args;
  Pos pos;
  bool operator==(const Hint&) const = default;
};

// ---------------------------------------------------------------------------
// Data types (Flink docs: "Data Types")

enum class TypeName : uint8_t {
  kBoolean,
  kTinyInt,
  kSmallInt,
  kInt,  ///< INT, INTEGER
  kBigInt,
  kFloat,
  kDouble,   ///< DOUBLE, DOUBLE PRECISION
  kDecimal,  ///< DECIMAL, DEC, NUMERIC
  kChar,
  kVarChar,
  kString,  ///< STRING = VARCHAR(2147483647)
  kBinary,
  kVarBinary,
  kBytes,  ///< BYTES = VARBINARY(2147483647)
  kDate,
  kTime,
  kTimestamp,     ///< TIMESTAMP [WITHOUT TIME ZONE]
  kTimestampLtz,  ///< TIMESTAMP_LTZ, TIMESTAMP WITH LOCAL TIME ZONE
  kArray,
  kMap,
  kMultiset,
  kRow,
};

/// Flink's largest VARCHAR / VARBINARY length, which STRING and BYTES stand for.
inline constexpr int32_t kMaxVarLength = 2147483647;

struct RowField;

/// A data type as written. `precision` holds the length of CHAR / VARCHAR /
/// BINARY / VARBINARY and the precision of DECIMAL / TIME / TIMESTAMP;
/// absent means the type's default (sql_types.h: EffectivePrecision).
struct DataType {
  TypeName name = TypeName::kInt;
  std::optional<int32_t> precision;
  std::optional<int32_t> scale;    ///< DECIMAL only
  bool nullable = true;            ///< false after NOT NULL
  std::vector<DataType> elements;  ///< ARRAY / MULTISET: [element]; MAP: [key, value]
  std::vector<RowField> fields;    ///< ROW
  Pos pos;
  bool operator==(const DataType&) const = default;
};

/// A field of ROW<name type ['description']>.
struct RowField {
  std::string name;
  DataType type;
  std::optional<std::string> description;
  Pos pos;
  bool operator==(const RowField&) const = default;
};

// ---------------------------------------------------------------------------
// Expressions

enum class ExprKind : uint8_t {
  kLiteral,
  kColumn,   ///< names: a / t.a / db.t.a / c.db.t.a
  kStar,     ///< `*` or `t.*` (names = the qualifier)
  kUnary,    ///< op: kNeg, kPlus, kNot; args: [operand]
  kBinary,   ///< op: arithmetic, ||, comparison: args [left, right]; AND / OR: args [2 or more]
  kIs,       ///< op: kIsNull ... kIsNotUnknown; args: [operand]
  kIn,       ///< negated; args: [operand, list...]
  kBetween,  ///< negated; args: [operand, low, high]
  kLike,     ///< negated; args: [operand, pattern] or [operand, pattern, escape]
  kCast,     ///< try_cast for TRY_CAST; args: [operand]; cast_type
  kCase,     ///< has_operand, has_else; args: [operand?] (when, then)* [else?]
  kCall,     ///< names = function name; args; distinct for f(DISTINCT x)
};

enum class Op : uint8_t {
  kNone,
  kNeg,
  kPlus,
  kNot,
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMod,
  kConcat,
  kEq,
  kNe,  ///< <> and !=
  kLt,
  kLe,
  kGt,
  kGe,
  kAnd,
  kOr,
  kIsNull,
  kIsNotNull,
  kIsTrue,
  kIsNotTrue,
  kIsFalse,
  kIsNotFalse,
  kIsUnknown,
  kIsNotUnknown,
  kIsDistinctFrom,     ///< kBinary: a IS DISTINCT FROM b
  kIsNotDistinctFrom,  ///< kBinary: a IS NOT DISTINCT FROM b
};

/// The SQL spelling of an operator ("+", "<>", "AND", "IS NOT NULL").
std::string_view OpText(Op op);

enum class LiteralKind : uint8_t {
  kNull,
  kBoolean,    ///< value "TRUE" / "FALSE"
  kInteger,    ///< value = the digits
  kDecimal,    ///< value = the digits with '.'
  kApprox,     ///< value = as written (1.5E3)
  kString,     ///< value = the contents
  kBinary,     ///< X'...'; value = the hex digits
  kDate,       ///< DATE '...'; value = the string
  kTime,       ///< TIME '...'
  kTimestamp,  ///< TIMESTAMP '...'
  kInterval,   ///< INTERVAL [-]'value' unit [TO unit]; value; interval_unit "SECOND" / "DAY TO
               ///< SECOND"
};

/// An expression. One struct for every kind keeps the tree plain data; the
/// fields a kind does not use stay empty.
struct Expr {
  ExprKind kind = ExprKind::kLiteral;
  Span span;
  Op op = Op::kNone;
  LiteralKind literal = LiteralKind::kNull;
  std::string value;               ///< literal value
  std::string interval_unit;       ///< kInterval literals
  bool interval_negative = false;  ///< INTERVAL -'1' DAY
  std::vector<std::string> names;  ///< column, star qualifier, function name
  std::vector<Expr> args;
  bool negated = false;      ///< NOT IN / NOT BETWEEN / NOT LIKE
  bool try_cast = false;     ///< TRY_CAST
  bool distinct = false;     ///< f(DISTINCT ...)
  /// kCall written with keywords: "FROM" for SUBSTRING(s FROM i [FOR n]),
  /// "IN" for POSITION(a IN b), "BOTH" / "LEADING" / "TRAILING" for
  /// TRIM([mode] [chars] FROM s) (args [chars, s], chars absent: [s]), and
  /// the unit for EXTRACT(unit FROM x) (args [x]).
  std::string keyword;
  bool has_operand = false;  ///< CASE x WHEN ...
  bool has_else = false;     ///< CASE ... ELSE
  std::optional<DataType> cast_type;
  bool operator==(const Expr&) const = default;
};

// ---------------------------------------------------------------------------
// Queries

/// `expr [AS alias]` in a SELECT list.
struct SelectItem {
  Expr expr;
  std::optional<std::string> alias;
  bool operator==(const SelectItem&) const = default;
};

/// `name [/*+ OPTIONS(...) */] [[AS] alias]` in FROM.
struct TableRef {
  Identifier name;
  std::vector<Hint> hints;
  std::optional<std::string> alias;
  bool operator==(const TableRef&) const = default;
};

/// SELECT items [FROM table] [WHERE ...] [LIMIT n]. DISTINCT, JOIN, GROUP BY,
/// HAVING, ORDER BY, set operations and subqueries are refused by the parser
/// with their position (kUnsupported).
struct Select {
  Pos pos;
  std::vector<Hint> hints;  ///< SELECT /*+ ... */ query hints
  std::vector<SelectItem> items;
  std::optional<TableRef> from;
  std::optional<Expr> where;
  std::optional<int64_t> limit;
  bool operator==(const Select&) const = default;
};

/// VALUES (row), (row), ...
struct Values {
  Pos pos;
  std::vector<std::vector<Expr>> rows;
  bool operator==(const Values&) const = default;
};

struct Query {
  std::variant<Select, Values> body;
  Pos pos() const;
  bool operator==(const Query&) const = default;
};

// ---------------------------------------------------------------------------
// Statements

struct CreateCatalog {
  Identifier name;
  Properties options;
  bool operator==(const CreateCatalog&) const = default;
};

struct UseCatalog {
  Identifier name;
  bool operator==(const UseCatalog&) const = default;
};

/// USE [catalog.]database
struct UseDatabase {
  Identifier name;
  bool operator==(const UseDatabase&) const = default;
};

struct CreateDatabase {
  bool if_not_exists = false;
  Identifier name;  ///< [catalog.]database
  std::optional<std::string> comment;
  Properties options;
  bool operator==(const CreateDatabase&) const = default;
};

/// DROP DATABASE [IF EXISTS] [catalog.]db [RESTRICT | CASCADE]
struct DropDatabase {
  bool if_exists = false;
  Identifier name;
  bool cascade = false;
  bool operator==(const DropDatabase&) const = default;
};

enum class ShowKind : uint8_t {
  kCatalogs,
  kDatabases,
  kTables,
  kJars,
  kCurrentCatalog,
  kCurrentDatabase,
};

/// SHOW CATALOGS | DATABASES | TABLES [FROM|IN db] | JARS | CURRENT CATALOG | CURRENT DATABASE
struct Show {
  ShowKind kind = ShowKind::kTables;
  std::optional<Identifier> from;  ///< SHOW TABLES FROM db
  bool operator==(const Show&) const = default;
};

struct ShowCreateTable {
  Identifier name;
  bool operator==(const ShowCreateTable&) const = default;
};

/// DESCRIBE t / DESC t
struct Describe {
  Identifier name;
  bool operator==(const Describe&) const = default;
};

/// SET; / SET 'key' = 'value';
struct Set {
  std::optional<Property> property;
  bool operator==(const Set&) const = default;
};

/// RESET; / RESET 'key';
struct Reset {
  std::optional<std::string> key;
  Pos key_pos;
  bool operator==(const Reset&) const = default;
};

/// A column of CREATE TABLE: physical (`type`), computed (`name AS expr`),
/// or metadata (`type METADATA [FROM 'key'] [VIRTUAL]`).
struct ColumnDef {
  std::string name;
  Pos pos;
  std::optional<DataType> type;  ///< physical and metadata columns
  std::optional<Expr> computed;  ///< computed columns
  bool metadata = false;
  std::optional<std::string> metadata_key;
  bool is_virtual = false;
  bool primary_key = false;  ///< column constraint PRIMARY KEY NOT ENFORCED
  std::optional<std::string> comment;
  bool operator==(const ColumnDef&) const = default;
};

/// [CONSTRAINT name] PRIMARY KEY (a, b) NOT ENFORCED
struct PrimaryKey {
  std::optional<std::string> name;
  std::vector<std::string> columns;
  Pos pos;
  bool operator==(const PrimaryKey&) const = default;
};

/// WATERMARK FOR rowtime AS expr
struct Watermark {
  std::string column;
  Expr expr;
  Pos pos;
  bool operator==(const Watermark&) const = default;
};

/// LIKE options: {INCLUDING|EXCLUDING} {ALL|CONSTRAINTS|PARTITIONS} and
/// {INCLUDING|EXCLUDING|OVERWRITING} {GENERATED|OPTIONS|WATERMARKS}
/// (Flink docs: CREATE TABLE, LIKE).
enum class LikeStrategy : uint8_t { kIncluding, kExcluding, kOverwriting };
enum class LikeFeature : uint8_t {
  kAll,
  kConstraints,
  kPartitions,
  kGenerated,
  kOptions,
  kWatermarks,
};
struct LikeOption {
  LikeStrategy strategy = LikeStrategy::kIncluding;
  LikeFeature feature = LikeFeature::kAll;
  Pos pos;
  bool operator==(const LikeOption&) const = default;
};
struct LikeClause {
  Identifier source;
  std::vector<LikeOption>
      options;  ///< as written; the default is INCLUDING ALL OVERWRITING OPTIONS
  bool operator==(const LikeClause&) const = default;
};

struct CreateTable {
  bool temporary = false;
  bool if_not_exists = false;
  Identifier name;
  std::vector<ColumnDef> columns;
  std::vector<Watermark> watermarks;
  std::optional<PrimaryKey> primary_key;  ///< table constraint
  std::optional<std::string> comment;
  std::vector<std::string> partitioned_by;
  Properties options;
  std::optional<LikeClause> like;
  bool operator==(const CreateTable&) const = default;
};

/// DROP [TEMPORARY] TABLE [IF EXISTS] t
struct DropTable {
  bool temporary = false;
  bool if_exists = false;
  Identifier name;
  bool operator==(const DropTable&) const = default;
};

/// ALTER TABLE t SET ('k' = 'v', ...)
struct AlterTableSet {
  Identifier name;
  Properties options;
  bool operator==(const AlterTableSet&) const = default;
};

/// ALTER TABLE t RESET ('k', ...)
struct AlterTableReset {
  Identifier name;
  std::vector<std::string> keys;
  bool operator==(const AlterTableReset&) const = default;
};

struct AddJar {
  std::string path;
  bool operator==(const AddJar&) const = default;
};

struct RemoveJar {
  std::string path;
  bool operator==(const RemoveJar&) const = default;
};

/// INSERT {INTO|OVERWRITE} t [/*+ OPTIONS(...) */] [PARTITION (k = literal, ...)] [(cols)] query
struct Insert {
  bool overwrite = false;
  Identifier table;
  std::vector<Hint> hints;
  std::vector<std::pair<std::string, Expr>> partition;  ///< static partition values
  std::vector<std::string> columns;
  Query query;
  bool operator==(const Insert&) const = default;
};

/// EXECUTE STATEMENT SET BEGIN insert; ... END, or the SQL client's
/// BEGIN STATEMENT SET; insert; ... END;
struct StatementSet {
  std::vector<Insert> inserts;
  std::vector<Pos> insert_pos;  ///< where each INSERT starts
  bool operator==(const StatementSet&) const = default;
};

/// EXPLAIN is not in the subset; a query or an INSERT stands alone.
using StatementNode =
    std::variant<CreateCatalog, UseCatalog, UseDatabase, CreateDatabase, DropDatabase, Show,
                 ShowCreateTable, Describe, Set, Reset, CreateTable, DropTable, AlterTableSet,
                 AlterTableReset, AddJar, RemoveJar, Insert, StatementSet, Query>;

/// One parsed statement: where it starts, its source text (without the
/// ending ';') and its tree.
struct Statement {
  Pos pos;
  std::string text;
  StatementNode node;
  bool operator==(const Statement&) const = default;
};

}  // namespace floe::sql
