/// \file
/// Parquet schema -> floe schema for the reader (see reader_schema.h).
#include "floe/parquet/reader_schema.h"

#include <algorithm>

#include "floe/parquet/thrift_internal.h"

namespace floe::parquet {

namespace {

/// The schema as a tree, with cumulative levels.
struct RawNode {
  const format::SchemaElement* el = nullptr;
  int16_t def = 0;  ///< definition level of this node (counts itself if not required)
  int16_t rep = 0;  ///< repetition level (counts itself if repeated)
  int first_leaf = -1;
  std::vector<RawNode> children;

  bool is_leaf() const {
    return !el->__isset.num_children || (el->__isset.type && el->num_children == 0);
  }
  bool repeated() const {
    return el->__isset.repetition_type &&
           EnumValue(el->repetition_type) == format::FieldRepetitionType::REPEATED;
  }
  bool required() const {
    return !el->__isset.repetition_type ||
           EnumValue(el->repetition_type) == format::FieldRepetitionType::REQUIRED;
  }
  bool is_list() const {
    return (el->__isset.logicalType && el->logicalType.__isset.LIST) ||
           (el->__isset.converted_type &&
            EnumValue(el->converted_type) == format::ConvertedType::LIST);
  }
  bool is_map() const {
    return (el->__isset.logicalType && el->logicalType.__isset.MAP) ||
           (el->__isset.converted_type &&
            (EnumValue(el->converted_type) == format::ConvertedType::MAP ||
             EnumValue(el->converted_type) == format::ConvertedType::MAP_KEY_VALUE));
  }
};

class Builder {
 public:
  explicit Builder(const std::vector<format::SchemaElement>& els) : els_(els) {}

  Result<FileSchema> Build() {
    if (els_.empty()) return Corrupt("Parquet schema has no root element");
    for (const auto& e : els_) {
      if (e.__isset.field_id) {
        max_id_ = std::max(max_id_, e.field_id);
        out_.has_field_ids = true;
      }
    }
    next_id_ = std::max(max_id_, 0) + 1;
    size_t pos = 0;
    RawNode root;
    FLOE_RETURN_IF_ERROR(Parse(&pos, 0, 0, 0, &root, true));
    if (pos != els_.size()) {
      return Corrupt("Parquet schema has {} elements but the tree uses {}", els_.size(), pos);
    }
    std::vector<NestedField> fields;
    for (const auto& c : root.children) {
      FileField f;
      FLOE_RETURN_IF_ERROR(Convert(c, 0, 0, "", &f));
      fields.push_back(f.field);
      out_.fields.push_back(std::move(f));
    }
    out_.schema = std::make_shared<Schema>(std::move(fields));
    return std::move(out_);
  }

 private:
  Status Parse(size_t* pos, int depth, int16_t def, int16_t rep, RawNode* node, bool root) {
    if (depth > kMaxSchemaDepth)
      return Corrupt("Parquet schema nested deeper than {}", kMaxSchemaDepth);
    if (*pos >= els_.size())
      return Corrupt("Parquet schema: element {} missing (num_children too large)", *pos);
    node->el = &els_[(*pos)++];
    const auto& el = *node->el;
    if (!root) {
      if (el.__isset.repetition_type &&
          (EnumValue(el.repetition_type) < 0 || EnumValue(el.repetition_type) > 2)) {
        return Corrupt("Parquet schema: field '{}' has repetition {}", el.name,
                       EnumValue(el.repetition_type));
      }
      if (!node->required()) ++def;
      if (node->repeated()) ++rep;
    }
    node->def = def;
    node->rep = rep;
    node->first_leaf = static_cast<int>(out_.leaves.size());
    if (root || el.__isset.num_children) {
      if (!root && el.__isset.type && el.num_children == 0) {
        // A leaf that also wrote num_children = 0.
      } else {
        int32_t n = el.__isset.num_children ? el.num_children : 0;
        if (n < 0 || static_cast<size_t>(n) > els_.size() - *pos) {
          return Corrupt("Parquet schema: group '{}' claims {} children, {} elements left", el.name,
                         n, els_.size() - *pos);
        }
        node->children.resize(static_cast<size_t>(n));
        for (int32_t i = 0; i < n; ++i) {
          FLOE_RETURN_IF_ERROR(Parse(pos, depth + 1, def, rep, &node->children[i], false));
        }
        if (node->first_leaf == static_cast<int>(out_.leaves.size())) node->first_leaf = -1;
        return Ok();
      }
    }
    if (!el.__isset.type) return Corrupt("Parquet schema: leaf '{}' has no physical type", el.name);
    if (EnumValue(el.type) < 0 || EnumValue(el.type) > 7)
      return Corrupt("Parquet schema: leaf '{}' has physical type {}", el.name, EnumValue(el.type));
    LeafInfo leaf;
    leaf.max_def = def;
    leaf.max_rep = rep;
    MapLeaf(el, &leaf);
    out_.leaves.push_back(std::move(leaf));
    return Ok();
  }

