// Debezium JSON decoder (see debezium_reader.h). Each line is parsed once by
// simdjson (stage 1) in place in the read buffer; the On-Demand document is
// then walked several times, rewinding in between, because the keys of an
// event come in any order while the decoder needs `op` and the sequence value
// before it knows which images to decode: op, sequence value, images, then a
// last pass that checks nothing follows the event. The images go through the
// JSONL decoder's JsonRowDecoder, so values follow exactly the JSONL rules.
#include "floe/format/debezium_reader.h"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "floe/format/byte_stream.h"
#include "floe/format/json_row_decoder_internal.h"
#include "floe/format/json_syntax_internal.h"

namespace floe::format {

namespace od = simdjson::ondemand;
using internal::JsonTypeName;

namespace {


std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' ||
                        s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

/// `s` for a message: at most 40 bytes, then "...".
std::string Shown(std::string_view s) {
  return s.size() > 40 ? std::string(s.substr(0, 37)) + "..." : std::string(s);
}

/// The parts of a dotted path ("source.lsn" -> source, lsn); empty on an
/// empty part.
std::vector<std::string> SplitPath(std::string_view path) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dot = path.find('.', start);
    std::string_view part = path.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (part.empty()) return {};
    parts.emplace_back(part);
    if (dot == std::string_view::npos) return parts;
    start = dot + 1;
  }
}

enum class Op { kCreate, kRead, kUpdate, kDelete, kTransaction };

const char* OpName(Op op) {
  switch (op) {
    case Op::kCreate: return "create";
    case Op::kRead: return "read";
    case Op::kUpdate: return "update";
    case Op::kDelete: return "delete";
    case Op::kTransaction: return "transaction";
  }
  return "change";
}

}  // namespace

class DebeziumReader::Impl {
 public:
  Impl(SchemaPtr schema, std::unique_ptr<ByteStream> in, DecodeOptions options,
       std::vector<std::string> sequence_path)
      : schema_(std::move(schema)),
        in_(std::move(in)),
        options_(std::move(options)),
        sequence_path_(std::move(sequence_path)),
        rows_decoder_(schema_, options_.ignore_unknown_keys) {
    rows_decoder_.EnableDebezium();
  }

  Result<bool> Next(Batch* batch) {
    if (failed_) return Fail(*failed_);
    if (!batch->schema || batch->schema.get() != schema_.get() ||
        batch->columns.size() != schema_->fields().size()) {
      *batch = Batch(schema_);
    } else {
      batch->Clear();
    }
    while (batch->num_rows < options_.batch_rows) {
      FLOE_ASSIGN_OR_RETURN(auto line, NextLine());
      if (!line) break;
      mark_.Take(*batch);
      if (!DecodeEvent(*line, batch)) FLOE_RETURN_IF_ERROR(RejectOrFail(*line, batch));
    }
    return batch->num_rows > 0;
  }

  int64_t rows() const { return rows_; }
  int64_t events() const { return events_; }
  int64_t rejected() const { return rejected_; }
  int64_t tombstones() const { return tombstones_; }
  int64_t transactions() const { return transactions_; }
  int64_t line() const { return line_no_; }

 private:
  std::unexpected<Error> Remember(Error e) {
    failed_ = e;
    return Fail(std::move(e));
  }

  /// Line `line` over max_line_bytes (found whole, or while it was read).
  Error TooLong(int64_t line) const {
    return Error{ErrorKind::kInvalidArgument,
                 fmt::format("line {}: the line is longer than {} bytes (max_line_bytes)", line,
                             options_.max_line_bytes),
                 false};
  }

