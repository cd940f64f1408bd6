// Avro schema model: JSON parsing and writing (Avro spec 1.11: Schema
// Declaration, Names, Logical Types). nlohmann-json stays inside this file.
#include "floe/avro/schema.h"

#include "floe/avro/encoding.h"
#include "floe/util/nesting.h"

#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <unordered_map>

namespace floe::avro {
namespace {

using OrderedJson = nlohmann::ordered_json;

/// JSON text of a value; invalid UTF-8 is replaced instead of throwing.
std::string Dump(const OrderedJson& j) { return j.dump(-1, ' ', false, OrderedJson::error_handler_t::replace); }

// Schemas nest no deeper than Iceberg's (floe/util/nesting.h).
constexpr int kMaxDepth = kMaxTypeDepth;

std::optional<AvroType> PrimitiveFromName(std::string_view name) {
  if (name == "null") return AvroType::kNull;
  if (name == "boolean") return AvroType::kBoolean;
  if (name == "int") return AvroType::kInt;
  if (name == "long") return AvroType::kLong;
  if (name == "float") return AvroType::kFloat;
  if (name == "double") return AvroType::kDouble;
  if (name == "bytes") return AvroType::kBytes;
  if (name == "string") return AvroType::kString;
  return std::nullopt;
}

bool IsPrimitive(AvroType t) { return t <= AvroType::kString; }

OrderedJson ParseAttr(const std::string& text) { return OrderedJson::parse(text, nullptr, false); }

/// Checks a possibly dotted name: every component a valid simple name.
bool IsValidFullName(std::string_view name) {
  if (name.empty()) return false;
  size_t start = 0;
  while (true) {
    size_t dot = name.find('.', start);
    std::string_view part = name.substr(start, dot == std::string_view::npos ? name.size() - start
                                                                              : dot - start);
    if (!IsValidName(part)) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

class Parser {
 public:
  Result<NodePtr> ParseNode(const OrderedJson& j, const std::string& ns, const std::string& path, int depth) {
    if (depth > kMaxDepth) return InvalidArgument("avro schema at {}: nested deeper than {}", path, kMaxDepth);
    if (j.is_string()) return ParseName(j.get<std::string>(), ns, path);
    if (j.is_array()) return ParseUnion(j, ns, path, depth);
    if (!j.is_object()) return InvalidArgument("avro schema at {}: expected a type name, object or array, got {}", path, Dump(j));
    auto it = j.find("type");
    if (it == j.end()) return InvalidArgument("avro schema at {}: object without \"type\"", path);
    if (it->is_object() || it->is_array()) {
      // {"type": {...}}: a wrapped schema; no other keys are meaningful.
      return ParseNode(*it, ns, path, depth + 1);
    }
    if (!it->is_string()) return InvalidArgument("avro schema at {}: \"type\" must be a string", path);
    std::string type = it->get<std::string>();
    if (auto prim = PrimitiveFromName(type)) {
      auto node = MakePrimitive(*prim);
      FLOE_RETURN_IF_ERROR(TakeCommon(j, node.get(), {"type"}, path));
      return node;
    }
    if (type == "record" || type == "error") return ParseRecord(j, ns, path, depth);
    if (type == "enum") return ParseEnum(j, ns, path);
    if (type == "fixed") return ParseFixed(j, ns, path);
    if (type == "array") {
      auto items = j.find("items");
      if (items == j.end()) return InvalidArgument("avro schema at {}: array without \"items\"", path);
      FLOE_ASSIGN_OR_RETURN(NodePtr item, ParseNode(*items, ns, path + ".items", depth + 1));
      auto node = MakeArray(std::move(item));
      FLOE_RETURN_IF_ERROR(TakeCommon(j, node.get(), {"type", "items"}, path));
      return node;
    }
    if (type == "map") {
      auto values = j.find("values");
      if (values == j.end()) return InvalidArgument("avro schema at {}: map without \"values\"", path);
      FLOE_ASSIGN_OR_RETURN(NodePtr value, ParseNode(*values, ns, path + ".values", depth + 1));
      auto node = MakeMap(std::move(value));
      FLOE_RETURN_IF_ERROR(TakeCommon(j, node.get(), {"type", "values"}, path));
      return node;
    }
    // {"type": "some.Name"}: a reference in object form.
    return ParseName(type, ns, path);
  }

 private:
  Result<NodePtr> ParseName(const std::string& name, const std::string& ns, const std::string& path) {
    if (auto prim = PrimitiveFromName(name)) return MakePrimitive(*prim);
    if (name.find('.') == std::string::npos && !ns.empty()) {
      auto it = named_.find(ns + "." + name);
      if (it != named_.end()) return it->second;
    }
    auto it = named_.find(name);
    if (it != named_.end()) return it->second;
    return InvalidArgument(
        "avro schema at {}: unknown type name \"{}\" (not defined before this point; recursive "
        "types are not supported)",
        path, name);
  }

  Result<NodePtr> ParseUnion(const OrderedJson& j, const std::string& ns, const std::string& path, int depth) {
    std::vector<NodePtr> branches;
    for (size_t i = 0; i < j.size(); ++i) {
      FLOE_ASSIGN_OR_RETURN(NodePtr b, ParseNode(j[i], ns, fmt::format("{}[{}]", path, i), depth + 1));
      branches.push_back(std::move(b));
    }
    return MakeUnion(std::move(branches));
  }

  // Name, namespace, aliases and doc of a named type; registers nothing yet.
  Status TakeName(const OrderedJson& j, Node* node, const std::string& ns, const std::string& path) {
    auto name = j.find("name");
    if (name == j.end() || !name->is_string()) {
      return InvalidArgument("avro schema at {}: {} without a string \"name\"", path, AvroTypeName(node->type));
    }
    std::string full = name->get<std::string>();
    std::string space = ns;
    if (auto n = j.find("namespace"); n != j.end()) {
      if (!n->is_string() && !n->is_null()) return InvalidArgument("avro schema at {}: \"namespace\" must be a string", path);
      space = n->is_string() ? n->get<std::string>() : "";
    }
    if (size_t dot = full.rfind('.'); dot != std::string::npos) {
      space = full.substr(0, dot);
      full = full.substr(dot + 1);
    }
    if (!IsValidName(full)) {
      return InvalidArgument("avro schema at {}: invalid name \"{}\" (must match [A-Za-z_][A-Za-z0-9_]*)", path, full);
    }
    if (!space.empty() && !IsValidFullName(space)) {
      return InvalidArgument("avro schema at {}: invalid namespace \"{}\"", path, space);
    }
    if (IsPrimitive(node->type) || PrimitiveFromName(full)) {
      return InvalidArgument("avro schema at {}: \"{}\" is a primitive type name and cannot be defined", path, full);
    }
    node->name = std::move(full);
    node->name_space = std::move(space);
    if (auto a = j.find("aliases"); a != j.end()) {
      if (!a->is_array()) return InvalidArgument("avro schema at {}: \"aliases\" must be an array", path);
      for (const auto& s : *a) {
        if (!s.is_string()) return InvalidArgument("avro schema at {}: alias must be a string", path);
        node->aliases.push_back(s.get<std::string>());
      }
    }
    return Ok();
  }

  Status Register(const NodePtr& node, const std::string& path) {
    std::string full = node->full_name();
    if (!named_.emplace(full, node).second) {
      return InvalidArgument("avro schema at {}: type name \"{}\" is defined twice", path, full);
    }
    return Ok();
  }

  // doc, logicalType (+ precision/scale) and the remaining attributes.
  Status TakeCommon(const OrderedJson& j, Node* node, std::initializer_list<std::string_view> used,
                    const std::string& path) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string& key = it.key();
      bool skip = false;
      for (auto u : used) skip |= key == u;
      if (skip) continue;
      if (key == "doc" && it->is_string()) {
        node->doc = it->get<std::string>();
      } else if (key == "logicalType" && it->is_string()) {
        node->logical_type = it->get<std::string>();
      } else if ((key == "precision" || key == "scale") && it->is_number_integer() &&
                 j.contains("logicalType") && j["logicalType"] == "decimal") {
        int64_t v = it->get<int64_t>();
        if (v < 0 || v > 1000) return InvalidArgument("avro schema at {}: decimal {} {} out of range", path, key, v);
        (key == "precision" ? node->precision : node->scale) = static_cast<int32_t>(v);
      } else {
        node->attributes.SetJson(key, Dump(*it));
      }
    }
    if (node->logical_type == "decimal" && (node->precision < 1 || node->scale > node->precision)) {
      return InvalidArgument("avro schema at {}: decimal with precision {} and scale {}", path,
                             node->precision, node->scale);
    }
    return Ok();
  }

  Result<NodePtr> ParseRecord(const OrderedJson& j, const std::string& ns, const std::string& path, int depth) {
    auto node = std::make_shared<Node>();
    node->type = AvroType::kRecord;
    FLOE_RETURN_IF_ERROR(TakeName(j, node.get(), ns, path));
    std::string here = path + "<" + node->full_name() + ">";
    auto fields = j.find("fields");
    if (fields == j.end() || !fields->is_array()) {
      return InvalidArgument("avro schema at {}: record without a \"fields\" array", here);
    }
    std::set<std::string> seen;
    for (const auto& f : *fields) {
      if (!f.is_object()) return InvalidArgument("avro schema at {}: field must be an object", here);
      Field field;
      auto name = f.find("name");
      if (name == f.end() || !name->is_string()) return InvalidArgument("avro schema at {}: field without a string \"name\"", here);
      field.name = name->get<std::string>();
      std::string fpath = here + "." + field.name;
      if (!IsValidName(field.name)) {
        return InvalidArgument("avro schema at {}: invalid field name \"{}\" (must match [A-Za-z_][A-Za-z0-9_]*)", here, field.name);
      }
      if (!seen.insert(field.name).second) return InvalidArgument("avro schema at {}: field \"{}\" appears twice", here, field.name);
      auto type = f.find("type");
      if (type == f.end()) return InvalidArgument("avro schema at {}: field without \"type\"", fpath);
      FLOE_ASSIGN_OR_RETURN(field.type, ParseNode(*type, node->name_space, fpath, depth + 1));
      for (auto it = f.begin(); it != f.end(); ++it) {
        const std::string& key = it.key();
        if (key == "name" || key == "type") continue;
        if (key == "doc" && it->is_string()) {
          field.doc = it->get<std::string>();
        } else if (key == "default") {
          field.default_json = Dump(*it);
        } else if (key == "aliases" && it->is_array()) {
          for (const auto& s : *it) {
            if (!s.is_string()) return InvalidArgument("avro schema at {}: alias must be a string", fpath);
            field.aliases.push_back(s.get<std::string>());
          }
        } else {
          field.attributes.SetJson(key, Dump(*it));
        }
      }
      node->fields.push_back(std::move(field));
    }
    FLOE_RETURN_IF_ERROR(TakeCommon(j, node.get(), {"type", "name", "namespace", "aliases", "fields"}, here));
    FLOE_RETURN_IF_ERROR(Register(node, path));
    return node;
  }

  Result<NodePtr> ParseEnum(const OrderedJson& j, const std::string& ns, const std::string& path) {
    auto node = std::make_shared<Node>();
    node->type = AvroType::kEnum;
    FLOE_RETURN_IF_ERROR(TakeName(j, node.get(), ns, path));
    auto symbols = j.find("symbols");
    if (symbols == j.end() || !symbols->is_array()) return InvalidArgument("avro schema at {}: enum without a \"symbols\" array", path);
    std::set<std::string> seen;
    for (const auto& s : *symbols) {
      if (!s.is_string() || !IsValidName(s.get<std::string>())) {
        return InvalidArgument("avro schema at {}: invalid enum symbol {}", path, Dump(s));
      }
      if (!seen.insert(s.get<std::string>()).second) return InvalidArgument("avro schema at {}: enum symbol {} appears twice", path, Dump(s));
      node->symbols.push_back(s.get<std::string>());
    }
    if (auto d = j.find("default"); d != j.end()) {
      if (!d->is_string() || !seen.contains(d->get<std::string>())) {
        return InvalidArgument("avro schema at {}: enum default {} is not a symbol", path, Dump(*d));
      }
      node->enum_default = d->get<std::string>();
    }
    FLOE_RETURN_IF_ERROR(TakeCommon(j, node.get(), {"type", "name", "namespace", "aliases", "symbols", "default"}, path));
    FLOE_RETURN_IF_ERROR(Register(node, path));
    return node;
  }

  Result<NodePtr> ParseFixed(const OrderedJson& j, const std::string& ns, const std::string& path) {
    auto node = std::make_shared<Node>();
    node->type = AvroType::kFixed;
    FLOE_RETURN_IF_ERROR(TakeName(j, node.get(), ns, path));
    auto size = j.find("size");
    if (size == j.end() || !size->is_number_integer() || size->get<int64_t>() < 0 ||
        size->get<int64_t>() > (1 << 30)) {
      return InvalidArgument("avro schema at {}: fixed needs a non-negative integer \"size\"", path);
    }
    node->size = static_cast<int32_t>(size->get<int64_t>());
    FLOE_RETURN_IF_ERROR(TakeCommon(j, node.get(), {"type", "name", "namespace", "aliases", "size"}, path));
    FLOE_RETURN_IF_ERROR(Register(node, path));
    return node;
  }

  std::unordered_map<std::string, NodePtr> named_;
};

Status CheckUnion(const Node& node, const std::string& path) {
  std::set<std::string> seen;
  for (const auto& b : node.branches) {
    if (!b) return InvalidArgument("avro schema at {}: union branch is missing", path);
    if (b->type == AvroType::kUnion) return InvalidArgument("avro schema at {}: a union may not contain a union", path);
    std::string key = b->is_named() ? b->full_name() : std::string(AvroTypeName(b->type));
    if (!seen.insert(key).second) {
      return InvalidArgument("avro schema at {}: union has two branches of type {}", path, key);
    }
  }
  return Ok();
}

// Validation of a built schema: names, unique definitions, unions.
class Validator {
 public:
  Status Check(const NodePtr& node, const std::string& path, int depth) {
    if (!node) return InvalidArgument("avro schema at {}: missing type", path);
    if (depth > kMaxDepth) return InvalidArgument("avro schema at {}: nested deeper than {}", path, kMaxDepth);
    if (node->is_named()) {
      if (!IsValidName(node->name)) return InvalidArgument("avro schema at {}: invalid name \"{}\"", path, node->name);
      if (!node->name_space.empty() && !IsValidFullName(node->name_space)) {
        return InvalidArgument("avro schema at {}: invalid namespace \"{}\"", path, node->name_space);
      }
      auto [it, inserted] = named_.emplace(node->full_name(), node.get());
      if (!inserted) {
        if (it->second == node.get()) return Ok();  // a reference
        return InvalidArgument("avro schema at {}: type name \"{}\" is defined twice", path, node->full_name());
      }
    }
    switch (node->type) {
      case AvroType::kRecord: {
        std::set<std::string> seen;
        for (const auto& f : node->fields) {
          if (!IsValidName(f.name)) return InvalidArgument("avro schema at {}: invalid field name \"{}\"", path, f.name);
          if (!seen.insert(f.name).second) return InvalidArgument("avro schema at {}: field \"{}\" appears twice", path, f.name);
          FLOE_RETURN_IF_ERROR(Check(f.type, path + "." + f.name, depth + 1));
          if (f.default_json) {
            // Avro spec: a default must match the field's type (the first branch of a union).
            auto v = DefaultValue(f.type, *f.default_json);
            if (!v) return Fail(std::move(v).error().WithContext(fmt::format("avro schema at {}.{}", path, f.name)));
          }
        }
        return Ok();
      }
      case AvroType::kArray:
      case AvroType::kMap:
        return Check(node->items, path + (node->type == AvroType::kArray ? ".items" : ".values"), depth + 1);
      case AvroType::kUnion:
        FLOE_RETURN_IF_ERROR(CheckUnion(*node, path));
        for (size_t i = 0; i < node->branches.size(); ++i) {
          FLOE_RETURN_IF_ERROR(Check(node->branches[i], fmt::format("{}[{}]", path, i), depth + 1));
        }
        return Ok();
      case AvroType::kEnum:
        for (const auto& s : node->symbols) {
          if (!IsValidName(s)) return InvalidArgument("avro schema at {}: invalid enum symbol \"{}\"", path, s);
        }
        return Ok();
      default:
        return Ok();
    }
  }

