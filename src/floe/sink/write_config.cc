// WriteConfig: Beam's write configuration from YAML and --set, checked
// through the option registry; Beam's partition/sort field syntax.
#include "floe/sink/write_config.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cctype>

#include "floe/catalog/catalog.h"
#include "floe/config/options.h"
#include "floe/iceberg/transform.h"
#include "floe/util/codec.h"
#include "floe/util/strings.h"

namespace floe::sink {
namespace {

constexpr uint32_t kBeam = uint32_t(config::Scope::kBeam);
constexpr uint32_t kWrite = uint32_t(config::Scope::kWrite);
constexpr uint32_t kTable = uint32_t(config::Scope::kTable);
constexpr uint32_t kCatalog = uint32_t(config::Scope::kCatalog);

std::string Trim(std::string_view s) { return std::string(TrimSpace(s)); }
std::string Lower(std::string_view s) { return ToLower(s); }

// A YAML scalar as text; the error names the key.
Result<std::string> ScalarOf(const YAML::Node& node, std::string_view key, std::string_view origin) {
  if (!node.IsScalar()) {
    return InvalidArgument("{}: '{}' must be a single value", origin, key);
  }
  return node.Scalar();
}

Result<std::vector<std::string>> ListOf(const YAML::Node& node, std::string_view key,
                                        std::string_view origin) {
  if (node.IsScalar()) return SplitTopLevelCommas(node.Scalar());
  if (!node.IsSequence()) return InvalidArgument("{}: '{}' must be a list", origin, key);
  // A flow list splits `[bucket(id, 4), day(ts)]` at every comma, the one
  // inside the parentheses too: the items are joined again and split at the
  // commas outside parentheses.
  std::string joined;
  for (const auto& item : node) {
    if (!item.IsScalar()) return InvalidArgument("{}: every item of '{}' must be a single value", origin, key);
    joined += (joined.empty() ? "" : ", ") + item.Scalar();
  }
  return SplitTopLevelCommas(joined);
}

Result<std::map<std::string, std::string>> MapOf(const YAML::Node& node, std::string_view key,
                                                  std::string_view origin) {
  std::map<std::string, std::string> out;
  if (node.IsNull()) return out;
  if (!node.IsMap()) return InvalidArgument("{}: '{}' must be a map of key: value", origin, key);
  for (const auto& kv : node) {
    if (!kv.first.IsScalar() || !kv.second.IsScalar()) {
      return InvalidArgument("{}: every entry of '{}' must be key: value", origin, key);
    }
    out[kv.first.Scalar()] = kv.second.Scalar();
  }
  return out;
}

Status SetProjection(WriteConfig* c, ProjectionKind kind, std::vector<std::string> fields,
                     std::string_view key, std::string_view origin) {
  if (c->projection.kind != ProjectionKind::kNone && c->projection.kind != kind) {
    return InvalidArgument("{}: '{}' cannot be combined with another of keep, drop, only", origin, key);
  }
  if (fields.empty()) return InvalidArgument("{}: '{}' names no field", origin, key);
  c->projection.kind = kind;
  c->projection.fields = std::move(fields);
  return Ok();
}

// Parses "fn(arg, ...)" into fn and args; a bare name is identity.
struct Call {
  std::string fn;
  std::vector<std::string> args;
};

Result<Call> ParseCall(std::string_view text, std::string_view what) {
  std::string t = Trim(text);
  size_t open = t.find('(');
  if (open == std::string::npos) return Call{"identity", {t}};
  if (t.back() != ')') return InvalidArgument("{} '{}': expected ')' at the end", what, t);
  Call c;
  c.fn = Lower(Trim(std::string_view(t).substr(0, open)));
  c.args = SplitTopLevelCommas(std::string_view(t).substr(open + 1, t.size() - open - 2));
  return c;
}

Result<int32_t> ParsePositiveInt(std::string_view text, std::string_view what) {
  int32_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size() || v <= 0) {
    return InvalidArgument("{}: '{}' is not a positive integer", what, text);
  }
  return v;
}

}  // namespace

std::map<std::string, std::string>* WriteConfig::SinkMap(std::string_view key) {
  namespace k = config::keys;
  if (key == k::kBeamChangeTypeMap.name) return &change_type_map;
  if (key == k::kBeamSnapshotProperties.name) return &snapshot_properties;
  if (key == k::kBeamErrorHandling.name) return &error_handling;
  return nullptr;
}

