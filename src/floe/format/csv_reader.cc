// CSV decoder (see csv_reader.h). A record is split into field spans inside
// the read buffer; when the buffer ends mid-record the stream is refilled and
// the record is split again from its start. Quoted fields with doubled quotes
// are unescaped into a scratch string.
#include "floe/format/csv_reader.h"

#include <cstring>
#include <limits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "floe/format/json_row_decoder_internal.h"
#include "floe/format/value_parse.h"
#include "floe/types/json_value.h"

namespace floe::format {
namespace {

struct FieldSpan {
  size_t begin = 0;  // offset of the content (inside quotes for quoted fields)
  size_t size = 0;
  bool quoted = false;
  bool escaped = false;  // contains doubled quotes
};

enum class SplitResult { kRecord, kNeedMore, kEnd };

}  // namespace

class CsvReader::Impl {
 public:
  Impl(SchemaPtr schema, std::unique_ptr<ByteStream> in, DecodeOptions options)
      : schema_(std::move(schema)), in_(std::move(in)), options_(std::move(options)) {}

  Status Init() {
    const auto& fields = schema_->fields();
    std::vector<bool> mapped(fields.size(), false);
    if (options_.csv_header) {
      FLOE_ASSIGN_OR_RETURN(bool have, ReadRecord());
      if (!have) return InvalidArgument("{}: the CSV input is empty (no header record)", in_->name());
      header_line_ = record_line_;
      std::string name;
      for (size_t i = 0; i < spans_.size(); ++i) {
        name = FieldText(spans_[i]);
        if (i == 0 && name.starts_with("\xef\xbb\xbf")) name.erase(0, 3);  // UTF-8 BOM
        int idx = schema_->IndexOf(name);
        if (idx < 0) {
          if (!options_.ignore_unknown_keys) {
            return InvalidArgument("line {}: CSV header names unknown column '{}'", record_line_,
                                   name);
          }
        } else if (mapped[idx]) {
          return InvalidArgument("line {}: CSV header names column '{}' twice", record_line_,
                                 name);
        } else {
          mapped[idx] = true;
        }
        field_to_column_.push_back(idx);
      }
    } else {
      for (size_t i = 0; i < fields.size(); ++i) {
        field_to_column_.push_back(static_cast<int>(i));
        mapped[i] = true;
      }
    }
    for (size_t i = 0; i < fields.size(); ++i) {
      if (mapped[i] && fields[i].type->is_nested()) {
        return InvalidArgument("column '{}': {} cannot be read from CSV (nested types need JSONL)",
                               fields[i].name, SqlTypeName(*fields[i].type));
      }
      if (!mapped[i]) {
        if (fields[i].required) {
          return InvalidArgument("column '{}' is NOT NULL but missing from the CSV header",
                                 fields[i].name);
        }
        unmapped_.push_back(static_cast<int>(i));
      }
    }
    return Ok();
  }

  Result<bool> Next(Batch* batch) {
    if (failed_) return Fail(*failed_);
    if (!batch->schema || batch->schema.get() != schema_.get() ||
        batch->columns.size() != schema_->fields().size()) {
      *batch = Batch(schema_);
    } else {
      batch->Clear();
    }
    const bool may_reject = static_cast<bool>(options_.reject);
    while (batch->num_rows < options_.batch_rows) {
      auto have = ReadRecord();
      if (!have) return Remember(have.error());
      if (!*have) break;
      if (record_size_ > options_.max_line_bytes) {
        // Not a row to reject: memory must stay bounded whatever the input.
        return Remember(Error{ErrorKind::kInvalidArgument,
                              fmt::format("line {}: the record is longer than {} bytes (max_line_bytes)",
                                          record_line_, options_.max_line_bytes),
                              false});
      }
      // A record that is one empty field on a line of its own is a blank line: skip.
      if (spans_.size() == 1 && spans_[0].size == 0 && !spans_[0].quoted &&
          field_to_column_.size() != 1) {
        continue;
      }
      if (spans_.size() != field_to_column_.size()) {
        internal::RowError e;
        e.rule = fmt::format("expected {} fields ({}), found {}", field_to_column_.size(),
                             options_.csv_header ? "as in the header" : "one per schema column",
                             spans_.size());
        FLOE_RETURN_IF_ERROR(RejectOrFail(std::move(e), batch));
        continue;
      }
      if (may_reject) mark_.Take(*batch);
      bool ok = true;
      for (size_t i = 0; i < spans_.size() && ok; ++i) {
        int col = field_to_column_[i];
        if (col < 0) continue;
        if (Status st = DecodeField(spans_[i], col, &batch->columns[col]); !st) {
          FLOE_RETURN_IF_ERROR(RejectOrFail(std::move(row_error_), batch));
          ok = false;
        }
      }
      if (!ok) continue;
      for (int col : unmapped_) batch->columns[col].AppendNull();
      if (options_.with_positions) batch->positions.push_back(record_line_);
      ++batch->num_rows;
      ++rows_;
    }
    return batch->num_rows > 0;
  }