 private:
  std::unordered_map<std::string, const Node*> named_;
};

Status CheckUnions(const NodePtr& node, const std::string& path, int depth, std::set<const Node*>* done) {
  if (!node || !done->insert(node.get()).second) return Ok();
  switch (node->type) {
    case AvroType::kRecord:
      for (const auto& f : node->fields) FLOE_RETURN_IF_ERROR(CheckUnions(f.type, path + "." + f.name, depth + 1, done));
      return Ok();
    case AvroType::kArray:
    case AvroType::kMap:
      return CheckUnions(node->items, path, depth + 1, done);
    case AvroType::kUnion:
      FLOE_RETURN_IF_ERROR(CheckUnion(*node, path));
      for (const auto& b : node->branches) FLOE_RETURN_IF_ERROR(CheckUnions(b, path, depth + 1, done));
      return Ok();
    default:
      return Ok();
  }
}

void PutAttributes(const Attributes& attrs, OrderedJson* j) {
  for (const auto& a : attrs.items()) {
    OrderedJson v = ParseAttr(a.json);
    (*j)[a.key] = v.is_discarded() ? OrderedJson(a.json) : v;
  }
}

class Writer {
 public:
  OrderedJson Write(const Node& node, const std::string& ns) {
    if (node.is_named()) {
      std::string full = node.full_name();
      if (!written_.insert(full).second) return OrderedJson(full);
    }
    bool plain = node.logical_type.empty() && node.attributes.empty() && node.doc.empty();
    switch (node.type) {
      case AvroType::kNull:
      case AvroType::kBoolean:
      case AvroType::kInt:
      case AvroType::kLong:
      case AvroType::kFloat:
      case AvroType::kDouble:
      case AvroType::kBytes:
      case AvroType::kString: {
        if (plain) return OrderedJson(std::string(AvroTypeName(node.type)));
        OrderedJson j = OrderedJson::object();
        j["type"] = std::string(AvroTypeName(node.type));
        PutTail(node, &j);
        return j;
      }
      case AvroType::kUnion: {
        OrderedJson j = OrderedJson::array();
        for (const auto& b : node.branches) j.push_back(Write(*b, ns));
        return j;
      }
      case AvroType::kArray:
      case AvroType::kMap: {
        OrderedJson j = OrderedJson::object();
        j["type"] = std::string(AvroTypeName(node.type));
        j[node.type == AvroType::kArray ? "items" : "values"] = Write(*node.items, ns);
        PutTail(node, &j);
        return j;
      }
      case AvroType::kRecord: {
        OrderedJson j = OrderedJson::object();
        j["type"] = "record";
        PutName(node, ns, &j);
        OrderedJson fields = OrderedJson::array();
        for (const auto& f : node.fields) {
          OrderedJson fj = OrderedJson::object();
          fj["name"] = f.name;
          fj["type"] = Write(*f.type, node.name_space);
          if (!f.doc.empty()) fj["doc"] = f.doc;
          if (f.default_json) {
            OrderedJson d = ParseAttr(*f.default_json);
            fj["default"] = d.is_discarded() ? OrderedJson(nullptr) : d;
          }
          if (!f.aliases.empty()) fj["aliases"] = f.aliases;
          PutAttributes(f.attributes, &fj);
          fields.push_back(std::move(fj));
        }
        j["fields"] = std::move(fields);
        PutTail(node, &j);
        return j;
      }
      case AvroType::kEnum: {
        OrderedJson j = OrderedJson::object();
        j["type"] = "enum";
        PutName(node, ns, &j);
        j["symbols"] = node.symbols;
        if (node.enum_default) j["default"] = *node.enum_default;
        PutTail(node, &j);
        return j;
      }
      case AvroType::kFixed: {
        OrderedJson j = OrderedJson::object();
        j["type"] = "fixed";
        PutName(node, ns, &j);
        j["size"] = node.size;
        PutTail(node, &j);
        return j;
      }
    }
    return OrderedJson(nullptr);
  }