WriterKind ChooseWriter(const WriteConfig& config, bool change_input) {
  namespace k = config::keys;
  if (change_input || config.table.find('{') != std::string::npos || !config.sink_options.empty() ||
      !config.change_type_map.empty() || !config.snapshot_properties.empty() || !config.error_handling.empty()) {
    return WriterKind::kChangeSink;
  }
  auto given = [&](std::string_view key) -> const std::string* {
    auto it = config.write_properties.find(std::string(key));
    return it == config.write_properties.end() ? nullptr : &it->second;
  };
  // Key columns and upsert are merge-on-read; hash distribution places rows
  // by partition over shards. (distribution-mode=none is a plain append's
  // own layout: one fan-out writer, one file per partition.)
  if (const std::string* upsert = given(k::kUpsertEnabled.name); upsert && EqualsIgnoreCase(*upsert, "true")) {
    return WriterKind::kChangeSink;
  }
  // A dynamic overwrite is the job's (one fan-out writer: a file per partition,
  // which is what hash distribution asks for).
  if (const std::string* ow = given(k::kOverwriteEnabled.name); ow && EqualsIgnoreCase(*ow, "true")) {
    return WriterKind::kAppendJob;
  }
  if (given(k::kEqualityFieldColumns.name)) return WriterKind::kChangeSink;  // refused in mode append, by name
  if (const std::string* dist = given(k::kDistributionMode.name); dist && !EqualsIgnoreCase(*dist, "none")) {
    return WriterKind::kChangeSink;
  }
  return WriterKind::kAppendJob;
}

std::string JoinList(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ",") + item;
  return out;
}

std::vector<std::string> SplitTopLevelCommas(std::string_view text) {
  std::vector<std::string> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || (text[i] == ',' && depth == 0)) {
      std::string item = Trim(text.substr(start, i - start));
      if (!item.empty()) out.push_back(std::move(item));
      start = i + 1;
    } else if (text[i] == '(' || text[i] == '<') {
      ++depth;
    } else if ((text[i] == ')' || text[i] == '>') && depth > 0) {
      --depth;
    }
  }
  return out;
}

