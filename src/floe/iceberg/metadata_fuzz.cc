// libFuzzer target for the iceberg module's parsers: table metadata JSON,
// schema JSON, JSON and binary single values, transform names. Bad input must
// give an error, never a crash; whatever parses and writes must re-read equal
// (the same metadata, schema and defaults, the same value: NaN as NaN, every
// other float bit for bit). Byte 0 picks the mode (low 2 bits) and the type of
// the single-value modes (the rest). Seeds: tests/fuzz_seeds/metadata_fuzz/.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <variant>

#include "floe/iceberg/table_metadata.h"
#include "floe/iceberg/transform.h"
#include "floe/iceberg/value.h"

using namespace floe;
using namespace floe::iceberg;

namespace {

/// Equal values, with any NaN equal to any NaN (Appendix D and the JSON
/// single-value form keep NaN, not its payload).
bool SameValue(const Value& a, const Value& b) {
  if (a == b) return true;
  if (std::holds_alternative<float>(a.v) && std::holds_alternative<float>(b.v)) {
    return std::isnan(a.as_float()) && std::isnan(b.as_float());
  }
  if (std::holds_alternative<double>(a.v) && std::holds_alternative<double>(b.v)) {
    return std::isnan(a.as_double()) && std::isnan(b.as_double());
  }
  return false;
}

/// `type` is the single-value modes' type; nullptr in the metadata mode.
[[noreturn]] void Mismatch(const char* what, const Type* type, std::string_view input,
                           const std::string& out) {
  const std::string type_name = type ? " (type " + type->ToString() + ")" : "";
  std::fprintf(stderr, "metadata_fuzz: %s%s\ninput: %.*s\nwritten: %s\n", what,
               type_name.c_str(), static_cast<int>(input.size()), input.data(), out.c_str());
  std::fflush(stderr);
  __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  static const TypePtr kTypes[] = {BooleanType(), IntType(),  LongType(),     FloatType(),
                                   DoubleType(),  DateType(), TimeType(),     TimestampType(),
                                   TimestampTzType(), Primitive(TypeId::kTimestampNs),
                                   StringType(),  UuidType(), BinaryType(),   FixedType(3),
                                   DecimalType(38, 10), DecimalType(4, 2)};
  const TypePtr& type = kTypes[(mode >> 2) % (sizeof(kTypes) / sizeof(kTypes[0]))];
  switch (mode & 3) {
    case 0: {
      auto m = TableMetadataFromJson(text);
      if (!m) return 0;
      auto written = TableMetadataToJson(*m);
      if (!written) return 0;
      auto again = TableMetadataFromJson(*written);
      if (!again)
        Mismatch(("metadata does not re-read: " + again.error().ToString()).c_str(), nullptr, text,
                 *written);
      if (!(*again == *m)) Mismatch("metadata re-reads as other metadata", nullptr, text, *written);
      if (auto st = CheckV2MetadataJson(*written); !st) {
        Mismatch(("written metadata breaks the v2 rules: " + st.error().ToString()).c_str(), nullptr,
                 text, *written);
      }
      break;
    }
    case 1: {
      FieldDefaults defaults;
      auto s = SchemaFromJson(text, &defaults);
      if (!s) return 0;
      auto written = SchemaToJson(*s, &defaults);
      if (!written) return 0;
      FieldDefaults defaults_again;
      auto again = SchemaFromJson(*written, &defaults_again);
      if (!again || !(*again == *s) || defaults_again != defaults) __builtin_trap();
      break;
    }
    case 2: {
      auto v = FromJsonText(*type, text);
      if (!v) return 0;
      auto json = ToJsonText(*type, *v);
      if (!json) return 0;  // e.g. strings that are not UTF-8
      auto again = FromJsonText(*type, *json);
      if (!again) Mismatch("JSON single value does not re-read", type.get(), text, *json);
      if (!SameValue(*again, *v))
        Mismatch("JSON single value re-reads as another value", type.get(), text, *json);
      break;
    }
    default: {
      auto v = FromBinary(*type, text);
      if (v && !v->is_null()) {
        auto bin = ToBinary(*type, *v);
        if (!bin) Mismatch("binary value does not write", type.get(), text, "");
        auto again = FromBinary(*type, *bin);
        if (!again) Mismatch("binary value does not re-read", type.get(), text, *bin);
        if (!SameValue(*again, *v))
          Mismatch("binary value re-reads as another value", type.get(), text, *bin);
      }
      auto t = Transform::Parse(text, true);
      if (t && !t->is_unknown()) {
        auto rt = t->ResultType(type);
        if (rt && v) (void)t->Apply(type, *v);
      }
      break;
    }
  }
  return 0;
}