  /// The next line that is not blank (BOM and CR removed), nullopt at the end.
  Result<std::optional<std::string_view>> NextLine() {
    while (true) {
      std::string_view line;
      bool have = false;
      while (true) {
        char* base = in_->data();
        const size_t b = in_->begin(), e = in_->end();
        const void* nl = b < e ? std::memchr(base + b, '\n', e - b) : nullptr;
        if (nl) {
          const size_t n = static_cast<size_t>(static_cast<const char*>(nl) - (base + b));
          line = std::string_view(base + b, n);
          in_->Consume(n + 1);
          have = true;
          break;
        }
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
      if (!have) return std::nullopt;
      ++line_no_;
      // Not an event to reject: memory must stay bounded whatever the input.
      if (line.size() > options_.max_line_bytes) return Remember(TooLong(line_no_));
      if (line_no_ == 1 && line.starts_with("\xef\xbb\xbf")) line.remove_prefix(3);  // UTF-8 BOM
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (Trim(line).empty()) continue;
      return line;
    }
  }

  /// The event of `line` failed: takes its rows out and passes it to
  /// `reject`, or returns the error that stops the reader.
  Status RejectOrFail(std::string_view line, Batch* batch) {
    internal::RowError e = rows_decoder_.TakeError();
    e.image = std::move(image_);
    image_.clear();
    // A line that is not JSON is reported as such, wherever the walk through
    // it stopped (On-Demand parsing finds some damage only where it looks).
    if (!e.rule.starts_with("not valid JSON") && internal::FindJsonSyntaxError(line)) {
      rows_decoder_.SetLine(line);
      rows_decoder_.FailJson(simdjson::TAPE_ERROR);
      e = rows_decoder_.TakeError();
    }
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

  bool Rule(std::string rule) { return rows_decoder_.Fail(std::move(rule)); }
  bool JsonError(simdjson::error_code code) {
    if (code == simdjson::UTF8_ERROR) return rows_decoder_.FailBadUtf8();
    return rows_decoder_.FailJson(code);
  }

  /// Decodes one change event into `batch` (nothing for a tombstone). False
  /// on an error, kept in rows_decoder_ (and image_ when inside an image).
  bool DecodeEvent(std::string_view line, Batch* batch) {
    line_ = line;
    rows_decoder_.SetLine(line);
    simdjson::padded_string_view view(line.data(), line.size(), line.size() + ByteStream::kPadding);
    od::document doc;
    auto err = parser_.iterate(view).get(doc);
    if (err) return JsonError(err);
    od::json_type jt;
    if ((err = doc.type().get(jt))) return JsonError(err);
    if (jt != od::json_type::object) {
      // type() looks at the first byte only: 'nul' would be "null".
      if (internal::FindJsonSyntaxError(line)) return JsonError(simdjson::TAPE_ERROR);
      if (jt == od::json_type::null) {
        ++tombstones_;  // a Kafka tombstone (the key's value deleted)
        return true;
      }
      return Rule(fmt::format("expected a JSON object (a Debezium change event), found {}",
                              JsonTypeName(jt)));
    }

    // Schema-wrapped? {"schema": ..., "payload": <event>}. The converter
    // writes one of these two keys first, an event never does: looking at the
    // first key spares plain events a search through all their keys.
    wrapped_ = false;
    if (!FirstKeyIsWrapper(doc, &err)) {
      if (err) return JsonError(err);
    } else {
      doc.rewind();
      od::object top;
      if ((err = doc.get_object().get(top))) return JsonError(err);
      od::value payload;
      err = top.find_field_unordered("payload").get(payload);
      if (err == simdjson::SUCCESS) {
        if ((err = payload.type().get(jt))) return JsonError(err);
        if (jt == od::json_type::null) {
          if (!CheckWhole(doc)) return false;
          ++tombstones_;  // a null value with its schema: a tombstone too
          return true;
        }
        if (jt != od::json_type::object) {
          return Rule(fmt::format("'payload' must be an object (a change event), found {}",
                                  JsonTypeName(jt)));
        }
        wrapped_ = true;
      } else if (err == simdjson::NO_SUCH_FIELD) {
        wrapped_ = false;
      } else {
        return JsonError(err);
      }
    }
    if (wrapped_) {
      if (!ReadSchema(doc)) return false;
    } else if (!schema_text_.empty()) {
      // An event without its schema: the column types' defaults again.
      schema_text_.clear();
      schema_error_.clear();
      rows_decoder_.ResetEncodings();
    }

    Op op = Op::kCreate;
    if (!ReadOp(doc, &op)) return false;
    if (op == Op::kTransaction) {
      if (!CheckWhole(doc)) return false;
      ++transactions_;  // transaction metadata (BEGIN / END): not a change
      return true;
    }
    if (!schema_error_.empty()) return Rule(schema_error_);
    int64_t seq = 0;
    if (!ReadSequence(doc, &seq)) return false;

    bool present = false;
    if (op == Op::kDelete) {
      if (!DecodeImage(doc, "before", RowKind::kDelete, seq, batch, &present)) return false;
      if (!present) {
        return Rule("delete event has no 'before' image: the source table needs REPLICA "
                    "IDENTITY FULL (or a key)");
      }
    } else {
      if (op == Op::kUpdate &&
          !DecodeImage(doc, "before", RowKind::kUpdateBefore, seq, batch, &present)) {
        return false;
      }
      const RowKind kind = op == Op::kUpdate ? RowKind::kUpdateAfter : RowKind::kInsert;
      if (!DecodeImage(doc, "after", kind, seq, batch, &present)) return false;
      if (!present) return Rule(fmt::format("{} event has no 'after' image", OpName(op)));
    }
    if (!CheckWhole(doc)) return false;
    ++events_;
    return true;
  }

  /// Whether the first key of the document's object is "schema" or "payload"
  /// (`*err` set on a JSON error).
  bool FirstKeyIsWrapper(od::document& doc, simdjson::error_code* err) {
    *err = simdjson::SUCCESS;
    od::object top;
    if ((*err = doc.get_object().get(top))) return false;
    for (auto field : top) {
      if ((*err = field.error())) return false;
      od::raw_json_string key = field.value_unsafe().key();
      return key == "schema" || key == "payload";
    }
    return false;
  }

  /// Positions `env` on the change event (the payload when wrapped), from the
  /// start of the document.
  simdjson::error_code Envelope(od::document& doc, od::object& env) {
    doc.rewind();
    if (!wrapped_) return doc.get_object().get(env);
    od::object top;
    if (auto err = doc.get_object().get(top)) return err;
    return top.find_field_unordered("payload").get_object().get(env);
  }

  bool ReadOp(od::document& doc, Op* op) {
    od::object env;
    if (auto err = Envelope(doc, env)) return JsonError(err);
    od::value v;
    auto err = env.find_field_unordered("op").get(v);
    if (err == simdjson::NO_SUCH_FIELD) {
      if (IsTransactionMetadata(doc)) {
        *op = Op::kTransaction;
        return true;
      }
      return Rule("the event has no 'op' (expected c, r, u or d)");
    }
    if (err) return JsonError(err);
    od::json_type jt;
    if ((err = v.type().get(jt))) return JsonError(err);
    if (jt != od::json_type::string) {
      return Rule(fmt::format("'op' must be a string (c, r, u or d), found {}", JsonTypeName(jt)));
    }
    std::string_view s;
    if ((err = v.get_string().get(s))) return JsonError(err);
    if (s == "c") {
      *op = Op::kCreate;
    } else if (s == "r") {
      *op = Op::kRead;
    } else if (s == "u") {
      *op = Op::kUpdate;
    } else if (s == "d") {
      *op = Op::kDelete;
    } else if (s == "t") {
      return Rule(
          "truncate event (op 't'): floe does not apply truncates (a truncate is no row change; "
          "filter them at the connector with skipped.operations=t, or pass them to the error "
          "output)");
    } else {
      return Rule(fmt::format("unknown op '{}' (expected c, r, u or d)", Shown(s)));
    }
    return true;
  }

  /// Whether the event is Debezium's transaction metadata ({"status":"BEGIN"
  /// or "END","id":...}, provide.transaction.metadata), which has no op.
  bool IsTransactionMetadata(od::document& doc) {
    od::object env;
    if (Envelope(doc, env)) return false;
    std::string_view status;
    if (env.find_field_unordered("status").get_string().get(status)) return false;
    if (status != "BEGIN" && status != "END") return false;
    if (Envelope(doc, env)) return false;
    od::value id;
    return env.find_field_unordered("id").get(id) == simdjson::SUCCESS;
  }

  /// Reads the envelope's `schema` (Kafka Connect's JSON schema of the event)
  /// and sets each column's encoding from the field of the `after` (or
  /// `before`) struct of its name; the same schema text as the event before
  /// reuses what was read then.
  bool ReadSchema(od::document& doc) {
    doc.rewind();
    od::object top;
    auto err = doc.get_object().get(top);
    if (err) return JsonError(err);
    od::value sv;
    err = top.find_field_unordered("schema").get(sv);
    std::string_view text;
    if (err == simdjson::SUCCESS) {
      od::json_type jt;
      if ((err = sv.type().get(jt))) return JsonError(err);
      if (jt == od::json_type::object) {
        od::object so;
        if ((err = sv.get_object().get(so))) return JsonError(err);
        if ((err = so.raw_json().get(text))) return JsonError(err);
      } else if (jt != od::json_type::null) {
        return Rule(fmt::format("'schema' must be an object (Kafka Connect's schema of the event), found {}",
                                JsonTypeName(jt)));
      }
    } else if (err != simdjson::NO_SUCH_FIELD) {
      return JsonError(err);
    }
    text = Trim(text);
    if (text == schema_text_) return true;
    schema_text_.assign(text);
    schema_error_.clear();
    rows_decoder_.ResetEncodings();
    if (text.empty()) return true;
    if (ApplySchema()) return true;
    // A schema that could not be read is not remembered: the next event with
    // the same text fails the same way (a rejected event leaves no trace).
    schema_text_.clear();
    schema_error_.clear();
    rows_decoder_.ResetEncodings();
    return false;
  }

  /// Sets the encodings from schema_text_ (a DOM parse: schemas change rarely).
  bool ApplySchema() {
    simdjson::padded_string padded(schema_text_);
    simdjson::dom::element root;
    if (auto err = dom_parser_.parse(padded).get(root)) return JsonError(err);
    simdjson::dom::array fields;
    if (root["fields"].get_array().get(fields)) return true;  // no fields described
    simdjson::dom::array image;
    bool found = false;
    for (const char* name : {"after", "before"}) {
      for (simdjson::dom::element f : fields) {
        std::string_view fname;
        if (f["field"].get_string().get(fname) || fname != name) continue;
        if (f["fields"].get_array().get(image)) continue;
        found = true;
        break;
      }
      if (found) break;
    }
    if (!found) return true;
    for (simdjson::dom::element f : image) {
      std::string_view field, type, semantic;
      if (f["field"].get_string().get(field)) continue;
      if (f["type"].get_string().get(type)) type = {};
      if (f["name"].get_string().get(semantic)) semantic = {};
      const int column = schema_->IndexOf(field);
      if (column < 0) {
        if (options_.ignore_unknown_keys) continue;
        schema_error_ = fmt::format(
            "the event's schema has a column '{}' that the table lacks: floe does not evolve the "
            "table's schema from a change stream yet (add the column to the table, or set "
            "ignore_unknown_keys to drop it)",
            Shown(field));
        return true;
      }
      internal::DebeziumEncoding e;
      using Strings = internal::DebeziumEncoding::Strings;
      constexpr int64_t kMs = 1000000, kUs = 1000, kNs = 1, kDay = int64_t{86400} * 1000000000;
      if (semantic == "io.debezium.time.Date" || semantic == "org.apache.kafka.connect.data.Date") {
        e.unit_ns = kDay;
      } else if (semantic == "io.debezium.time.Time" ||
                 semantic == "org.apache.kafka.connect.data.Time" ||
                 semantic == "io.debezium.time.Timestamp" ||
                 semantic == "org.apache.kafka.connect.data.Timestamp") {
        e.unit_ns = kMs;
      } else if (semantic == "io.debezium.time.MicroTime" ||
                 semantic == "io.debezium.time.MicroTimestamp") {
        e.unit_ns = kUs;
      } else if (semantic == "io.debezium.time.NanoTime" ||
                 semantic == "io.debezium.time.NanoTimestamp") {
        e.unit_ns = kNs;
      } else if (semantic == "org.apache.kafka.connect.data.Decimal") {
        e.strings = Strings::kBase64;
        std::string_view scale;
        simdjson::dom::element params;
        if (!f["parameters"].get(params)) {
          int64_t n = 0;
          if (!params["scale"].get_string().get(scale)) {
            auto [p, ec] = std::from_chars(scale.data(), scale.data() + scale.size(), n);
            if (ec != std::errc() || p != scale.data() + scale.size() || n < 0 || n > 1000) {
              return Rule(fmt::format("column '{}': the schema's Decimal scale '{}' is not a scale",
                                      Shown(field), Shown(scale)));
            }
            e.decimal_scale = static_cast<int32_t>(n);
          } else if (!params["scale"].get_int64().get(n)) {
            e.decimal_scale = static_cast<int32_t>(std::clamp<int64_t>(n, 0, 1000));
          }
        }
      } else if (type == "bytes") {
        e.strings = Strings::kBase64;  // bytes, io.debezium.data.Bits
      } else if (type == "string") {
        e.strings = Strings::kText;    // decimal.handling.mode=string, binary as hex, ISO text
      }
      rows_decoder_.SetEncoding(static_cast<size_t>(column), e);
    }
    return true;
  }

  bool ReadSequence(od::document& doc, int64_t* seq) {
    const std::string& path = options_.sequence_path;
    od::object obj;
    if (auto err = Envelope(doc, obj)) return JsonError(err);
    std::string where = "the event";
    for (size_t i = 0; i < sequence_path_.size(); ++i) {
      const std::string& part = sequence_path_[i];
      od::value v;
      auto err = obj.find_field_unordered(part).get(v);
      if (err == simdjson::NO_SUCH_FIELD) {
        return Rule(fmt::format("missing sequence value '{}' (sequence_path): {} has no '{}'", path,
                                where, part));
      }
      if (err) return JsonError(err);
      od::json_type jt;
      if ((err = v.type().get(jt))) return JsonError(err);
      if (jt == od::json_type::null) {
        return Rule(fmt::format("missing sequence value '{}' (sequence_path): '{}' is null", path,
                                part));
      }
      if (i + 1 < sequence_path_.size()) {
        if (jt != od::json_type::object) {
          return Rule(fmt::format("sequence value '{}' (sequence_path): '{}' is {}, not an object",
                                  path, part, JsonTypeName(jt)));
        }
        if ((err = v.get_object().get(obj))) return JsonError(err);
        where = "'" + part + "'";
        continue;
      }
      return SequenceValue(v, jt, seq);
    }
    return Rule("sequence_path is empty");  // refused at Open
  }

  /// The sequence number from its JSON value: an integer, or a string of digits.
  bool SequenceValue(od::value& v, od::json_type jt, int64_t* seq) {
    const std::string& path = options_.sequence_path;
    std::string_view digits;
    if (jt == od::json_type::number) {
      std::string_view raw = Trim(v.raw_json_token());
      if (internal::LeadingZeroError(raw)) return JsonError(simdjson::NUMBER_ERROR);
      if (v.get_int64().get(*seq) == simdjson::SUCCESS) return true;
      if (raw.find_first_of(".eE") != std::string_view::npos) {
        return Rule(fmt::format("sequence value '{}' (sequence_path) must be an integer, found {}",
                                path, Shown(raw)));
      }
      digits = raw;
    } else if (jt == od::json_type::string) {
      if (auto err = v.get_string().get(digits)) return JsonError(err);
      if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos) {
        return Rule(fmt::format(
            "sequence value '{}' (sequence_path) must be an integer or a string of digits, found "
            "\"{}\"",
            path, Shown(digits)));
      }
    } else {
      return Rule(fmt::format("sequence value '{}' (sequence_path) must be an integer, found {}",
                              path, JsonTypeName(jt)));
    }
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), *seq);
    if (ec == std::errc() && end == digits.data() + digits.size()) return true;
    if (ec == std::errc::result_out_of_range) {
      return Rule(fmt::format("sequence value '{}' (sequence_path) {} overflows BIGINT", path,
                              Shown(digits)));
    }
    return JsonError(simdjson::NUMBER_ERROR);
  }

  /// Decodes image `name` ("before" / "after") as a row of `kind`, when it is
  /// present and not null (`*present`).
  bool DecodeImage(od::document& doc, const char* name, RowKind kind, int64_t seq, Batch* batch,
                   bool* present) {
    *present = false;
    od::object env;
    if (auto err = Envelope(doc, env)) return JsonError(err);
    od::value v;
    auto err = env.find_field_unordered(name).get(v);
    if (err == simdjson::NO_SUCH_FIELD) return true;
    if (err) return JsonError(err);
    od::json_type jt;
    if ((err = v.type().get(jt))) return JsonError(err);
    if (jt == od::json_type::null) {
      bool is_null = false;
      if (v.is_null().get(is_null) != simdjson::SUCCESS || !is_null) {
        return JsonError(simdjson::N_ATOM_ERROR);
      }
      return true;
    }
    if (jt != od::json_type::object) {
      return Rule(fmt::format("'{}' must be an object (a row image) or null, found {}", name,
                              JsonTypeName(jt)));
    }
    od::object obj;
    if ((err = v.get_object().get(obj))) return JsonError(err);
    if (!rows_decoder_.DecodeObject(obj, line_, batch->columns.data())) {
      image_ = name;
      return false;
    }
    *present = true;
    batch->row_kinds.push_back(kind);
    batch->sequence_numbers.push_back(seq);
    batch->positions.push_back(line_no_);
    ++batch->num_rows;
    ++rows_;
    return true;
  }

  /// Walks the whole event once more: its top-level object must be well
  /// formed and nothing may follow it on the line.
  bool CheckWhole(od::document& doc) {
    doc.rewind();
    od::object top;
    auto err = doc.get_object().get(top);
    if (err) return JsonError(err);
    for (auto field : top) {
      if ((err = field.error())) return JsonError(err);
    }
    // In bounds after the object means more tokens follow it.
    if (!doc.current_location().error()) {
      if (internal::FindJsonSyntaxError(line_)) return JsonError(simdjson::TAPE_ERROR);
      return Rule("malformed JSON (trailing content after the event)");
    }
    return true;
  }

  SchemaPtr schema_;
  std::unique_ptr<ByteStream> in_;
  DecodeOptions options_;
  std::vector<std::string> sequence_path_;
  internal::JsonRowDecoder rows_decoder_;
  internal::RowMark mark_;
  od::parser parser_;
  std::string_view line_;  ///< the line being decoded
  bool wrapped_ = false;   ///< the current event is the payload of {"schema","payload"}
  std::string image_;      ///< the image being decoded when an error happened
  std::string schema_text_;   ///< the envelope schema the encodings were set from
  std::string schema_error_;  ///< what that schema breaks (every event with it fails)
  simdjson::dom::parser dom_parser_;
  int64_t transactions_ = 0;
  int64_t line_no_ = 0;
  int64_t rows_ = 0;
  int64_t events_ = 0;
  int64_t rejected_ = 0;
  int64_t tombstones_ = 0;
  std::optional<Error> failed_;
};