Result<WriteConfig> WriteConfig::FromYaml(std::string_view yaml, std::string_view origin) {
  namespace k = config::keys;
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    return InvalidArgument("{}: invalid YAML: {}", origin, e.what());
  }
  WriteConfig c;
  if (root.IsNull()) return c;
  if (!root.IsMap()) return InvalidArgument("{}: expected a YAML map of Beam write configuration keys", origin);
  try {
    // Every key first: unknown ones name themselves and list the Beam names;
    // keys floe does not implement are refused; keep/drop/only conflict.
    std::map<std::string, std::string> keys;
    for (const auto& kv : root) {
      if (!kv.first.IsScalar()) return InvalidArgument("{}: keys must be plain names", origin);
      const std::string key = kv.first.Scalar();
      if (keys.contains(key)) return InvalidArgument("{}: '{}' is given twice", origin, key);
      if (key == "source") {
        // The input of the write (a PostgreSQL source, ...): a map whose
        // values are scalars or lists (joined with commas), read by the source.
        if (!kv.second.IsMap()) return InvalidArgument("{}: 'source' must be a map of key: value", origin);
        for (const auto& sv : kv.second) {
          if (!sv.first.IsScalar()) return InvalidArgument("{}: the keys of 'source' must be plain names", origin);
          FLOE_ASSIGN_OR_RETURN(auto items, ListOf(sv.second, "source." + sv.first.Scalar(), origin));
          c.source[sv.first.Scalar()] = sv.second.IsScalar() ? sv.second.Scalar() : JoinList(items);
        }
        continue;
      }
      keys[key] = kv.second.IsScalar() ? kv.second.Scalar() : std::string();
    }
    for (const auto& [key, text] : keys) {
      const config::OptionDef* def = config::FindOption(key, kBeam);
      if (def == nullptr) FLOE_RETURN_IF_ERROR(config::CheckOptions({{key, text}}, kBeam, origin));
      if (Status st = config::CheckSupport(*def, key, text, config::Use::kJob); !st) {
        return Fail(st.error().WithContext(origin));
      }
      for (std::string_view other : def->conflicts) {
        if (keys.contains(std::string(other))) {
          return InvalidArgument("{}: options {} and {} cannot be used together", origin, key, other);
        }
      }
    }
    for (const auto& kv : root) {
      const std::string key = kv.first.Scalar();
      const YAML::Node& v = kv.second;
      if (key == "source") continue;  // read above
      if (key == k::kBeamTable.name) {
        FLOE_ASSIGN_OR_RETURN(auto name, ScalarOf(v, key, origin));
        FLOE_RETURN_IF_ERROR(c.SetTable(name, origin));
      } else if (key == k::kBeamCatalogName.name) {
        FLOE_ASSIGN_OR_RETURN(c.catalog_name, ScalarOf(v, key, origin));
      } else if (key == k::kBeamCatalogProperties.name) {
        FLOE_ASSIGN_OR_RETURN(c.catalog_properties, MapOf(v, key, origin));
      } else if (key == k::kBeamConfigProperties.name) {
        FLOE_ASSIGN_OR_RETURN(c.config_properties, MapOf(v, key, origin));
      } else if (key == k::kBeamTableProperties.name) {
        FLOE_ASSIGN_OR_RETURN(c.table_properties, MapOf(v, key, origin));
      } else if (key == k::kBeamWriteProperties.name) {
        FLOE_ASSIGN_OR_RETURN(auto m, MapOf(v, key, origin));
        for (auto& [wk, val] : m) c.write_properties[wk] = val;
      } else if (key == k::kBeamPartitionFields.name) {
        FLOE_ASSIGN_OR_RETURN(c.partition_fields, ListOf(v, key, origin));
      } else if (key == k::kBeamSortFields.name) {
        FLOE_ASSIGN_OR_RETURN(c.sort_fields, ListOf(v, key, origin));
      } else if (key == k::kBeamKeep.name || key == k::kBeamDrop.name) {
        FLOE_ASSIGN_OR_RETURN(auto list, ListOf(v, key, origin));
        FLOE_RETURN_IF_ERROR(SetProjection(&c, key == k::kBeamKeep.name ? ProjectionKind::kKeep : ProjectionKind::kDrop,
                                           std::move(list), key, origin));
      } else if (key == k::kBeamOnly.name) {
        FLOE_ASSIGN_OR_RETURN(auto name, ScalarOf(v, key, origin));
        FLOE_RETURN_IF_ERROR(SetProjection(&c, ProjectionKind::kOnly, {Trim(name)}, key, origin));
      } else if (auto* m = c.SinkMap(key)) {
        FLOE_ASSIGN_OR_RETURN(*m, MapOf(v, key, origin));
      } else {
        const config::OptionDef* def = config::FindOption(key, kBeam);
        std::string text;
        if (def->type == config::OptionType::kList) {
          FLOE_ASSIGN_OR_RETURN(auto list, ListOf(v, key, origin));
          text = JoinList(list);
        } else {
          FLOE_ASSIGN_OR_RETURN(text, ScalarOf(v, key, origin));
          if (Status st = config::CheckValue(*def, key, text); !st) return Fail(st.error().WithContext(origin));
        }
        c.sink_options[key] = text;
      }
    }
  } catch (const YAML::Exception& e) {
    return InvalidArgument("{}: invalid YAML: {}", origin, e.what());
  }
  if (Status st = c.Validate(); !st) return Fail(st.error().WithContext(origin));
  return c;
}

Status WriteConfig::SetTable(std::string_view name, std::string_view origin) {
  FLOE_RETURN_IF_ERROR(config::CheckValue(config::Def(config::keys::kBeamTable), config::keys::kBeamTable.name, name));
  if (!table.empty() && table != name) {
    return InvalidArgument("the table is given twice, as '{}' ({}) and as '{}' ({}); give it once", table,
                           table_origin, name, origin);
  }
  table = std::string(name);
  table_origin = std::string(origin);
  return Ok();
}