  static void MapLeaf(const format::SchemaElement& el, LeafInfo* leaf) {
    using PT = PhysicalType;
    const PT pt = static_cast<PT>(EnumValue(el.type));
    leaf->physical = pt;
    leaf->type_length = el.__isset.type_length ? el.type_length : 0;
    std::string ann;
    auto fail = [&](std::string why) {
      leaf->unsupported = std::move(why);
      leaf->type = BinaryType();
    };
    auto need = [&](bool ok) {
      if (!ok) fail(fmt::format("annotation {} on physical type {}", ann, PhysicalTypeName(pt)));
      return ok;
    };
    auto decimal = [&](int32_t p, int32_t s) {
      ann = fmt::format("DECIMAL({},{})", p, s);
      if (p < 1 || p > 38 || s < 0 || s > p) return fail(fmt::format("unsupported {}", ann));
      bool ok = pt == PT::kInt32 || pt == PT::kInt64 || pt == PT::kByteArray ||
                (pt == PT::kFixedLenByteArray && leaf->type_length >= 1 && leaf->type_length <= 16);
      if (need(ok)) leaf->type = DecimalType(p, s);
    };
    auto timestamp = [&](TimeUnit unit, bool utc, bool legacy) {
      ann = "TIMESTAMP";
      if (!need(pt == PT::kInt64)) return;
      leaf->unit = unit;
      leaf->legacy_timestamp = legacy;
      if (unit == TimeUnit::kNanos) {
        leaf->type = Primitive(utc ? TypeId::kTimestampTzNs : TypeId::kTimestampNs);
      } else {
        leaf->type = utc ? TimestampTzType() : TimestampType();
      }
    };
    auto time = [&](TimeUnit unit) {
      ann = "TIME";
      if (!need(unit == TimeUnit::kMillis ? pt == PT::kInt32 : pt == PT::kInt64)) return;
      leaf->unit = unit;
      leaf->type = TimeType();
    };
    auto integer = [&](int bits, bool is_signed) {
      ann = fmt::format("INT({},{})", bits, is_signed);
      if (bits == 64) {
        if (need(pt == PT::kInt64)) leaf->type = LongType();
      } else if (need(pt == PT::kInt32)) {
        if (bits == 32 && !is_signed) {
          leaf->is_unsigned = true;
          leaf->type = LongType();
        } else {
          leaf->type = IntType();
        }
      }
    };
    auto unit_of = [](const format::TimeUnit& u) {
      return u.__isset.MILLIS  ? TimeUnit::kMillis
             : u.__isset.NANOS ? TimeUnit::kNanos
                               : TimeUnit::kMicros;
    };
    auto string_like = [&](const char* name) {
      ann = name;
      if (need(pt == PT::kByteArray)) leaf->type = StringType();
    };
    if (el.__isset.logicalType && !el.logicalType.__isset.UNKNOWN) {
      const auto& lt = el.logicalType;
      if (lt.__isset.STRING)
        string_like("STRING");
      else if (lt.__isset.ENUM)
        string_like("ENUM");
      else if (lt.__isset.JSON)
        string_like("JSON");
      else if (lt.__isset.BSON) {
        ann = "BSON";
        if (need(pt == PT::kByteArray)) leaf->type = BinaryType();
      } else if (lt.__isset.UUID) {
        ann = "UUID";
        if (need(pt == PT::kFixedLenByteArray && leaf->type_length == 16)) leaf->type = UuidType();
      } else if (lt.__isset.DECIMAL)
        decimal(lt.DECIMAL.precision, lt.DECIMAL.scale);
      else if (lt.__isset.DATE) {
        ann = "DATE";
        if (need(pt == PT::kInt32)) leaf->type = DateType();
      } else if (lt.__isset.TIME)
        time(unit_of(lt.TIME.unit));
      else if (lt.__isset.TIMESTAMP)
        timestamp(unit_of(lt.TIMESTAMP.unit), lt.TIMESTAMP.isAdjustedToUTC, false);
      else if (lt.__isset.INTEGER)
        integer(lt.INTEGER.bitWidth, lt.INTEGER.isSigned);
      else if (lt.__isset.FLOAT16) {
        ann = "FLOAT16";
        if (need(pt == PT::kFixedLenByteArray && leaf->type_length == 2)) {
          leaf->is_float16 = true;
          leaf->type = FloatType();
        }
      } else {
        ann = "unknown logical type";
        fail("unsupported logical type");
      }
    } else if (el.__isset.converted_type) {
      using CT = format::ConvertedType;
      switch (EnumValue(el.converted_type)) {
        case CT::UTF8: string_like("UTF8"); break;
        case CT::ENUM: string_like("ENUM"); break;
        case CT::JSON: string_like("JSON"); break;
        case CT::BSON:
          ann = "BSON";
          if (need(pt == PT::kByteArray)) leaf->type = BinaryType();
          break;
        case CT::DECIMAL: decimal(el.precision, el.scale); break;
        case CT::DATE:
          ann = "DATE";
          if (need(pt == PT::kInt32)) leaf->type = DateType();
          break;
        case CT::TIME_MILLIS: time(TimeUnit::kMillis); break;
        case CT::TIME_MICROS: time(TimeUnit::kMicros); break;
        case CT::TIMESTAMP_MILLIS: timestamp(TimeUnit::kMillis, true, true); break;
        case CT::TIMESTAMP_MICROS: timestamp(TimeUnit::kMicros, true, true); break;
        case CT::UINT_8: integer(8, false); break;
        case CT::UINT_16: integer(16, false); break;
        case CT::UINT_32: integer(32, false); break;
        case CT::UINT_64: integer(64, false); break;
        case CT::INT_8: integer(8, true); break;
        case CT::INT_16: integer(16, true); break;
        case CT::INT_32: integer(32, true); break;
        case CT::INT_64: integer(64, true); break;
        case CT::INTERVAL:
          ann = "INTERVAL";
          if (need(pt == PT::kFixedLenByteArray && leaf->type_length == 12))
            leaf->type = FixedType(12);
          break;
        default:
          ann = "group annotation";
          fail("group annotation on a leaf");
          break;
      }
    }
    if (!leaf->type) {
      switch (pt) {
        case PT::kBoolean: leaf->type = BooleanType(); break;
        case PT::kInt32: leaf->type = IntType(); break;
        case PT::kInt64: leaf->type = LongType(); break;
        case PT::kInt96:
          leaf->is_int96 = true;
          leaf->legacy_timestamp = true;
          leaf->type = TimestampType();
          break;
        case PT::kFloat: leaf->type = FloatType(); break;
        case PT::kDouble: leaf->type = DoubleType(); break;
        case PT::kByteArray: leaf->type = BinaryType(); break;
        case PT::kFixedLenByteArray:
          if (leaf->type_length <= 0) {
            fail(fmt::format("FIXED_LEN_BYTE_ARRAY with length {}", leaf->type_length));
          } else {
            leaf->type = FixedType(leaf->type_length);
          }
          break;
      }
    }
    leaf->annotation = ann.empty() ? PhysicalTypeName(pt) : PhysicalTypeName(pt) + " (" + ann + ")";
  }