 private:
  static void PutName(const Node& node, const std::string& ns, OrderedJson* j) {
    (*j)["name"] = node.name;
    if (node.name_space != ns) (*j)["namespace"] = node.name_space;
    if (!node.aliases.empty()) (*j)["aliases"] = node.aliases;
  }
  static void PutTail(const Node& node, OrderedJson* j) {
    if (!node.doc.empty()) (*j)["doc"] = node.doc;
    if (!node.logical_type.empty()) {
      (*j)["logicalType"] = node.logical_type;
      if (node.logical_type == "decimal") {
        (*j)["precision"] = node.precision;
        (*j)["scale"] = node.scale;
      }
    }
    PutAttributes(node.attributes, j);
  }
  std::set<std::string> written_;
};

}  // namespace

std::string_view AvroTypeName(AvroType type) {
  switch (type) {
    case AvroType::kNull: return "null";
    case AvroType::kBoolean: return "boolean";
    case AvroType::kInt: return "int";
    case AvroType::kLong: return "long";
    case AvroType::kFloat: return "float";
    case AvroType::kDouble: return "double";
    case AvroType::kBytes: return "bytes";
    case AvroType::kString: return "string";
    case AvroType::kRecord: return "record";
    case AvroType::kEnum: return "enum";
    case AvroType::kArray: return "array";
    case AvroType::kMap: return "map";
    case AvroType::kUnion: return "union";
    case AvroType::kFixed: return "fixed";
  }
  return "?";
}

const std::string* Attributes::Find(std::string_view key) const {
  for (const auto& a : items_) {
    if (a.key == key) return &a.json;
  }
  return nullptr;
}

std::optional<int64_t> Attributes::GetInt(std::string_view key) const {
  const std::string* text = Find(key);
  if (!text) return std::nullopt;
  OrderedJson j = ParseAttr(*text);
  if (!j.is_number_integer()) return std::nullopt;
  return j.get<int64_t>();
}

std::optional<bool> Attributes::GetBool(std::string_view key) const {
  const std::string* text = Find(key);
  if (!text) return std::nullopt;
  OrderedJson j = ParseAttr(*text);
  if (!j.is_boolean()) return std::nullopt;
  return j.get<bool>();
}

std::optional<std::string> Attributes::GetString(std::string_view key) const {
  const std::string* text = Find(key);
  if (!text) return std::nullopt;
  OrderedJson j = ParseAttr(*text);
  if (!j.is_string()) return std::nullopt;
  return j.get<std::string>();
}

void Attributes::SetJson(std::string key, std::string json) {
  for (auto& a : items_) {
    if (a.key == key) {
      a.json = std::move(json);
      return;
    }
  }
  items_.push_back({std::move(key), std::move(json)});
}

void Attributes::SetInt(std::string key, int64_t value) { SetJson(std::move(key), std::to_string(value)); }
void Attributes::SetBool(std::string key, bool value) { SetJson(std::move(key), value ? "true" : "false"); }
void Attributes::SetString(std::string key, std::string_view value) {
  SetJson(std::move(key), Dump(OrderedJson(std::string(value))));
}
void Attributes::Remove(std::string_view key) {
  std::erase_if(items_, [&](const Attribute& a) { return a.key == key; });
}

std::optional<int32_t> Field::field_id() const {
  auto id = attributes.GetInt("field-id");
  if (!id || *id < INT32_MIN || *id > INT32_MAX) return std::nullopt;
  return static_cast<int32_t>(*id);
}

std::string Node::full_name() const { return name_space.empty() ? name : name_space + "." + name; }

std::optional<int> Node::OptionalBranch() const {
  if (type != AvroType::kUnion || branches.size() != 2) return std::nullopt;
  if (branches[0]->type == AvroType::kNull && branches[1]->type != AvroType::kNull) return 1;
  if (branches[1]->type == AvroType::kNull && branches[0]->type != AvroType::kNull) return 0;
  return std::nullopt;
}

int Node::FieldIndex(std::string_view field_name) const {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == field_name) return static_cast<int>(i);
  }
  return -1;
}

