// The `filesystem` connector (Flink docs: connectors/table/filesystem) for
// local folders of newline-delimited JSON or CSV files:
//  - `path` (required): a folder (every file in it whose name does not start
//    with '.' or '_', as Flink's file source skips hidden files), or a file;
//  - `format` (required): `json` (one object per line; keys that name no
//    column are skipped and missing keys read as null, as Flink's JSON
//    format) or `csv` (no header, fields by position, as Flink's CSV format;
//    `csv.field-delimiter`, default ',').
// Writes go to a new file `part-<uuid>-0-0.<json|csv>` in the folder
// (created when missing), written under a hidden temporary name and
// renamed when the input ends (io/file.h), so a failed INSERT leaves no
// file that readers would see. INSERT OVERWRITE removes the folder's visible files
// when the new one is published. Values are written in floe's canonical
// text forms (types/json_value.h), which the readers read back exactly.
// Partitioned filesystem tables (folders per partition value) are not
// supported yet.
#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "floe/format/format_registry.h"
#include "floe/io/file.h"
#include "floe/sqlengine/builtin_connectors.h"
#include "floe/types/json_value.h"
#include "floe/util/uuid.h"

namespace floe::sqlengine {

namespace {

namespace fs = std::filesystem;

bool Hidden(const fs::path& p) {
  const std::string name = p.filename().string();
  return name.empty() || name[0] == '.' || name[0] == '_';
}

// The files a read covers, in name order (deterministic).
Result<std::vector<std::string>> ListFiles(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return NotFound("filesystem: path '{}' does not exist", path);
  if (fs::is_regular_file(path, ec)) return std::vector<std::string>{path};
  std::vector<std::string> out;
  for (auto it = fs::recursive_directory_iterator(path, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (Hidden(it->path())) {
      if (it->is_directory()) it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file()) out.push_back(it->path().string());
  }
  if (ec) return IoError("filesystem: cannot list '{}': {}", path, ec.message());
  std::sort(out.begin(), out.end());
  return out;
}

class FilesystemSource : public RowSource {
 public:
  FilesystemSource(std::vector<std::string> files, std::string format, SchemaPtr schema,
                   std::vector<int> columns, format::DecodeOptions options)
      : files_(std::move(files)),
        format_(std::move(format)),
        schema_(std::move(schema)),
        columns_(std::move(columns)),
        options_(std::move(options)) {
    std::vector<NestedField> fields;
    for (int c : columns_) fields.push_back(schema_->fields()[c]);
    out_schema_ = std::make_shared<Schema>(std::move(fields));
  }

  Result<bool> Next(Batch* out) override {
    while (true) {
      if (!decoder_) {
        if (next_file_ >= files_.size()) return false;
        current_ = files_[next_file_++];
        auto opened = format::OpenDecoder(format_, schema_, current_, options_);
        if (!opened) return Fail(opened.error().WithContext(current_));
        decoder_ = std::move(*opened);
      }
      Batch b;
      auto more = decoder_->Next(&b);
      if (!more) return Fail(more.error().WithContext(current_));
      if (!*more) {
        decoder_.reset();
        continue;
      }
      if (b.num_rows == 0) continue;
      Batch projected;
      projected.schema = out_schema_;
      projected.num_rows = b.num_rows;
      for (int c : columns_) projected.columns.push_back(std::move(b.columns[c]));
      *out = std::move(projected);
      return true;
    }
  }

 private:
  std::vector<std::string> files_;
  std::string format_;
  SchemaPtr schema_;
  SchemaPtr out_schema_;
  std::vector<int> columns_;
  format::DecodeOptions options_;
  size_t next_file_ = 0;
  std::string current_;
  std::unique_ptr<format::RowDecoder> decoder_;
};

// The CSV text of a value: strings as they are, everything else in its
// canonical JSON form without quotes; quoted when it holds the delimiter, a
// quote or a line break (RFC 4180), and "" for the empty string (an empty
// unquoted field is null).
void AppendCsvField(const ColumnVector& col, int64_t row, char delim, std::string* out) {
  if (col.IsNull(row)) return;
  std::string text;
  if (col.type->id == TypeId::kString) {
    text = std::string(col.bytes(row));
  } else {
    AppendJsonValue(col, row, &text);
    if (text.size() >= 2 && text.front() == '"' && text.back() == '"')
      text = text.substr(1, text.size() - 2);
  }
  if (text.empty() || text.find_first_of(std::string("\"\r\n") + delim) != std::string::npos) {
    out->push_back('"');
    for (char c : text) {
      if (c == '"') out->push_back('"');
      out->push_back(c);
    }
    out->push_back('"');
  } else {
    *out += text;
  }
}

class FilesystemSink : public RowSink {
 public:
  FilesystemSink(std::string dir, std::string format, char delim, bool overwrite)
      : dir_(std::move(dir)), format_(std::move(format)), delim_(delim), overwrite_(overwrite) {
    const std::string name =
        fmt::format("part-{}-0-0.{}", RandomUuid(), format_ == "csv" ? "csv" : "json");
    final_ = (fs::path(dir_) / name).string();
  }
  ~FilesystemSink() override { Abort(); }

  Status Open() {
    std::vector<std::string> created;
    FLOE_RETURN_IF_ERROR(CreateLocalFolders(dir_, &created));
    FLOE_ASSIGN_OR_RETURN(out_, OpenLocalOutput(final_, false));
    return Ok();
  }

  Status Write(Batch&& batch) override {
    for (RowKind k : batch.row_kinds) {
      if (k != RowKind::kInsert) {
        return InvalidArgument(
            "Table sink '{}' doesn't support consuming update and delete changes which is produced "
            "by the query",
            dir_);
      }
    }
    buf_.clear();
    for (int64_t r = 0; r < batch.num_rows; ++r) {
      if (format_ == "csv") {
        for (size_t c = 0; c < batch.columns.size(); ++c) {
          if (c) buf_.push_back(delim_);
          AppendCsvField(batch.columns[c], r, delim_, &buf_);
        }
      } else {
        AppendJsonRow(batch, r, &buf_);
      }
      buf_.push_back('\n');
    }
    return out_->Write(buf_.data(), buf_.size());
  }

  Status Finish() override {
    if (overwrite_) {
      FLOE_ASSIGN_OR_RETURN(auto old, ListFiles(dir_));
      for (const std::string& f : old) {
        std::error_code ec;
        fs::remove(f, ec);
        if (ec)
          return IoError("filesystem: cannot remove '{}' for INSERT OVERWRITE: {}", f,
                         ec.message());
      }
    }
    done_ = true;
    return out_->Commit();
  }

  void Abort() override {
    if (done_) return;
    done_ = true;
    if (out_) out_->Abort();
  }

 private:
  std::string dir_, format_;
  char delim_;
  bool overwrite_;
  std::string final_;
  std::unique_ptr<OutputFile> out_;
  std::string buf_;
  bool done_ = false;
};

class FilesystemConnector : public Connector {
 public:
  std::string identifier() const override { return "filesystem"; }

  Status Validate(const TableHandle& table, bool for_sink) const override {
    FLOE_RETURN_IF_ERROR(CheckConnectorOptions(
        identifier(), table.options, {"connector", "path", "format"}, {"csv.field-delimiter"}));
    if (table.options.at("path").empty()) {
      return InvalidArgument("Option 'path' of table {} is empty", table.FullName());
    }
    const std::string& f = table.options.at("format");
    if (f != "json" && f != "csv") {
      return InvalidArgument(
          "Could not find any format factory for identifier '{}' in floe.\n\nAvailable factory "
          "identifiers are:\n\ncsv\njson",
          f);
    }
    if (auto it = table.options.find("csv.field-delimiter");
        it != table.options.end() && it->second.size() != 1) {
      return InvalidArgument(
          "Option 'csv.field-delimiter' must be a string with single character, but was: {}",
          it->second);
    }
    if (!table.partition_keys.empty()) {
      return Unsupported(
          "filesystem: partitioned tables (PARTITIONED BY) are not supported yet (table {})",
          table.FullName());
    }
    return Ok();
  }

  static format::DecodeOptions Decode(const TableHandle& table) {
    format::DecodeOptions o;
    o.ignore_unknown_keys = true;
    o.csv_header = false;
    if (auto it = table.options.find("csv.field-delimiter"); it != table.options.end())
      o.csv_delimiter = it->second[0];
    return o;
  }

  Result<std::unique_ptr<RowSource>> OpenSource(const TableHandle& table,
                                                const ReadRequest& request,
                                                const EngineContext& ctx) const override {
    FLOE_RETURN_IF_ERROR(Validate(table, false));
    FLOE_ASSIGN_OR_RETURN(auto files, ListFiles(table.options.at("path")));
    const std::string format = table.options.at("format") == "csv" ? "csv" : "jsonl";
    return std::unique_ptr<RowSource>(new FilesystemSource(
        std::move(files), format, table.schema.Physical(), request.columns, Decode(table)));
  }

  Result<std::unique_ptr<RowSink>> OpenSink(const TableHandle& table, const WriteRequest& request,
                                            const EngineContext& ctx) const override {
    FLOE_RETURN_IF_ERROR(Validate(table, true));
    if (request.changelog) {
      return InvalidArgument(
          "Table sink '{}' doesn't support consuming update and delete changes which is produced "
          "by the query",
          table.FullName());
    }
    char delim = ',';
    if (auto it = table.options.find("csv.field-delimiter"); it != table.options.end())
      delim = it->second[0];
    auto sink = std::make_unique<FilesystemSink>(
        table.options.at("path"), table.options.at("format"), delim, request.overwrite);
    FLOE_RETURN_IF_ERROR(sink->Open());
    return std::unique_ptr<RowSink>(std::move(sink));
  }
};

}  // namespace

std::shared_ptr<const Connector> MakeFilesystemConnector() {
  return std::make_shared<FilesystemConnector>();
}

}  // namespace floe::sqlengine