  int32_t IdOf(const RawNode& n, bool* has) {
    if (n.el->__isset.field_id) {
      *has = true;
      return n.el->field_id;
    }
    *has = false;
    return next_id_++;
  }

  static std::string Join(const std::string& parent, const std::string& name) {
    return parent.empty() ? name : parent + "." + name;
  }

  void FillPaths(const RawNode& n, std::vector<std::string>* prefix) {
    prefix->push_back(n.el->name);
    if (n.children.empty() && n.is_leaf()) {
      out_.leaves[n.first_leaf].path = *prefix;
    }
    for (const auto& c : n.children) FillPaths(c, prefix);
    prefix->pop_back();
  }

  /// A field for node `n` in a context where slots start at (slot_def, slot_rep).
  Status Convert(const RawNode& n, int16_t slot_def, int16_t slot_rep, const std::string& parent,
                 FileField* f) {
    std::vector<std::string> prefix;
    if (parent.empty()) FillPaths(n, &prefix);
    f->path = Join(parent, n.el->name);
    f->slot_def = slot_def;
    f->slot_rep = slot_rep;
    f->first_leaf = n.first_leaf;
    f->field.name = n.el->name;
    f->field.id = IdOf(n, &f->has_id);
    if (n.repeated()) {
      // An unannotated repeated field: a required list of required elements.
      f->field.required = true;
      f->def_present = static_cast<int16_t>(n.def - 1);
      FileField e;
      FLOE_RETURN_IF_ERROR(ConvertAsElement(n, f->path, false, &e));
      f->field.type = ListType(e.field.id, true, e.field.type);
      f->children.push_back(std::move(e));
      return Ok();
    }
    f->field.required = n.required();
    f->def_present = n.def;
    return ConvertBody(n, f);
  }