NodePtr MakePrimitive(AvroType type) {
  auto n = std::make_shared<Node>();
  n->type = type;
  return n;
}

NodePtr MakeRecord(std::string name, std::vector<Field> fields, std::string name_space) {
  auto n = std::make_shared<Node>();
  n->type = AvroType::kRecord;
  n->name = std::move(name);
  n->name_space = std::move(name_space);
  n->fields = std::move(fields);
  return n;
}

NodePtr MakeEnum(std::string name, std::vector<std::string> symbols) {
  auto n = std::make_shared<Node>();
  n->type = AvroType::kEnum;
  n->name = std::move(name);
  n->symbols = std::move(symbols);
  return n;
}

NodePtr MakeArray(NodePtr items) {
  auto n = std::make_shared<Node>();
  n->type = AvroType::kArray;
  n->items = std::move(items);
  return n;
}

NodePtr MakeMap(NodePtr values) {
  auto n = std::make_shared<Node>();
  n->type = AvroType::kMap;
  n->items = std::move(values);
  return n;
}

NodePtr MakeUnion(std::vector<NodePtr> branches) {
  auto n = std::make_shared<Node>();
  n->type = AvroType::kUnion;
  n->branches = std::move(branches);
  return n;
}

NodePtr MakeFixed(std::string name, int32_t size) {
  auto n = std::make_shared<Node>();
  n->type = AvroType::kFixed;
  n->name = std::move(name);
  n->size = size;
  return n;
}