Status WriteConfig::Set(std::string_view key_view, std::string_view value, std::string_view origin) {
  namespace k = config::keys;
  std::string key(key_view);
  if (const config::OptionDef* beam = config::FindOption(key, kBeam)) {
    if (beam->type == config::OptionType::kMap && Trim(value).starts_with("{")) {
      // `--set error_handling='{output: errors.jsonl}'`: YAML's flow form, read
      // as the same key in --config would be.
      FLOE_ASSIGN_OR_RETURN(WriteConfig one, FromYaml(fmt::format("{}: {}", key, value), fmt::format("{} {}", origin, key)));
      if (auto* m = SinkMap(key)) {
        *m = std::move(*one.SinkMap(key));
      } else if (key == k::kBeamCatalogProperties.name) {
        catalog_properties = std::move(one.catalog_properties);
      } else if (key == k::kBeamConfigProperties.name) {
        config_properties = std::move(one.config_properties);
      } else if (key == k::kBeamTableProperties.name) {
        table_properties = std::move(one.table_properties);
      } else if (key == k::kBeamWriteProperties.name) {
        for (auto& [wk, val] : one.write_properties) write_properties[wk] = std::move(val);
      } else {
        return Internal("{} {}: a map option with no place to go", origin, key);
      }
      return Ok();
    }
    if (auto* m = SinkMap(key)) {
      // `--set change_type_map=c:INSERT,d:DELETE`: entries key:value, comma-separated.
      std::map<std::string, std::string> parsed;
      for (const std::string& item : SplitTopLevelCommas(value)) {
        size_t colon = item.find(':');
        if (colon == std::string::npos || colon == 0) {
          return InvalidArgument("{} {}: '{}' is not key:value (entries are key:value, comma-separated)", origin,
                                 key, item);
        }
        parsed[Trim(std::string_view(item).substr(0, colon))] = Trim(std::string_view(item).substr(colon + 1));
      }
      *m = std::move(parsed);
      return Ok();
    }
    if (beam->type == config::OptionType::kMap) {
      return InvalidArgument("{} '{}': a map; give it in YAML's flow form ({}='{{key: value, ...}}'), in --config "
                             "YAML, or (catalog properties) as --catalog key=value",
                             origin, key, key);
    }
    FLOE_RETURN_IF_ERROR(config::CheckValue(*beam, key, value));
    if (Status st = config::CheckSupport(*beam, key, value, config::Use::kJob); !st) {
      return Fail(st.error().WithContext(origin));
    }
    if (key == k::kBeamTable.name) {
      return SetTable(value, fmt::format("{} {}", origin, key));
    } else if (key == k::kBeamCatalogName.name) {
      catalog_name = std::string(value);
    } else if (key == k::kBeamPartitionFields.name) {
      partition_fields = SplitTopLevelCommas(value);
    } else if (key == k::kBeamSortFields.name) {
      sort_fields = SplitTopLevelCommas(value);
    } else if (key == k::kBeamKeep.name || key == k::kBeamDrop.name) {
      return SetProjection(this, key == k::kBeamKeep.name ? ProjectionKind::kKeep : ProjectionKind::kDrop,
                           SplitTopLevelCommas(value), key, origin);
    } else if (key == k::kBeamOnly.name) {
      return SetProjection(this, ProjectionKind::kOnly, {Trim(value)}, key, origin);
    } else {
      sink_options[key] = beam->type == config::OptionType::kList ? JoinList(SplitTopLevelCommas(value))
                                                                  : std::string(value);
    }
    return Ok();
  }
  const config::OptionDef* def = config::FindOption(key, kWrite | kTable);
  if (def == nullptr) {
    return config::CheckOptions({{key, std::string(value)}}, kBeam | kWrite | kTable, origin);
  }
  FLOE_RETURN_IF_ERROR(config::CheckValue(*def, key, value));
  if (Status st = config::CheckSupport(*def, key, value, config::Use::kJob); !st) {
    return Fail(st.error().WithContext(origin));
  }
  write_properties[key] = std::string(value);
  if ((def->scopes & kWrite) == 0) table_properties[key] = std::string(value);
  return Ok();
}