  int64_t rows() const { return rows_; }
  int64_t rejected() const { return rejected_; }

 private:
  /// The current record failed with `e`: takes its row out and passes it to
  /// `reject`, or returns the error that stops the reader.
  Status RejectOrFail(internal::RowError e, Batch* batch) {
    if (!options_.reject) {
      return Remember(Error{ErrorKind::kInvalidArgument, e.Message(record_line_), false});
    }
    mark_.Restore(batch);
    std::string_view text(in_->data() + record_base_, record_size_);
    if (Status st = options_.reject(internal::MakeRejectedRow(record_line_, text, e.Reason())); !st) {
      return Remember(std::move(st).error());
    }
    ++rejected_;
    return Ok();
  }

  std::unexpected<Error> Remember(Error e) {
    failed_ = e;
    return Fail(std::move(e));
  }

  std::string_view Raw(const FieldSpan& f) const {
    return std::string_view(in_->data() + record_base_ + f.begin, f.size);
  }

  /// The field's text, unescaping doubled quotes.
  std::string_view FieldView(const FieldSpan& f) {
    std::string_view raw = Raw(f);
    if (!f.escaped) return raw;
    scratch_.clear();
    for (size_t i = 0; i < raw.size(); ++i) {
      scratch_.push_back(raw[i]);
      if (raw[i] == '"') ++i;  // skip the second quote of a pair
    }
    return scratch_;
  }
  std::string FieldText(const FieldSpan& f) { return std::string(FieldView(f)); }

  /// Records a rule broken by column `col` of the current record (in
  /// row_error_, which the caller reports or rejects) and returns it as an error.
  Status ColumnError(int col, std::string rule) {
    row_error_ = internal::RowError();
    row_error_.column = schema_->fields()[col].name;
    row_error_.rule = std::move(rule);
    return InvalidArgument("{}", row_error_.rule);
  }
  Status ColumnError(int col, const Error& e) { return ColumnError(col, e.message); }

  Status DecodeField(const FieldSpan& f, int col, ColumnVector* out) {
    const NestedField& field = schema_->fields()[col];
    const Type& type = *field.type;
    if (f.size == 0 && (!f.quoted || type.id != TypeId::kString)) {
      if (f.quoted && type.id != TypeId::kBinary) {
        return ColumnError(col, fmt::format("an empty quoted field is not a valid {}",
                                            SqlTypeName(type)));
      }
      if (!f.quoted) {
        if (field.required) {
          return ColumnError(col, "null in NOT NULL column");
        }
        out->AppendNull();
        return Ok();
      }
    }
    std::string_view s = FieldView(f);
    switch (type.id) {
      case TypeId::kBoolean: {
        // The common spellings first; ParseBoolText takes any case and names an error.
        if (s == "true" || s == "false") {
          out->Append<uint8_t>(s.size() == 4 ? 1 : 0);
          return Ok();
        }
        auto r = ParseBoolText(s);
        if (!r) return ColumnError(col, r.error());
        out->Append<uint8_t>(*r ? 1 : 0);
        return Ok();
      }
      case TypeId::kInt:
      case TypeId::kLong: {
        // value_parse.h's fast shapes first (from_chars was ~165 instructions a value); the
        // general parser decides the rest and names errors.
        if (int64_t v; ParseInt64Fast(s, &v)) {
          if (type.id == TypeId::kLong) {
            out->Append<int64_t>(v);
            return Ok();
          }
          if (v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max()) {
            out->Append<int32_t>(static_cast<int32_t>(v));
            return Ok();
          }
        }
        auto r = ParseIntegerText(s, type);
        if (!r) return ColumnError(col, r.error());
        if (type.id == TypeId::kInt) {
          out->Append<int32_t>(static_cast<int32_t>(*r));
        } else {
          out->Append<int64_t>(*r);
        }
        return Ok();
      }
      case TypeId::kFloat: {
        auto r = ParseFloatText(s);
        if (!r) return ColumnError(col, r.error());
        out->Append<float>(*r);
        return Ok();
      }
      case TypeId::kDouble: {
        if (double v; ParseDoubleFast(s, &v)) {
          out->Append<double>(v);
          return Ok();
        }
        auto r = ParseDoubleText(s);
        if (!r) return ColumnError(col, r.error());
        out->Append<double>(*r);
        return Ok();
      }
      case TypeId::kDecimal: {
        auto r = ParseDecimalText(s, type);
        if (!r) return ColumnError(col, r.error());
        out->Append<int128_t>(*r);
        return Ok();
      }
      case TypeId::kDate: {
        auto r = ParseDateText(s);
        if (!r) return ColumnError(col, r.error());
        out->Append<int32_t>(*r);
        return Ok();
      }
      case TypeId::kTime: {
        auto r = ParseTimeText(s);
        if (!r) return ColumnError(col, r.error());
        out->Append<int64_t>(*r);
        return Ok();
      }
      case TypeId::kTimestamp:
      case TypeId::kTimestampTz:
      case TypeId::kTimestampNs:
      case TypeId::kTimestampTzNs: {
        if (int64_t v; ParseTimestampFast(s, type, &date_cache_, &v)) {
          out->Append<int64_t>(v);
          return Ok();
        }
        auto r = ParseTimestampText(s, type, &date_cache_);
        if (!r) return ColumnError(col, r.error());
        out->Append<int64_t>(*r);
        return Ok();
      }
      case TypeId::kString:
        if (!IsValidUtf8(s)) {
          return ColumnError(col, "invalid UTF-8");
        }
        out->AppendBytes(s);
        return Ok();
      case TypeId::kUuid: {
        uint8_t b[16];
        if (auto st = ParseUuidText(s, b); !st) return ColumnError(col, st.error());
        out->AppendBytes(std::string_view(reinterpret_cast<const char*>(b), 16));
        return Ok();
      }
      case TypeId::kFixed:
      case TypeId::kBinary: {
        hex_.clear();
        auto st = ParseHexText(s, type.id == TypeId::kFixed ? type.length : -1, &hex_);
        if (!st) return ColumnError(col, st.error());
        out->AppendBytes(hex_);
        return Ok();
      }
      default:
        return ColumnError(col, fmt::format("{} cannot be read from CSV", SqlTypeName(type)));
    }
  }

