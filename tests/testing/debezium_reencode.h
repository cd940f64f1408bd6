/// \file
/// The real Debezium streams of shared/interop/golden-cdc re-encoded with
/// Debezium's default value encodings (dates as days, timestamps and times as
/// micros, decimals as base64 bytes, zoned timestamps as ISO text), optionally
/// wrapped with their Kafka Connect schema; and the expected tables with the
/// same added columns in ISO text. Written here from the golden streams' own
/// schema (id, name, description, weight): the added columns derive from each
/// row's id, so the expected table follows from the golden one.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "testing/files.h"

namespace floe::test {

/// Java's BigInteger.toByteArray() of `v` (big-endian two's complement, the
/// fewest bytes that keep the sign) in standard base64: Kafka Connect's
/// Decimal as its JSON converter writes it.
inline std::string DecimalBase64(int64_t v) {
  std::string bytes;
  for (int i = 7; i >= 0; --i) bytes.push_back(static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xff));
  while (bytes.size() > 1 &&
         ((bytes[0] == 0 && !(bytes[1] & 0x80)) ||
          (static_cast<unsigned char>(bytes[0]) == 0xff && (bytes[1] & 0x80)))) {
    bytes.erase(0, 1);
  }
  static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t n = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) n |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) n |= static_cast<unsigned char>(bytes[i + 2]);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(n >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kAlphabet[n & 63] : '=';
  }
  return out;
}

/// The products table with the columns the re-encoded stream adds, derived
/// from each row's id (so that the expected table follows from the golden
/// one): weight as a decimal, a date, a timestamp, a time and a zoned
/// timestamp.
inline constexpr const char* kProductsEncoded =
    "id INT NOT NULL, name STRING, description STRING, weight DECIMAL(10,3), made DATE, "
    "seen TIMESTAMP, at TIME, zoned TIMESTAMPTZ";
inline constexpr int64_t kDays20200101 = 18262;  // 2020-01-01

/// The columns added to row `id`, in Debezium's default encodings (days,
/// micros, base64 bytes, ISO text), into `image`.
inline void AddEncodedColumns(nlohmann::json& image) {
  const int64_t id = image["id"].get<int64_t>();
  const double w = image["weight"].get<double>();
  image["weight"] = DecimalBase64(std::llround(w * 1000));
  image["made"] = kDays20200101 + (id - 101);
  image["seen"] = (kDays20200101 * 86400 + id) * 1000000 + 123;
  image["at"] = id * 60 * 1000000 + 250000;
  image["zoned"] = fmt::format("2020-01-{:02}T12:00:00.5+02:00", id - 100);
}

/// The same columns in the JSONL forms (ISO text), into a row of the
/// expected table.
inline void AddIsoColumns(nlohmann::json& row) {
  const int64_t id = row["id"].get<int64_t>();
  row["made"] = fmt::format("2020-01-{:02}", id - 100);
  row["seen"] = fmt::format("2020-01-01T00:{:02}:{:02}.000123", id / 60, id % 60);
  row["at"] = fmt::format("{:02}:{:02}:00.25", id / 60, id % 60);
  row["zoned"] = fmt::format("2020-01-{:02}T10:00:00.5Z", id - 100);
}

/// Kafka Connect's schema of the re-encoded event (schemas.enable=true).
inline std::string EncodedSchema() {
  const std::string row = R"({"type":"struct","fields":[
    {"type":"int32","optional":false,"field":"id"},
    {"type":"string","optional":true,"field":"name"},
    {"type":"string","optional":true,"field":"description"},
    {"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"3","connect.decimal.precision":"10"},"field":"weight"},
    {"type":"int32","optional":true,"name":"io.debezium.time.Date","version":1,"field":"made"},
    {"type":"int64","optional":true,"name":"io.debezium.time.MicroTimestamp","version":1,"field":"seen"},
    {"type":"int64","optional":true,"name":"io.debezium.time.MicroTime","version":1,"field":"at"},
    {"type":"string","optional":true,"name":"io.debezium.time.ZonedTimestamp","version":1,"field":"zoned"}],
    "optional":true,"name":"fullfillment.inventory.products.Value","field":"%s"})";
  auto image = [&](const char* name) {
    std::string s = row;
    s.replace(s.find("%s"), 2, name);
    return s;
  };
  std::string schema = R"({"type":"struct","fields":[)" + image("before") + "," + image("after") +
                       R"(,{"type":"struct","fields":[{"type":"int64","optional":true,"field":"lsn"}],"optional":false,"name":"io.debezium.connector.postgresql.Source","field":"source"},{"type":"string","optional":false,"field":"op"},{"type":"int64","optional":true,"field":"ts_ms"}],"optional":false,"name":"fullfillment.inventory.products.Envelope"})";
  // One line, as the converter writes it.
  return nlohmann::json::parse(schema).dump();
}

/// A golden Debezium stream with Debezium's default value encodings: each
/// image gets the added columns, and (with_schema) the event is wrapped with
/// its Kafka Connect schema.
inline std::string ReencodeGolden(const std::filesystem::path& path, bool with_schema) {
  std::string out;
  std::istringstream in(ReadFile(path));
  const std::string schema = EncodedSchema();
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    auto event = nlohmann::json::parse(line);
    for (const char* image : {"before", "after"}) {
      if (event.contains(image) && event[image].is_object()) AddEncodedColumns(event[image]);
    }
    out += with_schema ? R"({"schema":)" + schema + R"(,"payload":)" + event.dump() + "}" : event.dump();
    out += '\n';
  }
  return out;
}

/// The golden expected table at `path` with the added columns in the JSONL
/// forms (ISO text), one JSON object a line.
inline std::string ExpectedEncodedRows(const std::filesystem::path& path) {
  std::string rows;
  std::istringstream in(ReadFile(path));
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    auto row = nlohmann::json::parse(line);
    AddIsoColumns(row);
    rows += row.dump() + "\n";
  }
  return rows;
}

}  // namespace floe::test
