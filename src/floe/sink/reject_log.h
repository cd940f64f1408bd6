/// \file
/// The sink's error and dead-letter outputs as JSONL files: one object per
/// rejected row, `{"position": N, "destination": "db.t", "reason": "...",
/// "row": {...}}` (or `"input": "raw text"` when the row could not be
/// decoded; `"lateness_seconds"` for late changes). Entries of a window are
/// held until the window's commits are done, then appended in input order
/// and synced, so an entry is written once: a relaunch reads the position of
/// the last complete line and skips entries at or before it (a line cut by
/// a crash is removed first).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "floe/util/status.h"

namespace floe::sink {

class RejectLog {
 public:
  /// Opens (creating) the file; finds the last complete entry's position.
  static Result<std::unique_ptr<RejectLog>> Open(const std::string& path);
  ~RejectLog();

  /// One entry. `row_json` is a JSON object text or empty; `input` the raw
  /// input text when the row could not be decoded; `extra` more `"k": v`
  /// members (without braces) or empty.
  void Add(int64_t position, std::string_view destination, std::string_view reason, std::string row_json,
           std::string input = {}, std::string extra = {});
  /// Appends the held entries past the last written position, in position
  /// order, and syncs the file.
  Status Flush();
  /// Drops the held entries (their window failed).
  void Discard() { pending_.clear(); }
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

}  // namespace floe::sink