  /// Reads the next record into spans_ (offsets relative to record_base_).
  /// Returns false at the end of input.
  Result<bool> ReadRecord() {
    while (true) {
      SplitResult r = Split();
      if (r == SplitResult::kRecord) return true;
      if (r == SplitResult::kEnd) return false;
      if (split_error_) {
        std::string msg = std::move(*split_error_);
        split_error_.reset();
        return InvalidArgument("{}", msg);
      }
      auto more = in_->Fill();
      if (!more && in_->unit_too_long()) {
        return InvalidArgument("line {}: the record is longer than {} bytes (max_line_bytes)", line_ + 1,
                               options_.max_line_bytes);
      }
      if (!more) return Fail(more.error());
      // At EOF Split() treats the remaining bytes as the last record.
    }
  }

  /// Splits one record starting at in_->begin(). kNeedMore when the buffer
  /// ends before the record does (and the input is not at its end).
  SplitResult Split() {
    const char* base = in_->data();
    const size_t start = in_->begin(), end = in_->end();
    const bool eof = in_->eof();
    if (start >= end) return eof ? SplitResult::kEnd : SplitResult::kNeedMore;
    const char delim = options_.csv_delimiter;
    spans_.clear();
    size_t p = start;
    int64_t newlines = 0;
    while (true) {
      FieldSpan f;
      if (p < end && base[p] == '"') {
        f.quoted = true;
        size_t q = p + 1;
        f.begin = q - start;
        while (true) {
          const void* hit = q < end ? std::memchr(base + q, '"', end - q) : nullptr;
          if (!hit) {
            if (!eof) return SplitResult::kNeedMore;
            split_error_ = fmt::format("line {}: malformed CSV (unterminated quoted field)",
                                       line_ + 1);
            return SplitResult::kNeedMore;
          }
          size_t at = static_cast<const char*>(hit) - base;
          for (size_t k = q; k < at; ++k) newlines += base[k] == '\n';
          if (at + 1 < end && base[at + 1] == '"') {
            f.escaped = true;
            q = at + 2;
            continue;
          }
          if (at + 1 >= end && !eof) return SplitResult::kNeedMore;
          f.size = at - (start + f.begin);
          p = at + 1;
          break;
        }
        // After the closing quote: delimiter, line end or input end.
        if (p < end && base[p] != delim && base[p] != '\n' && base[p] != '\r') {
          split_error_ = fmt::format(
              "line {}: malformed CSV (text after the closing quote of field {})",
              line_ + 1 + newlines, spans_.size() + 1);
          return SplitResult::kNeedMore;
        }
      } else {
        f.begin = p - start;
        size_t q = UnquotedFieldEnd(base, p, end, delim);
        if (q >= end && !eof) return SplitResult::kNeedMore;
        size_t stop = q;
        if (stop > p && base[stop - 1] == '\r' && (q >= end || base[q] == '\n')) --stop;
        f.size = stop - p;
        p = q;
      }
      spans_.push_back(f);
      if (p < end && base[p] == delim) {
        ++p;
        continue;
      }
      // Line end (or input end).
      if (p < end && base[p] == '\r') ++p;
      if (p < end && base[p] == '\n') {
        ++p;
      } else if (p < end) {
        continue;
      } else if (!eof) {
        return SplitResult::kNeedMore;
      }
      break;
    }
    record_base_ = start;
    record_size_ = RecordSize(base + start, p - start);
    record_line_ = line_ + 1;
    line_ += 1 + newlines;
    in_->Consume(p - start);
    return SplitResult::kRecord;
  }

