// JSONL decoder (see jsonl_reader.h): finds the lines in the read buffer and
// decodes each in place, the bytes after it serving as simdjson's padding.
// Common flat lines first go through a validating fast path
// (jsonl_fast_path_internal.h) that needs no simdjson stage 1; a line it
// does not accept goes to the simdjson decoder (json_row_decoder_internal.h),
// which also gives every error message.
#include "floe/format/jsonl_reader.h"

#include <cstring>

#include "floe/format/json_row_decoder_internal.h"
#include "floe/format/jsonl_fast_path_internal.h"

namespace floe::format {

class JsonlReader::Impl {
 public:
  Impl(SchemaPtr schema, std::unique_ptr<ByteStream> in, DecodeOptions options)
      : schema_(std::move(schema)),
        in_(std::move(in)),
        options_(std::move(options)),
        num_columns_(schema_->fields().size()),
        decoder_(schema_, options_.ignore_unknown_keys) {
    if (internal::JsonlFastPathEnabled()) fast_ = std::make_unique<JsonlFastPath>(*schema_);
  }

  Result<bool> Next(Batch* batch) {
    if (failed_) return Fail(*failed_);
    if (!batch->schema || batch->schema.get() != schema_.get() ||
        batch->columns.size() != num_columns_) {
      *batch = Batch(schema_);
      ReserveAsLastBatch(batch);
    } else {
      batch->Clear();
    }
    const bool positions = options_.with_positions;
    const bool may_reject = static_cast<bool>(options_.reject);
    int64_t fast_lines = 0;
    while (batch->num_rows < options_.batch_rows) {
      // The fast path, straight from the buffer (it finds the line's end
      // itself). Line 1 always takes the general path (byte order mark).
      bool fast_failed = false;
      if (fast_ && line_no_ > 0) {
        if (fast_skip_ > 0) {
          --fast_skip_;
        } else if (in_->begin() < in_->end()) {
          size_t len;
          if (fast_->Decode(in_->data() + in_->begin(), batch->columns.data(), &len)) {
            in_->Consume(len + 1);
            ++line_no_;
            if (len > options_.max_line_bytes) [[unlikely]] return Remember(TooLong(line_no_));
            if (positions) batch->positions.push_back(line_no_);
            ++batch->num_rows;
            ++rows_;
            ++fast_lines;
            fast_streak_ = 0;
            continue;
          }
          fast_failed = true;
        }
      }
      std::string_view line;
      bool have = false;
      // Find the next complete line in the buffer, reading more as needed.
      while (true) {
        char* base = in_->data();
        size_t b = in_->begin(), e = in_->end();
        const void* nl = b < e ? std::memchr(base + b, '\n', e - b) : nullptr;
        if (nl) {
          size_t n = static_cast<const char*>(nl) - (base + b);
          line = std::string_view(base + b, n);
          in_->Consume(n + 1);
          have = true;
          break;
        }
        // A line cut by the end of the buffer is no reason to avoid the fast path.
        fast_failed = false;
        if (in_->eof()) {
          if (b < e) {
            line = std::string_view(base + b, e - b);
            in_->Consume(e - b);
            have = true;
          }
          break;
        }
        auto filled = in_->Fill();
        if (!filled) return Remember(in_->unit_too_long() ? TooLong(line_no_ + 1) : filled.error());
      }
      if (!have) break;
      if (fast_failed) {
        // Lines the fast path rejects tend to come in runs (a nested column,
        // escapes): after each consecutive rejection skip it for 2^n - 1 lines.
        fast_streak_ = std::min(fast_streak_ + 1, 12);
        fast_skip_ = (1 << fast_streak_) - 1;
      }
      ++line_no_;
      if (line.size() > options_.max_line_bytes) return Remember(TooLong(line_no_));
      if (line_no_ == 1 && line.starts_with("\xef\xbb\xbf")) line.remove_prefix(3);  // UTF-8 BOM
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (IsBlank(line)) continue;
      if (may_reject) mark_.Take(*batch);
      if (!decoder_.DecodeLine(line, batch->columns.data())) {
        FLOE_RETURN_IF_ERROR(RejectOrFail(line, batch));
        continue;
      }
      if (positions) batch->positions.push_back(line_no_);
      ++batch->num_rows;
      ++rows_;
    }
    if (fast_lines) internal::AddJsonlFastPathLines(fast_lines);
    RememberSizes(*batch);
    return batch->num_rows > 0;
  }

  int64_t rows() const { return rows_; }
  int64_t rejected() const { return rejected_; }
  int64_t line() const { return line_no_; }

