/// \file
/// The Avro module: schemas, binary encoding, object container files and the
/// Iceberg <-> Avro schema mapping. Iceberg keeps manifests and manifest lists
/// in Avro container files (Iceberg spec: Manifests, Manifest Lists).
///
/// Why Avro is written here: Avro C can neither write the header metadata
/// Iceberg requires (`schema`, `partition-spec`, `format-version`, ...) nor keep
/// the `field-id` / `element-id` / `key-id` / `value-id` attributes in the
/// schema it writes, and Debian 12 ships no usable Avro C++ library.
///
/// This file owns the typed schema model (Avro spec 1.11: Schema Declaration):
/// primitive types, records, enums, arrays, maps, unions, fixed, logical types
/// and every extra JSON attribute, parsed from and written back to JSON.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/util/status.h"

namespace floe::avro {

/// The Avro schema types (Avro spec: Primitive Types, Complex Types).
enum class AvroType : uint8_t {
  kNull,
  kBoolean,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kBytes,
  kString,
  kRecord,
  kEnum,
  kArray,
  kMap,
  kUnion,
  kFixed,
};

/// The schema spelling of a type ("int", "record", ...).
std::string_view AvroTypeName(AvroType type);

/// A JSON attribute that the model has no member for (e.g. Iceberg's
/// `field-id`, `element-id`, `adjust-to-utc`), kept verbatim as JSON text so it
/// is written back unchanged.
struct Attribute {
  std::string key;
  std::string json;  ///< the value as JSON text: `12`, `true`, `"x"`
};

/// An ordered list of extra attributes with typed accessors.
class Attributes {
 public:
  const std::vector<Attribute>& items() const { return items_; }
  bool empty() const { return items_.empty(); }
  /// The JSON text of `key`, or nullptr.
  const std::string* Find(std::string_view key) const;
  /// `key` as an integer when it is a JSON integer.
  std::optional<int64_t> GetInt(std::string_view key) const;
  /// `key` as a bool when it is a JSON boolean.
  std::optional<bool> GetBool(std::string_view key) const;
  /// `key` as a string when it is a JSON string.
  std::optional<std::string> GetString(std::string_view key) const;
  /// Sets (replacing) `key` to raw JSON text; the caller makes it valid JSON.
  void SetJson(std::string key, std::string json);
  void SetInt(std::string key, int64_t value);
  void SetBool(std::string key, bool value);
  void SetString(std::string key, std::string_view value);
  void Remove(std::string_view key);

 private:
  std::vector<Attribute> items_;
};

struct Node;
/// Schema nodes are shared: a name reference points at the node that defined it.
using NodePtr = std::shared_ptr<Node>;

/// A record field (Avro spec: Records).
struct Field {
  std::string name;
  NodePtr type;
  std::string doc;
  /// The field's default as JSON text (`null`, `0`, `"a"`), if any.
  std::optional<std::string> default_json;
  std::vector<std::string> aliases;
  /// Everything else, such as Iceberg's `field-id` and `iceberg-field-name`.
  Attributes attributes;

  /// The Iceberg `field-id` attribute, if present.
  std::optional<int32_t> field_id() const;
};

/// One schema node: a type and its parameters.
struct Node {
  AvroType type = AvroType::kNull;

  // Named types (record, enum, fixed).
  std::string name;        ///< simple name, without namespace
  std::string name_space;  ///< namespace ("" = none)
  std::vector<std::string> aliases;
  std::string doc;

  std::vector<Field> fields;         ///< record
  std::vector<std::string> symbols;  ///< enum
  std::optional<std::string> enum_default;
  NodePtr items;                     ///< array items, map values
  std::vector<NodePtr> branches;     ///< union
  int32_t size = 0;                  ///< fixed

  /// The `logicalType` attribute ("decimal", "date", "time-micros",
  /// "timestamp-micros", "uuid", Iceberg's "map", ...), "" for none.
  std::string logical_type;
  int32_t precision = 0;  ///< decimal
  int32_t scale = 0;      ///< decimal

  /// Everything else: `element-id` on arrays, `key-id` / `value-id` on maps,
  /// `adjust-to-utc` on timestamps, ...
  Attributes attributes;

  bool is_named() const {
    return type == AvroType::kRecord || type == AvroType::kEnum || type == AvroType::kFixed;
  }
  /// "namespace.name" or "name".
  std::string full_name() const;
  /// For a union of null and one other type: the index of the other branch.
  std::optional<int> OptionalBranch() const;
  /// Index of a record field by name, or -1.
  int FieldIndex(std::string_view field_name) const;
};

// Node factories.
NodePtr MakePrimitive(AvroType type);
NodePtr MakeRecord(std::string name, std::vector<Field> fields, std::string name_space = "");
NodePtr MakeEnum(std::string name, std::vector<std::string> symbols);
NodePtr MakeArray(NodePtr items);
NodePtr MakeMap(NodePtr values);
NodePtr MakeUnion(std::vector<NodePtr> branches);
NodePtr MakeFixed(std::string name, int32_t size);
/// `["null", type]`: an optional value.
NodePtr MakeOptional(NodePtr type);
/// A field with a `field-id` attribute (none when `field_id` is empty).
Field MakeField(std::string name, NodePtr type, std::optional<int32_t> field_id = std::nullopt);

/// Is `name` a valid Avro simple name: `[A-Za-z_][A-Za-z0-9_]*`.
bool IsValidName(std::string_view name);

/// A parsed schema: its root node. Parsing checks names (valid, each full name
/// defined once), resolves name references to the nodes that defined them,
/// rejects unions with nested unions or duplicate branch types, and checks
/// that every field default fits its type (a union's default its first branch).
class AvroSchema {
 public:
  AvroSchema() = default;
  explicit AvroSchema(NodePtr root) : root_(std::move(root)) {}

  /// Parses schema JSON (Avro spec: Schema Declaration). kInvalidArgument on
  /// malformed JSON or schemas, naming the path of the bad node.
  static Result<AvroSchema> Parse(std::string_view json);

  /// Checks the rules `Parse` enforces on a schema built in code.
  Status Validate() const;

  /// The schema as JSON. A named type seen a second time is written as a
  /// reference to its full name. Every attribute is kept.
  std::string ToJson() const;

  const NodePtr& root() const { return root_; }

 private:
  static Result<AvroSchema> ParseJson(std::string_view json);
  NodePtr root_;
};

}  // namespace floe::avro