  /// The first delimiter or '\n' at or after `q` (`end` when none): 16 bytes a
  /// step where the buffer has them (the byte loop was 12 % of a CSV to
  /// Parquet write's instructions).
  static size_t UnquotedFieldEnd(const char* base, size_t q, size_t end, char delim) {
#if defined(__SSE2__)
    const __m128i d = _mm_set1_epi8(delim), nl = _mm_set1_epi8('\n');
    for (; q + 16 <= end; q += 16) {
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(base + q));
      const unsigned hits =
          static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(x, d), _mm_cmpeq_epi8(x, nl))));
      if (hits != 0) return q + static_cast<size_t>(__builtin_ctz(hits));
    }
#endif
    while (q < end && base[q] != delim && base[q] != '\n') ++q;
    return q;
  }

  /// The bytes of a record without its line terminator.
  static size_t RecordSize(const char* p, size_t n) {
    if (n > 0 && p[n - 1] == '\n') --n;
    if (n > 0 && p[n - 1] == '\r') --n;
    return n;
  }

  SchemaPtr schema_;
  std::unique_ptr<ByteStream> in_;
  DecodeOptions options_;
  std::vector<int> field_to_column_;  // per CSV field: schema column or -1
  std::vector<int> unmapped_;         // schema columns absent from the header
  std::vector<FieldSpan> spans_;
  size_t record_base_ = 0;
  size_t record_size_ = 0;  // bytes of the current record (line terminator excluded)
  int64_t line_ = 0;         // physical lines consumed
  int64_t record_line_ = 0;  // line where the current record starts
  int64_t header_line_ = 0;
  int64_t rows_ = 0;
  int64_t rejected_ = 0;
  internal::RowError row_error_;  // the last field's error
  internal::RowMark mark_;
  std::optional<std::string> split_error_;
  std::optional<Error> failed_;
  std::string scratch_;
  std::string hex_;
  DateCache date_cache_;
};

CsvReader::CsvReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CsvReader::~CsvReader() = default;

Result<std::unique_ptr<CsvReader>> CsvReader::Open(SchemaPtr schema, const std::string& path,
                                                   DecodeOptions options) {
  if (options.batch_rows < 1) return InvalidArgument("batch_rows must be at least 1");
  FLOE_ASSIGN_OR_RETURN(auto in, ByteStream::Open(path, options.chunk_bytes, options.max_line_bytes, options.stdin_fd));
  auto impl = std::make_unique<Impl>(std::move(schema), std::move(in), std::move(options));
  FLOE_RETURN_IF_ERROR(impl->Init());
  return std::unique_ptr<CsvReader>(new CsvReader(std::move(impl)));
}

Result<std::unique_ptr<CsvReader>> CsvReader::FromString(SchemaPtr schema, std::string data,
                                                         DecodeOptions options) {
  if (options.batch_rows < 1) return InvalidArgument("batch_rows must be at least 1");
  auto in = ByteStream::FromString(std::move(data));
  in->set_max_unit(options.max_line_bytes);
  auto impl = std::make_unique<Impl>(std::move(schema), std::move(in), std::move(options));
  FLOE_RETURN_IF_ERROR(impl->Init());
  return std::unique_ptr<CsvReader>(new CsvReader(std::move(impl)));
}

Result<bool> CsvReader::Next(Batch* batch) { return impl_->Next(batch); }
int64_t CsvReader::rows_read() const { return impl_->rows(); }
int64_t CsvReader::rows_rejected() const { return impl_->rejected(); }

}  // namespace floe::format
