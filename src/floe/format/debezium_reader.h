/// \file
/// The Debezium JSON change-event decoder (input format `debezium-json`): one
/// change event a line, as Debezium's Kafka Connect JSON converter writes them,
///   {"before":{...}|null,"after":{...}|null,"source":{...},"op":"c","ts_ms":N,...}
/// or wrapped with their schema (`value.converter.schemas.enable=true`),
///   {"schema":{...},"payload":{<the event>}}
/// into batches of the table's row schema, with a row kind, a sequence number
/// and an input position (the line) on every row:
///   c (create), r (snapshot read)  -> INSERT of `after`
///   u (update)                     -> UPDATE_BEFORE of `before` (when not null),
///                                     then UPDATE_AFTER of `after`
///   d (delete)                     -> DELETE of `before`
/// The two rows of an update share the line's position and sequence number and
/// always land in the same batch (a batch may so hold batch_rows + 1 rows).
///
/// The `before` / `after` objects decode into the schema's columns with the
/// JSONL decoder's value rules (jsonl_reader.h), plus Debezium's default
/// value encodings (Kafka Connect's JSON converter), read from the envelope's
/// `schema` (the field of the `after`, else `before`, struct of the column's
/// name) when the event has one, and otherwise from the column's type:
///   io.debezium.time.Date, Connect Date        int days          (DATE default)
///   io.debezium.time.Time, Connect Time        int ms
///   io.debezium.time.MicroTime                 int us            (TIME default)
///   io.debezium.time.NanoTime                  int ns
///   io.debezium.time.Timestamp, Connect Timestamp  int ms
///   io.debezium.time.MicroTimestamp            int us            (TIMESTAMP[TZ] default)
///   io.debezium.time.NanoTimestamp             int ns            (TIMESTAMP[TZ]_NS default)
///   io.debezium.time.ZonedTimestamp            ISO text with a zone (the JSONL rule)
///   io.debezium.time.ZonedTime                 "10:15:30.5Z" / "+02:00": kept as UTC
///   org.apache.kafka.connect.data.Decimal      base64 of the big-endian two's
///                                              complement unscaled value at the
///                                              schema's `scale` (DECIMAL default,
///                                              at the column's scale), rescaled
///                                              exactly to the column's
///   io.debezium.data.VariableScaleDecimal      {"scale":S,"value":"<base64>"}
///   bytes, io.debezium.data.Bits               base64                (BINARY/FIXED default)
///   a `string` field                           the JSONL rule (decimal text with
///                                              decimal.handling.mode=string, hex bytes)
///   io.debezium.data.Json, Uuid, Enum, Year    strings / ints as the JSONL rules take them
/// Integers into a time column are converted exactly (a finer value than the
/// column holds, or one out of range, is an error naming the unit). Without
/// a schema a decimal column's string of base64 characters only is read as
/// base64 (a string with other characters, as "12.50", as decimal text); a
/// TIMESTAMP column's integer as micros (PostgreSQL's default): a MySQL
/// DATETIME(0-3) stream (ms) needs its schema. ISO text stays accepted for
/// the time types. A field of the event's schema that names no column is an
/// error naming it (floe does not evolve the table's schema from a change
/// stream yet), dropped with ignore_unknown_keys. The schema is read once
/// per distinct schema text (consecutive events usually repeat it).
///
/// Envelope keys other than schema, before, after, op and those on the
/// sequence path are not looked at (the `transaction` block is ignored).
/// A line `null` (a Kafka tombstone, which follows a delete when the connector
/// emits them) and an event whose `payload` is null are skipped and counted
/// (tombstones()). Debezium's transaction metadata events ({"status":"BEGIN"
/// or "END","id":...}, which carry no op) are skipped and counted
/// (transaction_events()). Blank lines are skipped.
///
/// The sequence number is the integer at DecodeOptions::sequence_path, a
/// dotted path into the event (default `source.lsn`): a JSON integer, or a
/// string of decimal digits.
///
/// Errors (kInvalidArgument) name the line; with DecodeOptions::reject set,
/// each of these is passed there instead and the event skipped:
///   line 16: delete event has no 'before' image: the source table needs
///            REPLICA IDENTITY FULL (or a key)
///   line 3: update event has no 'after' image
///   line 5: truncate event (op 't'): floe does not apply truncates (...)
///   line 7: unknown op 'x' (expected c, r, u or d)
///   line 8: missing sequence value 'source.lsn' (sequence_path): 'source' has no 'lsn'
///   line 9: sequence value 'ts_ms' (sequence_path) must be an integer, found 1.5
///   line 4, column 'qty' of the after image: value 3000000000 overflows INT
///   line 2: not valid JSON at column 12: ...
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "floe/format/decode_options.h"
#include "floe/types/column_vector.h"
#include "floe/util/status.h"

namespace floe::format {

/// Decodes Debezium change events into batches of `schema` (the table's rows).
class DebeziumReader {
 public:
  /// Reads a local file, or standard input for "-". kInvalidArgument when
  /// DecodeOptions::sequence_path is not a dotted path.
  static Result<std::unique_ptr<DebeziumReader>> Open(SchemaPtr schema, const std::string& path,
                                                      DecodeOptions options = {});
  /// Reads an in-memory string.
  static Result<std::unique_ptr<DebeziumReader>> FromString(SchemaPtr schema, std::string data,
                                                            DecodeOptions options = {});
  ~DebeziumReader();

  /// Clears `batch` and fills it with up to batch_rows rows (one more when an
  /// update's two rows meet the limit). Returns false (with an empty batch)
  /// when the input is exhausted. After an error the reader stays failed.
  Result<bool> Next(Batch* batch);

  /// Rows decoded so far (an update with a before image gives two).
  int64_t rows_read() const;
  /// Change events decoded so far (tombstones and rejected events not included).
  int64_t events_read() const;
  /// Lines passed to DecodeOptions::reject so far.
  int64_t rows_rejected() const;
  /// Tombstones skipped so far.
  int64_t tombstones() const;
  /// Transaction metadata events (BEGIN / END) skipped so far.
  int64_t transaction_events() const;
  /// The number of the last line read (1-based).
  int64_t line_number() const;

  class Impl;

 private:
  explicit DebeziumReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace floe::format