Status WriteConfig::Validate() const {
  namespace k = config::keys;
  FLOE_RETURN_IF_ERROR(config::CheckOptions(catalog_properties, kCatalog, k::kBeamCatalogProperties.name));
  if (Status st = catalog::CheckCatalogOptions(catalog_name.empty() ? "floe" : catalog_name, catalog_properties); !st) {
    return Fail(st.error().WithContext(k::kBeamCatalogProperties.name));
  }
  FLOE_RETURN_IF_ERROR(
      config::CheckOptions(table_properties, kTable, k::kBeamTableProperties.name, config::Use::kNewTable));
  FLOE_RETURN_IF_ERROR(config::CheckOptions(write_properties, kWrite | kTable, k::kBeamWriteProperties.name));
  // A codec level the codec does not take, when both are given here (a
  // table's own codec is checked when the write opens it, before any input).
  auto given = [&](std::string_view job_key, std::string_view table_key) -> const std::string* {
    for (std::string_view key : {job_key, table_key}) {
      for (const auto* m : {&write_properties, &table_properties}) {
        if (auto it = m->find(std::string(key)); it != m->end()) return &it->second;
      }
    }
    return nullptr;
  };
  const std::string* codec = given(k::kCompressionCodec.name, k::kParquetCompressionCodec.name);
  const std::string* level = given(k::kCompressionLevel.name, k::kParquetCompressionLevel.name);
  if (codec && level) {
    auto c = ParseCodec(*codec);
    int32_t l = 0;
    auto [p, ec] = std::from_chars(level->data(), level->data() + level->size(), l);
    if (c && ec == std::errc() && p == level->data() + level->size()) {  // else: CheckValue names it
      if (Status st = CheckCompressionLevel(*c, l); !st) {
        return InvalidArgument("{} / {}: {}", k::kCompressionLevel.name, k::kParquetCompressionLevel.name,
                               st.error().message);
      }
    }
  }
  // floe reads no Hadoop configuration: a key here would do nothing.
  if (!config_properties.empty()) {
    return Unsupported("{}: '{}' would do nothing: floe uses no Hadoop configuration properties yet "
                       "(S3 is configured with catalog properties: s3.endpoint, s3.access-key-id, ...)",
                       k::kBeamConfigProperties.name, config_properties.begin()->first);
  }
  return Ok();
}

Result<iceberg::PartitionSpec> ParsePartitionFields(const std::vector<std::string>& fields,
                                                    const Schema& schema) {
  iceberg::PartitionSpecBuilder builder(schema);
  for (const std::string& text : fields) {
    const std::string what = "partition field '" + text + "'";
    FLOE_ASSIGN_OR_RETURN(Call call, ParseCall(text, "partition field"));
    auto need_args = [&](size_t n) -> Status {
      if (call.args.size() != n) {
        return InvalidArgument("{}: {}() takes {} argument{}, found {}", what, call.fn, n, n == 1 ? "" : "s",
                               call.args.size());
      }
      return Ok();
    };
    if (call.fn == "identity") {
      FLOE_RETURN_IF_ERROR(need_args(1));
      builder.Identity(call.args[0]);
    } else if (call.fn == "bucket" || call.fn == "truncate") {
      FLOE_RETURN_IF_ERROR(need_args(2));
      FLOE_ASSIGN_OR_RETURN(int32_t n, ParsePositiveInt(call.args[1], what));
      if (call.fn == "bucket") {
        builder.Bucket(call.args[0], n);
      } else {
        builder.Truncate(call.args[0], n);
      }
    } else if (call.fn == "year" || call.fn == "years") {
      FLOE_RETURN_IF_ERROR(need_args(1));
      builder.Year(call.args[0]);
    } else if (call.fn == "month" || call.fn == "months") {
      FLOE_RETURN_IF_ERROR(need_args(1));
      builder.Month(call.args[0]);
    } else if (call.fn == "day" || call.fn == "days") {
      FLOE_RETURN_IF_ERROR(need_args(1));
      builder.Day(call.args[0]);
    } else if (call.fn == "hour" || call.fn == "hours") {
      FLOE_RETURN_IF_ERROR(need_args(1));
      builder.Hour(call.args[0]);
    } else if (call.fn == "void" || call.fn == "alwaysnull") {
      FLOE_RETURN_IF_ERROR(need_args(1));
      builder.Void(call.args[0]);
    } else {
      return InvalidArgument(
          "{}: unknown transform '{}'; valid: col, bucket(col, N), truncate(col, W), year(col), month(col), "
          "day(col), hour(col), void(col)",
          what, call.fn);
    }
  }
  auto spec = builder.Build(0);
  if (!spec) return Fail(spec.error().WithContext(std::string(config::keys::kBeamPartitionFields.name)));
  return spec;
}