namespace {

Result<std::vector<std::string>> SequencePath(const DecodeOptions& options) {
  if (options.batch_rows < 1) return InvalidArgument("batch_rows must be at least 1");
  auto parts = SplitPath(options.sequence_path);
  if (parts.empty()) {
    return InvalidArgument(
        "sequence_path '{}' is not a dotted path of keys (such as source.lsn or ts_ms)",
        options.sequence_path);
  }
  return parts;
}

}  // namespace

DebeziumReader::DebeziumReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
DebeziumReader::~DebeziumReader() = default;

Result<std::unique_ptr<DebeziumReader>> DebeziumReader::Open(SchemaPtr schema,
                                                             const std::string& path,
                                                             DecodeOptions options) {
  FLOE_ASSIGN_OR_RETURN(auto parts, SequencePath(options));
  FLOE_RETURN_IF_ERROR(internal::CheckSimdjsonCpu());
  FLOE_ASSIGN_OR_RETURN(auto in,
                        ByteStream::Open(path, options.chunk_bytes, options.max_line_bytes, options.stdin_fd));
  return std::unique_ptr<DebeziumReader>(new DebeziumReader(std::make_unique<Impl>(
      std::move(schema), std::move(in), std::move(options), std::move(parts))));
}

Result<std::unique_ptr<DebeziumReader>> DebeziumReader::FromString(SchemaPtr schema,
                                                                   std::string data,
                                                                   DecodeOptions options) {
  FLOE_ASSIGN_OR_RETURN(auto parts, SequencePath(options));
  FLOE_RETURN_IF_ERROR(internal::CheckSimdjsonCpu());
  auto in = ByteStream::FromString(std::move(data));
  in->set_max_unit(options.max_line_bytes);
  return std::unique_ptr<DebeziumReader>(new DebeziumReader(std::make_unique<Impl>(
      std::move(schema), std::move(in), std::move(options), std::move(parts))));
}

Result<bool> DebeziumReader::Next(Batch* batch) { return impl_->Next(batch); }
int64_t DebeziumReader::rows_read() const { return impl_->rows(); }
int64_t DebeziumReader::events_read() const { return impl_->events(); }
int64_t DebeziumReader::rows_rejected() const { return impl_->rejected(); }
int64_t DebeziumReader::tombstones() const { return impl_->tombstones(); }
int64_t DebeziumReader::transaction_events() const { return impl_->transactions(); }
int64_t DebeziumReader::line_number() const { return impl_->line(); }

}  // namespace floe::format
