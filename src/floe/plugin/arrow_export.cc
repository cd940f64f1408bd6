// Arrow C Data export of floe batches (arrow_export.h has the mapping).

#include "floe/plugin/arrow_export.h"

#include <climits>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace floe::plugin {

namespace {

// A buffer for pointers Arrow wants non-null where floe has no bytes (an
// empty string column's data, the offsets of a default column).
alignas(64) const uint8_t kZeros[64] = {};

const void* OrZeros(const void* p) { return p ? p : kZeros; }

// ---- schemas

struct SchemaPrivate {
  std::string format, name, metadata;
  std::vector<std::unique_ptr<ArrowSchema>> children;
  std::vector<ArrowSchema*> child_ptrs;
  ~SchemaPrivate() {
    for (auto& c : children) {
      if (c->release) c->release(c.get());
    }
  }
};

void ReleaseSchema(ArrowSchema* s) {
  if (!s || !s->release) return;
  delete static_cast<SchemaPrivate*>(s->private_data);
  s->release = nullptr;
}

void AppendInt32(std::string* out, int32_t v) { out->append(reinterpret_cast<const char*>(&v), 4); }

// Arrow's metadata encoding: int32 count, then length-prefixed keys and values.
std::string EncodeMetadata(const std::vector<std::pair<std::string, std::string>>& kv) {
  if (kv.empty()) return "";
  std::string out;
  AppendInt32(&out, static_cast<int32_t>(kv.size()));
  for (const auto& [k, v] : kv) {
    AppendInt32(&out, static_cast<int32_t>(k.size()));
    out += k;
    AppendInt32(&out, static_cast<int32_t>(v.size()));
    out += v;
  }
  return out;
}

std::string FormatOf(const Type& t) {
  switch (t.id) {
    case TypeId::kBoolean: return "b";
    case TypeId::kInt: return "i";
    case TypeId::kLong: return "l";
    case TypeId::kFloat: return "f";
    case TypeId::kDouble: return "g";
    case TypeId::kDecimal: return fmt::format("d:{},{}", t.precision, t.scale);
    case TypeId::kDate: return "tdD";
    case TypeId::kTime: return "ttu";
    case TypeId::kTimestamp: return "tsu:";
    case TypeId::kTimestampTz: return "tsu:UTC";
    case TypeId::kTimestampNs: return "tsn:";
    case TypeId::kTimestampTzNs: return "tsn:UTC";
    case TypeId::kString: return "U";
    case TypeId::kBinary: return "Z";
    case TypeId::kUuid: return "w:16";
    case TypeId::kFixed: return fmt::format("w:{}", t.length);
    case TypeId::kStruct: return "+s";
    case TypeId::kList: return "+L";
    case TypeId::kMap: return "+m";
  }
  return "";
}

void FillSchema(ArrowSchema* out, std::string format, std::string name, int64_t flags,
                std::string metadata, std::unique_ptr<SchemaPrivate> p) {
  p->format = std::move(format);
  p->name = std::move(name);
  p->metadata = std::move(metadata);
  for (auto& c : p->children) p->child_ptrs.push_back(c.get());
  out->format = p->format.c_str();
  out->name = p->name.c_str();
  out->metadata = p->metadata.empty() ? nullptr : p->metadata.data();
  out->flags = flags;
  out->n_children = static_cast<int64_t>(p->children.size());
  out->children = p->child_ptrs.empty() ? nullptr : p->child_ptrs.data();
  out->dictionary = nullptr;
  out->release = ReleaseSchema;
  out->private_data = p.release();
}

void ExportField(const NestedField& f, ArrowSchema* out);

// A schema node of type `t` named `name`.
void ExportType(const Type& t, const std::string& name, int64_t flags,
                std::vector<std::pair<std::string, std::string>> meta, ArrowSchema* out) {
  auto p = std::make_unique<SchemaPrivate>();
  if (t.id == TypeId::kUuid) meta.emplace_back("ARROW:extension:name", "arrow.uuid");
  if (t.id == TypeId::kStruct || t.id == TypeId::kList) {
    for (const auto& child : t.fields) {
      p->children.push_back(std::make_unique<ArrowSchema>());
      ExportField(child, p->children.back().get());
    }
  } else if (t.id == TypeId::kMap) {
    // One non-nullable struct child "entries" holding key and value.
    auto entries = std::make_unique<SchemaPrivate>();
    for (const auto& child : t.fields) {
      entries->children.push_back(std::make_unique<ArrowSchema>());
      ExportField(child, entries->children.back().get());
    }
    p->children.push_back(std::make_unique<ArrowSchema>());
    FillSchema(p->children.back().get(), "+s", "entries", 0, "", std::move(entries));
  }
  FillSchema(out, FormatOf(t), name, flags, EncodeMetadata(meta), std::move(p));
}

void ExportField(const NestedField& f, ArrowSchema* out) {
  std::vector<std::pair<std::string, std::string>> meta;
  if (f.id > 0) meta.emplace_back("PARQUET:field_id", std::to_string(f.id));
  ExportType(*f.type, f.name, f.required ? 0 : ARROW_FLAG_NULLABLE, std::move(meta), out);
}

// ---- arrays

struct ArrayPrivate {
  std::vector<const void*> buffers;
  std::vector<std::vector<uint8_t>> owned;  // converted buffers (bitmaps, booleans)
  std::vector<int32_t> offsets32;           // map offsets
  std::vector<std::unique_ptr<ArrowArray>> children;
  std::vector<ArrowArray*> child_ptrs;
  // Children released with their parent (and on a failed export).
  ~ArrayPrivate() {
    for (auto& c : children) {
      if (c->release) c->release(c.get());
    }
  }
};

void ReleaseArray(ArrowArray* a) {
  if (!a || !a->release) return;
  delete static_cast<ArrayPrivate*>(a->private_data);
  a->release = nullptr;
}

// Packs bytes (0 / non-0) into an LSB-first bitmap.
std::vector<uint8_t> PackBits(const uint8_t* bytes, int64_t n) {
  std::vector<uint8_t> bits(static_cast<size_t>((n + 7) / 8), 0);
  for (int64_t i = 0; i < n; ++i) {
    if (bytes[i]) bits[static_cast<size_t>(i >> 3)] |= static_cast<uint8_t>(1u << (i & 7));
  }
  return bits;
}

void Finish(ArrowArray* out, int64_t length, int64_t null_count, std::unique_ptr<ArrayPrivate> p) {
  for (auto& c : p->children) p->child_ptrs.push_back(c.get());
  out->length = length;
  out->null_count = null_count;
  out->offset = 0;
  out->n_buffers = static_cast<int64_t>(p->buffers.size());
  out->n_children = static_cast<int64_t>(p->children.size());
  out->buffers = p->buffers.data();
  out->children = p->child_ptrs.empty() ? nullptr : p->child_ptrs.data();
  out->dictionary = nullptr;
  out->release = ReleaseArray;
  out->private_data = p.release();
}

Status ExportColumn(const ColumnVector& c, ArrowArray* out) {
  auto p = std::make_unique<ArrayPrivate>();
  const int64_t n = c.length;
  int64_t nulls = 0;
  if (c.has_nulls()) {
    if (static_cast<int64_t>(c.validity.size()) < n) {
      return Internal("arrow export: a {} column has {} validity bytes for {} rows",
                      c.type->ToString(), c.validity.size(), n);
    }
    nulls = c.null_count();
  }
  if (nulls > 0) {
    p->owned.push_back(PackBits(c.validity.data(), n));
    p->buffers.push_back(p->owned.back().data());
  } else {
    p->buffers.push_back(nullptr);
  }
  auto offsets = [&]() -> const void* {
    return c.offsets.empty() ? static_cast<const void*>(kZeros) : c.offsets.data();
  };
  switch (c.type->id) {
    case TypeId::kBoolean:
      p->owned.push_back(PackBits(c.values.data(), n));
      p->buffers.push_back(OrZeros(p->owned.back().data()));
      break;
    case TypeId::kInt:
    case TypeId::kLong:
    case TypeId::kFloat:
    case TypeId::kDouble:
    case TypeId::kDecimal:
    case TypeId::kDate:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
    case TypeId::kUuid:
    case TypeId::kFixed: p->buffers.push_back(OrZeros(c.values.data())); break;
    case TypeId::kString:
    case TypeId::kBinary:
      p->buffers.push_back(offsets());
      p->buffers.push_back(OrZeros(c.values.data()));
      break;
    case TypeId::kStruct:
      for (const auto& child : c.children) {
        p->children.push_back(std::make_unique<ArrowArray>());
        FLOE_RETURN_IF_ERROR(ExportColumn(child, p->children.back().get()));
      }
      break;
    case TypeId::kList:
      p->buffers.push_back(offsets());
      p->children.push_back(std::make_unique<ArrowArray>());
      FLOE_RETURN_IF_ERROR(ExportColumn(c.children.at(0), p->children.back().get()));
      break;
    case TypeId::kMap: {
      // Arrow maps have int32 offsets only.
      p->offsets32.reserve(c.offsets.size());
      for (int64_t o : c.offsets) {
        if (o > INT32_MAX) {
          return Unsupported(
              "arrow export: a map column holds {} entries in one batch, more than an Arrow map's "
              "int32 offsets reach",
              o);
        }
        p->offsets32.push_back(static_cast<int32_t>(o));
      }
      p->buffers.push_back(p->offsets32.empty() ? kZeros
                                                : static_cast<const void*>(p->offsets32.data()));
      auto entries = std::make_unique<ArrayPrivate>();
      entries->buffers.push_back(nullptr);
      for (const auto& child : c.children) {
        entries->children.push_back(std::make_unique<ArrowArray>());
        FLOE_RETURN_IF_ERROR(ExportColumn(child, entries->children.back().get()));
      }
      int64_t entry_count = c.children.empty() ? 0 : c.children[0].length;
      p->children.push_back(std::make_unique<ArrowArray>());
      Finish(p->children.back().get(), entry_count, 0, std::move(entries));
      break;
    }
  }
  Finish(out, n, nulls, std::move(p));
  return Ok();
}

}  // namespace

Status ExportSchema(const Schema& schema, ArrowSchema* out) {
  ExportType(*schema.AsStruct(), "", 0, {}, out);
  return Ok();
}

Status ExportBatch(const Batch& batch, ArrowArray* out) {
  auto p = std::make_unique<ArrayPrivate>();
  p->buffers.push_back(nullptr);
  if (batch.schema && static_cast<size_t>(batch.schema->num_fields()) != batch.columns.size()) {
    return Internal("arrow export: the batch has {} columns for a schema of {} fields",
                    batch.columns.size(), batch.schema->num_fields());
  }
  for (const auto& c : batch.columns) {
    if (c.length != batch.num_rows) {
      return Internal("arrow export: a column has {} rows in a batch of {}", c.length,
                      batch.num_rows);
    }
    p->children.push_back(std::make_unique<ArrowArray>());
    FLOE_RETURN_IF_ERROR(ExportColumn(c, p->children.back().get()));
  }
  Finish(out, batch.num_rows, 0, std::move(p));
  return Ok();
}

}  // namespace floe::plugin