  /// The element of a list whose repeated node is `n` itself (2-level forms).
  /// `own_id`: the element takes n's field id (n is the repeated child of a
  /// LIST group); otherwise n's id belongs to the list itself.
  Status ConvertAsElement(const RawNode& n, const std::string& parent, bool own_id, FileField* e) {
    e->path = parent + ".element";
    e->slot_def = n.def;
    e->slot_rep = n.rep;
    e->def_present = n.def;
    e->first_leaf = n.first_leaf;
    e->field.name = "element";
    e->field.required = true;
    if (own_id) {
      e->field.id = IdOf(n, &e->has_id);
    } else {
      e->field.id = next_id_++;
      e->has_id = false;
    }
    return ConvertBody(n, e);
  }

  /// Fills type and children of f from node n (n's own repetition handled by the caller).
  Status ConvertBody(const RawNode& n, FileField* f) {
    if (n.is_leaf() && n.children.empty()) {
      f->leaf = n.first_leaf;
      f->field.type = out_.leaves[n.first_leaf].type;
      return Ok();
    }
    if (n.is_list() && n.children.size() == 1 && n.children[0].repeated()) {
      const RawNode& rp = n.children[0];
      FileField e;
      if ((rp.is_leaf() && rp.children.empty()) || rp.children.size() > 1 ||
          rp.el->name == "array" || rp.el->name == n.el->name + "_tuple") {
        FLOE_RETURN_IF_ERROR(ConvertAsElement(rp, f->path, true, &e));
      } else {
        FLOE_RETURN_IF_ERROR(Convert(rp.children[0], rp.def, rp.rep, f->path, &e));
        e.field.name = "element";
      }
      f->field.type = ListType(e.field.id, e.field.required, e.field.type);
      f->children.push_back(std::move(e));
      return Ok();
    }
    if (n.is_map() && n.children.size() == 1 && n.children[0].repeated() &&
        !n.children[0].children.empty()) {
      const RawNode& kv = n.children[0];
      if (kv.children.size() != 2) {
        return Unsupported("map '{}' has {} fields in its key_value group (need key and value)",
                           f->path, kv.children.size());
      }
      FileField k, v;
      FLOE_RETURN_IF_ERROR(Convert(kv.children[0], kv.def, kv.rep, f->path, &k));
      FLOE_RETURN_IF_ERROR(Convert(kv.children[1], kv.def, kv.rep, f->path, &v));
      k.field.name = "key";
      v.field.name = "value";
      k.path = f->path + ".key";
      v.path = f->path + ".value";
      f->field.type = MapType(k.field.id, k.field.type, v.field.id, v.field.required, v.field.type);
      f->children.push_back(std::move(k));
      f->children.push_back(std::move(v));
      return Ok();
    }
    // A struct (also the fallback for malformed LIST / MAP groups).
    std::vector<NestedField> fields;
    for (const auto& c : n.children) {
      FileField cf;
      FLOE_RETURN_IF_ERROR(Convert(c, f->slot_def, f->slot_rep, f->path, &cf));
      fields.push_back(cf.field);
      f->children.push_back(std::move(cf));
    }
    f->field.type = StructType(std::move(fields));
    return Ok();
  }

  const std::vector<format::SchemaElement>& els_;
  FileSchema out_;
  int32_t max_id_ = 0;
  int32_t next_id_ = 1;
};

}  // namespace

Result<FileSchema> BuildFileSchema(const std::vector<format::SchemaElement>& elements) {
  return Builder(elements).Build();
}

}  // namespace floe::parquet