 private:
  // A fresh batch (the caller moved the last one on, as the sinks do)
  // starts with the capacity the last one's top-level columns ended with,
  // instead of growing to it again (the growth copies were ~4 % of a
  // merge-on-read write).
  void ReserveAsLastBatch(Batch* b) const {
    if (last_.size() != b->columns.size()) return;
    for (size_t i = 0; i < last_.size(); ++i) {
      ColumnVector& c = b->columns[i];
      c.values.Reserve(last_[i].values);
      c.offsets.reserve(last_[i].offsets);
    }
    if (options_.with_positions) b->positions.reserve(last_rows_);
  }
  void RememberSizes(const Batch& b) {
    last_.resize(b.columns.size());
    for (size_t i = 0; i < last_.size(); ++i) {
      last_[i].values = b.columns[i].values.size();
      last_[i].offsets = b.columns[i].offsets.size();
    }
    last_rows_ = static_cast<size_t>(b.num_rows);
  }

  static bool IsBlank(std::string_view s) {
    for (char c : s) {
      if (c != ' ' && c != '\t' && c != '\r') return false;
    }
    return true;
  }

  /// Line `line` over max_line_bytes (found whole, or while its bytes
  /// were still being read): not a row to reject, as memory must stay
  /// bounded whatever the input.
  Error TooLong(int64_t line) const {
    return Error{ErrorKind::kInvalidArgument,
                 fmt::format("line {}: the line is longer than {} bytes (max_line_bytes)", line,
                             options_.max_line_bytes),
                 false};
  }

  std::unexpected<Error> Remember(Error e) {
    failed_ = e;
    return Fail(std::move(e));
  }

  /// The row of `line` failed: takes it out and passes it to `reject`, or
  /// returns the error that stops the reader.
  Status RejectOrFail(std::string_view line, Batch* batch) {
    internal::RowError e = decoder_.TakeError();
    if (!options_.reject || e.fatal) {
      return Remember(Error{ErrorKind::kInvalidArgument, e.Message(line_no_), false});
    }
    mark_.Restore(batch);
    if (Status st = options_.reject(internal::MakeRejectedRow(line_no_, line, e.Reason())); !st) {
      return Remember(std::move(st).error());
    }
    ++rejected_;
    return Ok();
  }

  SchemaPtr schema_;
  std::unique_ptr<ByteStream> in_;
  DecodeOptions options_;
  size_t num_columns_;
  internal::JsonRowDecoder decoder_;
  internal::RowMark mark_;
  int64_t line_no_ = 0;
  int64_t rows_ = 0;
  int64_t rejected_ = 0;
  std::optional<Error> failed_;
  struct ColumnSizes {
    size_t values = 0, offsets = 0;
  };
  std::vector<ColumnSizes> last_;  ///< the last batch's top-level columns, for ReserveAsLastBatch
  size_t last_rows_ = 0;
  std::unique_ptr<JsonlFastPath> fast_;  ///< null when disabled
  int fast_streak_ = 0;                  ///< consecutive lines the fast path rejected
  int fast_skip_ = 0;                    ///< lines left before it is tried again
};


JsonlReader::JsonlReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
JsonlReader::~JsonlReader() = default;

Result<std::unique_ptr<JsonlReader>> JsonlReader::Open(SchemaPtr schema, const std::string& path,
                                                       DecodeOptions options) {
  if (options.batch_rows < 1) return InvalidArgument("batch_rows must be at least 1");
  FLOE_RETURN_IF_ERROR(internal::CheckSimdjsonCpu());
  FLOE_ASSIGN_OR_RETURN(auto in, ByteStream::Open(path, options.chunk_bytes, options.max_line_bytes, options.stdin_fd));
  return std::unique_ptr<JsonlReader>(
      new JsonlReader(std::make_unique<Impl>(std::move(schema), std::move(in), std::move(options))));
}

Result<std::unique_ptr<JsonlReader>> JsonlReader::FromString(SchemaPtr schema, std::string data,
                                                             DecodeOptions options) {
  if (options.batch_rows < 1) return InvalidArgument("batch_rows must be at least 1");
  FLOE_RETURN_IF_ERROR(internal::CheckSimdjsonCpu());
  auto in = ByteStream::FromString(std::move(data));
  in->set_max_unit(options.max_line_bytes);
  return std::unique_ptr<JsonlReader>(
      new JsonlReader(std::make_unique<Impl>(std::move(schema), std::move(in), std::move(options))));
}

Result<bool> JsonlReader::Next(Batch* batch) { return impl_->Next(batch); }
int64_t JsonlReader::rows_read() const { return impl_->rows(); }
int64_t JsonlReader::rows_rejected() const { return impl_->rejected(); }
int64_t JsonlReader::line_number() const { return impl_->line(); }

}  // namespace floe::format
