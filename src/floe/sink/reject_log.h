/// \file
/// The sink's error and dead-letter outputs as JSONL files: one object per
/// rejected row, `{"position": N, "destination": "db.t", "reason": "...",
/// "row": {...}}` (or `"input": "raw text"` when the row could not be
/// decoded; `"lateness_seconds"` for late changes). Entries of a window are
/// held until the window's commits are done, then appended in input order
/// and synced, so an entry is written once: a relaunch reads the position of
/// the last complete line and skips entries at or before it (a line cut by
/// a crash is removed first). Two sinks with one sink_id sharing the file (a
/// second launch, a zombie) append under an exclusive lock (flock) after
/// re-reading the last position written: each input position is written
/// once, in order, by whichever flushes it first.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "floe/catalog/catalog.h"
#include "floe/util/status.h"

namespace floe::sink {

struct WriteConfig;

/// Where rejected rows go: a JSONL file (RejectLog) or an Iceberg table
/// (RejectTable).
class RejectOutput {
 public:
  virtual ~RejectOutput() = default;
  /// One entry. `row_json` is a JSON object text or empty; `input` the raw
  /// input text when the row could not be decoded; `extra` more `"k": v`
  /// members (without braces) or empty.
  virtual void Add(int64_t position, std::string_view destination, std::string_view reason, std::string row_json,
                   std::string input = {}, std::string extra = {}) = 0;
  /// Writes the held entries; `window_end` is the input position the window
  /// ends at.
  virtual Status Flush(int64_t window_end) = 0;
  /// Drops the held entries (their window failed).
  virtual void Discard() = 0;
};

/// The JSONL file output.
class RejectLog final : public RejectOutput {
 public:
  /// Opens (creating) the file; finds the last complete entry's position.
  static Result<std::unique_ptr<RejectLog>> Open(const std::string& path);
  ~RejectLog();

  void Add(int64_t position, std::string_view destination, std::string_view reason, std::string row_json,
           std::string input = {}, std::string extra = {}) override;
  /// Appends the held entries past the last written position, in position
  /// order, and syncs the file.
  Status Flush(int64_t window_end = 0) override;
  void Discard() override { pending_.clear(); }
  size_t pending() const { return pending_.size(); }
  int64_t last_position() const { return last_position_; }
  const std::string& path() const { return path_; }

 private:
  struct Entry {
    int64_t position;
    std::string line;
  };
  std::string path_;
  int fd_ = -1;
  int64_t last_position_ = 0;
  std::vector<Entry> pending_;
};

/// The Iceberg table output (`error_handling: {table: NS.T}`): a table of
/// the same catalog with columns position BIGINT NOT NULL, destination
/// STRING, reason STRING NOT NULL, row STRING (the row as JSON), input STRING
/// (the raw text of an undecodable row), details STRING (JSON: change kind,
/// sequence number, lateness of a late change), created when the sink opens. Each
/// window's entries are one append snapshot; with a `sink_id` it carries the
/// sink's token, and a relaunch skips entries at or before the position its
/// last token covers (exactly once, as the file output).
class RejectTable final : public RejectOutput {
 public:
  static Result<std::unique_ptr<RejectTable>> Open(catalog::Catalog* catalog, const WriteConfig& config,
                                                   std::string table, std::string sink_id);
  ~RejectTable() override;
  void Add(int64_t position, std::string_view destination, std::string_view reason, std::string row_json,
           std::string input = {}, std::string extra = {}) override;
  Status Flush(int64_t window_end) override;
  void Discard() override { pending_.clear(); }

  struct Entry {
    int64_t position;
    std::string destination, reason, row, input, details;
  };

 private:
  RejectTable() = default;
  catalog::Catalog* catalog_ = nullptr;
  std::unique_ptr<WriteConfig> config_;
  std::string sink_id_;
  int64_t commit_number_ = 0;
  int64_t committed_position_ = 0;
  std::vector<Entry> pending_;
};

}  // namespace floe::sink
