/// \file
/// Sequential input for the row decoders: a local file, standard input ("-")
/// or an in-memory string, read in chunks into a buffer that keeps the
/// unread tail (a partial line or record) and extra zeroed padding after the
/// data, so that SIMD parsers (simdjson) may read past the end safely.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "floe/util/status.h"

namespace floe::format {

/// A chunked reader. `data()[begin() .. end())` holds unread bytes; Consume()
/// moves begin; Fill() compacts and reads more. Memory is bounded by the
/// chunk size plus the longest line/record the caller keeps unconsumed.
/// `data()[end() .. end() + kPadding)` is always zero: the JSONL fast path
/// stops at the NUL at end() and reads ahead into the padding.
class ByteStream {
 public:
  /// Padding after the last valid byte (>= simdjson's SIMDJSON_PADDING).
  static constexpr size_t kPadding = 64;
  /// Refuse a single line/record larger than this (by default).
  static constexpr size_t kMaxUnit = size_t{1} << 30;

  /// Opens a local file, or standard input for "-". A line or record longer
  /// than `max_unit` bytes makes Fill() fail.
  /// ("-": the descriptor `stdin_fd`, standard input unless a front end
  /// running in-process passes its own.)
  static Result<std::unique_ptr<ByteStream>> Open(const std::string& path,
                                                  size_t chunk_bytes = size_t{4} << 20,
                                                  size_t max_unit = kMaxUnit, int stdin_fd = 0);
  /// A stream over a string (tests, small inputs).
  static std::unique_ptr<ByteStream> FromString(std::string data, std::string name = "<string>");

  ~ByteStream();
  ByteStream(const ByteStream&) = delete;
  ByteStream& operator=(const ByteStream&) = delete;

  char* data() { return buf_.get(); }
  size_t begin() const { return begin_; }
  size_t end() const { return end_; }
  bool eof() const { return eof_; }
  const std::string& name() const { return name_; }
  void Consume(size_t n) { begin_ += n; }
  /// Sets the longest line or record accepted (at most kMaxUnit).
  void set_max_unit(size_t n) { max_unit_ = std::min(n, kMaxUnit); }

  /// Moves unread bytes to the front and reads at least one more byte unless
  /// at end of input; grows the buffer when it is full of unread bytes.
  /// From a descriptor it reads on while what it read holds no line end and
  /// the buffer has room: a pipe gives at most 64 KiB a read, and a caller
  /// that scans its unfinished line again after each Fill would otherwise
  /// spend time quadratic in a long line's length. (A read that brings a
  /// line end returns at once: the caller has a line to work on.)
  /// Returns false at end of input (nothing more was read). A line or record
  /// over the limit fails, and unit_too_long() is true after that.
  Result<bool> Fill();
  /// Whether Fill failed because one line or record exceeds the limit: a
  /// decoder then reports it with its line number.
  bool unit_too_long() const { return unit_too_long_; }
  /// The limit in force (set_max_unit).
  size_t max_unit() const { return max_unit_; }

 private:
  ByteStream() = default;
  Status Grow(size_t min_capacity);

  std::string name_;
  int fd_ = -1;
  bool own_fd_ = false;
  std::string memory_;
  size_t memory_pos_ = 0;
  bool from_memory_ = false;
  std::unique_ptr<char[]> buf_;
  size_t capacity_ = 0;  // usable bytes (padding not included)
  size_t begin_ = 0, end_ = 0;
  bool eof_ = false;
  size_t max_unit_ = kMaxUnit;
  bool unit_too_long_ = false;
};

}  // namespace floe::format
