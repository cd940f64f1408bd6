// libFuzzer target for the iceberg module's parsers: table metadata JSON,
// schema JSON, JSON and binary single values, transform names. Bad input must
// give an error, never a crash; whatever parses and writes must re-read equal.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "floe/iceberg/table_metadata.h"
#include "floe/iceberg/transform.h"
#include "floe/iceberg/value.h"

using namespace floe;
using namespace floe::iceberg;

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
      if (!again || !(*again == *m) || !CheckV2MetadataJson(*written)) __builtin_trap();
      break;
    }
    case 1: {
      FieldDefaults defaults;
      auto s = SchemaFromJson(text, &defaults);
      if (!s) return 0;
      auto written = SchemaToJson(*s, &defaults);
      if (!written) return 0;
      auto again = SchemaFromJson(*written);
      if (!again || !(*again == *s)) __builtin_trap();
      break;
    }
    case 2: {
      auto v = FromJsonText(*type, text);
      if (!v) return 0;
      auto json = ToJsonText(*type, *v);
      if (!json) return 0;  // e.g. strings that are not UTF-8
      auto again = FromJsonText(*type, *json);
      if (!again) __builtin_trap();
      break;
    }
    default: {
      auto v = FromBinary(*type, text);
      if (v && !v->is_null()) {
        auto bin = ToBinary(*type, *v);
        if (!bin || !FromBinary(*type, *bin)) __builtin_trap();
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