Result<iceberg::SortOrder> ParseSortFields(const std::vector<std::string>& fields, const Schema& schema) {
  if (fields.empty()) return iceberg::SortOrder::Unsorted();
  std::vector<iceberg::SortField> out;
  for (const std::string& text : fields) {
    // Words split at blanks outside parentheses: `bucket(id, 4) desc nulls last`.
    std::vector<std::string> words;
    {
      int depth = 0;
      std::string cur;
      for (char ch : text) {
        if (ch == '(') ++depth;
        if (ch == ')' && depth > 0) --depth;
        if (depth == 0 && std::isspace(static_cast<unsigned char>(ch))) {
          if (!cur.empty()) words.push_back(std::move(cur));
          cur.clear();
        } else {
          cur += ch;
        }
      }
      if (!cur.empty()) words.push_back(std::move(cur));
    }
    const std::string what = "sort field '" + text + "'";
    if (words.empty()) return InvalidArgument("{}: an empty sort field", config::keys::kBeamSortFields.name);
    iceberg::SortField f;
    FLOE_ASSIGN_OR_RETURN(Call call, ParseCall(words[0], "sort field"));
    const size_t want_args = call.fn == "bucket" || call.fn == "truncate" ? 2 : 1;
    if (call.args.size() != want_args) {
      return InvalidArgument("{}: {}() takes {} argument{}, found {}", what, call.fn, want_args,
                             want_args == 1 ? "" : "s", call.args.size());
    }
    if (call.fn == "identity") {
      f.transform = iceberg::Transform::Identity();
    } else if (call.fn == "bucket" || call.fn == "truncate") {
      FLOE_ASSIGN_OR_RETURN(int32_t n, ParsePositiveInt(call.args[1], what));
      f.transform = call.fn == "bucket" ? iceberg::Transform::Bucket(n) : iceberg::Transform::Truncate(n);
    } else if (call.fn == "year" || call.fn == "years") {
      f.transform = iceberg::Transform::Year();
    } else if (call.fn == "month" || call.fn == "months") {
      f.transform = iceberg::Transform::Month();
    } else if (call.fn == "day" || call.fn == "days") {
      f.transform = iceberg::Transform::Day();
    } else if (call.fn == "hour" || call.fn == "hours") {
      f.transform = iceberg::Transform::Hour();
    } else {
      return InvalidArgument(
          "{}: unknown transform '{}'; valid: col, bucket(col, N), truncate(col, W), year(col), month(col), "
          "day(col), hour(col)",
          what, call.fn);
    }
    const NestedField* col = schema.FindTopLevel(call.args[0]);
    if (col == nullptr) {
      return InvalidArgument("{}: no column '{}' in the schema", what, call.args[0]);
    }
    f.source_id = col->id;
    size_t w = 1;
    bool explicit_nulls = false;
    if (w < words.size() && (Lower(words[w]) == "asc" || Lower(words[w]) == "desc")) {
      f.direction = Lower(words[w]) == "asc" ? iceberg::SortDirection::kAsc : iceberg::SortDirection::kDesc;
      ++w;
    }
    if (w + 1 < words.size() + 1 && w < words.size() && Lower(words[w]) == "nulls") {
      if (w + 1 >= words.size() || (Lower(words[w + 1]) != "first" && Lower(words[w + 1]) != "last")) {
        return InvalidArgument("{}: expected 'nulls first' or 'nulls last'", what);
      }
      f.null_order = Lower(words[w + 1]) == "first" ? iceberg::NullOrder::kNullsFirst : iceberg::NullOrder::kNullsLast;
      explicit_nulls = true;
      w += 2;
    }
    if (w != words.size()) {
      return InvalidArgument("{}: unexpected '{}'; expected `col [asc|desc] [nulls first|last]`", what, words[w]);
    }
    if (!explicit_nulls) {
      f.null_order = f.direction == iceberg::SortDirection::kAsc ? iceberg::NullOrder::kNullsFirst
                                                                 : iceberg::NullOrder::kNullsLast;
    }
    out.push_back(std::move(f));
  }
  iceberg::SortOrder order(1, std::move(out));
  if (Status st = order.Validate(schema); !st) {
    return Fail(st.error().WithContext(std::string(config::keys::kBeamSortFields.name)));
  }
  return order;
}

}  // namespace floe::sink