NodePtr MakeOptional(NodePtr type) { return MakeUnion({MakePrimitive(AvroType::kNull), std::move(type)}); }

Field MakeField(std::string name, NodePtr type, std::optional<int32_t> field_id) {
  Field f;
  f.name = std::move(name);
  f.type = std::move(type);
  if (field_id) f.attributes.SetInt("field-id", *field_id);
  return f;
}

bool IsValidName(std::string_view name) {
  if (name.empty()) return false;
  auto alpha = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
  if (!alpha(name[0])) return false;
  for (char c : name.substr(1)) {
    if (!alpha(c) && !(c >= '0' && c <= '9')) return false;
  }
  return true;
}

Result<AvroSchema> AvroSchema::Parse(std::string_view json) {
  try {
    return ParseJson(json);
  } catch (const std::exception& e) {
    return InvalidArgument("avro schema: {}", e.what());
  }
}

Result<AvroSchema> AvroSchema::ParseJson(std::string_view json) {
  // The depth checks below see only schema nodes; an attribute or default
  // nested deeply would still be copied and dumped recursively.
  if (auto at = JsonNestingBeyond(json)) {
    return InvalidArgument("avro schema: JSON nested deeper than {} levels (at byte {})", kMaxJsonDepth, *at);
  }
  OrderedJson j = OrderedJson::parse(json, nullptr, false);
  if (j.is_discarded()) return InvalidArgument("avro schema is not valid JSON: {:.80}", json);
  Parser parser;
  FLOE_ASSIGN_OR_RETURN(NodePtr root, parser.ParseNode(j, "", "$", 0));
  std::set<const Node*> done;
  FLOE_RETURN_IF_ERROR(CheckUnions(root, "$", 0, &done));
  AvroSchema schema(std::move(root));
  FLOE_RETURN_IF_ERROR(schema.Validate());  // defaults, and the rules above once more
  return schema;
}

Status AvroSchema::Validate() const {
  Validator v;
  return v.Check(root_, "$", 0);
}

std::string AvroSchema::ToJson() const {
  if (!root_) return "null";
  Writer w;
  return Dump(w.Write(*root_, ""));
}

}  // namespace floe::avro
