// SpillSorter: arena + 16-byte entries in memory, sorted runs in unnamed
// files, a k-way merge (with merge passes past kMaxMergeFanIn runs).
//
// Run file layout: blocks back to back, nothing else. A block is
//   u32 raw_len | u32 stored_len (bit 31: LZ4) | u64 XXH3(stored bytes, seed = the first 8 bytes)
//   stored bytes (raw_len bytes after LZ4 decompression when bit 31 is set)
// and its raw bytes are records: varint key_len, varint payload_len, key, payload.
// The sorter keeps each run's byte and record counts in memory, so a run cut
// short or holding extra records is caught too.
#include "floe/sink/spill_sorter.h"

#include <fcntl.h>
#include <lz4.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <system_error>
#include <utility>
#include <vector>

#include "floe/util/unique_fd.h"
#include "floe/util/varint.h"

namespace floe::sink {

namespace {

constexpr size_t kPageBytes = 4096;
/// Raw bytes per run block: big enough that LZ4 finds repeats and syscalls
/// are few, small enough that kMaxMergeFanIn runs read at once stay a few MB.
constexpr size_t kBlockBytes = 64 * 1024;
constexpr size_t kBlockHeaderBytes = 16;
constexpr uint32_t kCompressedBit = 0x80000000u;
/// A record's framing in a block: two varints of at most 5 bytes (lengths < 2^32).
constexpr size_t kMaxFramingBytes = 10;

std::string ErrnoText(int e) { return std::error_code(e, std::generic_category()).message(); }

/// Keeps `s` at `n` bytes without zero-filling what it did not hold.
void ResizeUninit(std::string* s, size_t n) {
  s->resize_and_overwrite(n, [](char*, size_t len) { return len; });
}

uint32_t LoadU32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
uint64_t LoadU64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

/// The first 8 key bytes as a big-endian number (zero-padded), so comparing
/// prefixes as integers is comparing the bytes.
uint64_t KeyPrefix(const char* key, size_t len) {
  uint64_t v = 0;
  if (len >= 8) {
    std::memcpy(&v, key, 8);
  } else if (len > 0) {
    std::memcpy(&v, key, len);
  }
  return __builtin_bswap64(v);
}

/// memcmp order, a shorter key first when it is a prefix of the other.
/// Compares 8 bytes at a time inline: the sink's keys are a few dozen bytes,
/// where a call to memcmp costs more than the comparing.
int CompareKeys(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const uint64_t x = __builtin_bswap64(LoadU64(a.data() + i));
    const uint64_t y = __builtin_bswap64(LoadU64(b.data() + i));
    if (x != y) return x < y ? -1 : 1;
  }
  if (i < n) {
    if (int c = std::memcmp(a.data() + i, b.data() + i, n - i); c != 0) return c;
  }
  return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
}

/// Reads a varint of at most 5 bytes (a length < 2^32); false when cut or too long.
bool GetVarint32(const char*& p, const char* end, uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift < 35 && p < end; shift += 7) {
    auto b = static_cast<uint8_t>(*p++);
    result |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *v = result;
      return true;
    }
  }
  return false;
}

/// A growable buffer in an anonymous mapping: grows by mremap (no copy),
/// and Release() hands the pages back to the system at once, which freeing
/// a malloc'd block of this size may not (glibc keeps heap memory, and
/// raises its mmap threshold after such a free).
class PageBuffer {
 public:
  PageBuffer() = default;
  PageBuffer(PageBuffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)),
        size_(std::exchange(o.size_, 0)),
        capacity_(std::exchange(o.capacity_, 0)) {}
  PageBuffer& operator=(PageBuffer&& o) noexcept {
    if (this != &o) {
      Release();
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
      capacity_ = std::exchange(o.capacity_, 0);
    }
    return *this;
  }
  ~PageBuffer() { Release(); }

  char* data() const { return data_; }
  size_t size() const { return size_; }

  /// Room for `n` more bytes at the end; where they start, or nullptr when
  /// the system has no memory to map.
  char* Extend(size_t n) {
    if (n > capacity_ - size_ && !Grow(size_ + n)) return nullptr;
    char* p = data_ + size_;
    size_ += n;
    return p;
  }
  /// Drops bytes at the end (keeps the mapping).
  void Shrink(size_t size) { size_ = std::min(size, size_); }
  void Release() {
    if (data_) ::munmap(data_, capacity_);
    data_ = nullptr;
    size_ = capacity_ = 0;
  }

 private:
  bool Grow(size_t need) {
    size_t cap = std::max({need, capacity_ * 2, size_t{256} * 1024});
    cap = (cap + kPageBytes - 1) / kPageBytes * kPageBytes;
    void* p =
        data_ ? ::mremap(data_, capacity_, cap, MREMAP_MAYMOVE)
              : ::mmap(nullptr, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return false;
    data_ = static_cast<char*>(p);
    capacity_ = cap;
    return true;
  }

  char* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

/// One in-memory record: its key's first 8 bytes and where it starts in the
/// arena. Arena offsets grow with insertion, so they are the stability
/// tie-break of an unstable sort.
struct Entry {
  uint64_t prefix;
  uint64_t offset;
};
static_assert(sizeof(Entry) == 16);

/// Entries walked in sorted order touch the arena at random: fetching the
/// record this many entries ahead hides most of the cache misses.
constexpr ptrdiff_t kPrefetchAhead = 16;

/// Arena record: u32 key_len, u32 payload_len, key, payload.
constexpr size_t kArenaHeaderBytes = 8;

std::string_view ArenaKey(const char* arena, uint64_t offset) {
  const char* p = arena + offset;
  return {p + kArenaHeaderBytes, LoadU32(p)};
}
std::string_view ArenaPayload(const char* arena, uint64_t offset) {
  const char* p = arena + offset;
  return {p + kArenaHeaderBytes + LoadU32(p), LoadU32(p + 4)};
}

/// Sorts entries by (key, arena offset): an MSD radix sort on the key bytes,
/// 8 at a time. The entries' prefix holds key bytes [depth, depth + 8); when
/// a range agrees on all 8, the keys that end inside them go first (shorter
/// first, then by offset) and the others get their next 8 bytes from the
/// arena. Small ranges fall back to a comparison sort. Radix, because the
/// sink's keys start with low-entropy bytes (shard, the high bytes of ids)
/// that would send nearly every comparison of a comparison sort to the arena.
class EntrySorter {
 public:
  explicit EntrySorter(const char* arena) : arena_(arena) {}

  /// Sorts; true when prefixes were overwritten with deeper key bytes.
  bool Sort(Entry* e, size_t n) {
    SortFrom(e, n, 0, 0);
    return refilled_;
  }

 private:
  static constexpr size_t kSmall = 24;

  static unsigned ByteAt(const Entry& x, int byte) {
    return static_cast<unsigned>(x.prefix >> (56 - 8 * byte)) & 0xff;
  }
  size_t KeyLength(const Entry& x) const { return LoadU32(arena_ + x.offset); }

  // Recurses into every bucket but the largest and loops on that one, so the
  // recursion depth stays logarithmic whatever the keys.
  void SortFrom(Entry* e, size_t n, size_t depth, int byte) {
    while (n > 1) {
      if (n <= kSmall) return SmallSort(e, n, depth);
      if (byte == 8) {
        Entry* end = e + n;
        Entry* rest =
            std::partition(e, end, [&](const Entry& x) { return KeyLength(x) <= depth + 8; });
        std::sort(e, rest, [&](const Entry& a, const Entry& b) {
          const size_t la = KeyLength(a), lb = KeyLength(b);
          return la != lb ? la < lb : a.offset < b.offset;
        });
        depth += 8;
        refilled_ |= rest != end;
        for (Entry* x = rest; x != end; ++x) {
          if (end - x > kPrefetchAhead) __builtin_prefetch(arena_ + x[kPrefetchAhead].offset);
          std::string_view key = ArenaKey(arena_, x->offset);
          x->prefix = KeyPrefix(key.data() + depth, key.size() - depth);
        }
        e = rest;
        n = static_cast<size_t>(end - rest);
        byte = 0;
        continue;
      }
      size_t count[256] = {};
      const uint64_t first = e[0].prefix;
      uint64_t diff = 0;
      for (size_t i = 0; i < n; ++i) {
        ++count[ByteAt(e[i], byte)];
        diff |= e[i].prefix ^ first;
      }
      if (count[ByteAt(e[0], byte)] == n) {
        // One bucket: skip to the first byte where any prefix differs (the
        // sink's keys have runs of zero bytes: high bytes of small numbers).
        byte = diff == 0 ? 8 : __builtin_clzll(diff) / 8;
        continue;
      }
      // American flag sort: permute in place into the buckets.
      size_t start[256], next[256];
      size_t at = 0, largest = 0;
      for (unsigned b = 0; b < 256; ++b) {
        start[b] = next[b] = at;
        at += count[b];
        if (count[b] > count[largest]) largest = b;
      }
      for (unsigned b = 0; b < 256; ++b) {
        const size_t stop = start[b] + count[b];
        while (next[b] < stop) {
          Entry x = e[next[b]];
          unsigned xb = ByteAt(x, byte);
          while (xb != b) {
            std::swap(x, e[next[xb]++]);
            xb = ByteAt(x, byte);
          }
          e[next[b]++] = x;
        }
      }
      for (unsigned b = 0; b < 256; ++b) {
        if (b != largest && count[b] > 1) SortFrom(e + start[b], count[b], depth, byte + 1);
      }
      e += start[largest];
      n = count[largest];
      ++byte;
    }
  }

  // The entries agree on key bytes [0, depth).
  void SmallSort(Entry* e, size_t n, size_t depth) {
    std::sort(e, e + n, [&](const Entry& a, const Entry& b) {
      if (a.prefix != b.prefix) return a.prefix < b.prefix;
      std::string_view ka = ArenaKey(arena_, a.offset), kb = ArenaKey(arena_, b.offset);
      if (int c = CompareKeys(ka.substr(depth), kb.substr(depth)); c != 0) return c < 0;
      return a.offset < b.offset;
    });
  }

  const char* arena_;
  bool refilled_ = false;
};

/// Creates a file in `dir` that no path names: O_TMPFILE, or where the file
/// system lacks it, mkstemp and an immediate unlink.
Result<UniqueFd> OpenSpillFile(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return UniqueFd(fd);
  int err = errno;
  if (err == EOPNOTSUPP || err == EISDIR || err == EINVAL) {
    std::string path = dir + "/.floe-spill-XXXXXX";
    fd = ::mkostemp(path.data(), O_CLOEXEC);
    if (fd >= 0) {
      UniqueFd file(fd);
      if (::unlink(path.c_str()) != 0) {
        return IoError("cannot unlink the spill file '{}': {}", path, ErrnoText(errno));
      }
      return file;
    }
    err = errno;
  }
  return IoError("cannot create a spill file in '{}': {}", dir, ErrnoText(err));
}

/// A sorted run on disk.
struct Run {
  UniqueFd fd;
  uint64_t bytes = 0;
  uint64_t records = 0;
};

/// Writes records, in order, as one run.
class RunWriter {
 public:
  RunWriter(UniqueFd fd, const std::string& dir, bool compress)
      : fd_(std::move(fd)), dir_(dir), compress_(compress) {}

  Status Add(std::string_view key, std::string_view payload) {
    const size_t need = kMaxFramingBytes + key.size() + payload.size();
    if (!block_.empty() && block_.size() + need > kBlockBytes) FLOE_RETURN_IF_ERROR(FlushBlock());
    const size_t at = block_.size();
    ResizeUninit(&block_, at + need);
    char* p = PutVarint(block_.data() + at, key.size());
    p = PutVarint(p, payload.size());
    std::memcpy(p, key.data(), key.size());
    p += key.size();
    std::memcpy(p, payload.data(), payload.size());
    p += payload.size();
    block_.resize(static_cast<size_t>(p - block_.data()));
    ++records_;
    return Ok();
  }

  Result<Run> Finish() && {
    if (!block_.empty()) FLOE_RETURN_IF_ERROR(FlushBlock());
    return Run{std::move(fd_), bytes_, records_};
  }

 private:
  Status FlushBlock() {
    const auto raw_len = static_cast<uint32_t>(block_.size());
    const char* body = block_.data();
    uint32_t stored = raw_len;
    if (compress_ && raw_len <= LZ4_MAX_INPUT_SIZE) {
      const int bound = LZ4_compressBound(static_cast<int>(raw_len));
      ResizeUninit(&packed_, static_cast<size_t>(bound));
      const int n =
          LZ4_compress_default(block_.data(), packed_.data(), static_cast<int>(raw_len), bound);
      // Keep the compressed form only when it saves an eighth or more: below
      // that, decompressing costs more than the bytes it saves.
      if (n > 0 && static_cast<uint32_t>(n) < raw_len - raw_len / 8) {
        stored = static_cast<uint32_t>(n) | kCompressedBit;
        body = packed_.data();
      }
    }
    const uint32_t stored_len = stored & ~kCompressedBit;
    char header[kBlockHeaderBytes];
    std::memcpy(header, &raw_len, 4);
    std::memcpy(header + 4, &stored, 4);
    const uint64_t sum = XXH3_64bits_withSeed(body, stored_len, LoadU64(header));
    std::memcpy(header + 8, &sum, 8);
    FLOE_RETURN_IF_ERROR(WriteAll(header, kBlockHeaderBytes));
    FLOE_RETURN_IF_ERROR(WriteAll(body, stored_len));
    // A huge record's block is not kept around for the small ones after it.
    if (block_.capacity() > 4 * kBlockBytes) std::string().swap(block_);
    if (packed_.capacity() > 4 * kBlockBytes) std::string().swap(packed_);
    block_.clear();
    return Ok();
  }

  Status WriteAll(const char* p, size_t n) {
    while (n > 0) {
      ssize_t w = ::write(fd_.get(), p, n);
      if (w < 0) {
        if (errno == EINTR) continue;
        return IoError("writing a sort run to the spill folder '{}' failed after {} bytes: {}",
                       dir_, bytes_, ErrnoText(errno));
      }
      p += w;
      n -= static_cast<size_t>(w);
      bytes_ += static_cast<uint64_t>(w);
    }
    return Ok();
  }

  UniqueFd fd_;
  const std::string& dir_;
  bool compress_;
  std::string block_;
  std::string packed_;
  uint64_t bytes_ = 0;
  uint64_t records_ = 0;
};

/// Reads one run back, a block at a time.
class RunReader {
 public:
  RunReader(Run run, const std::string& dir) : run_(std::move(run)), dir_(dir) {}

  /// The next record; false at the end of the run, which is then closed
  /// (and so removed).
  Result<bool> Next(std::string_view* key, std::string_view* payload) {
    if (p_ == end_) {
      FLOE_ASSIGN_OR_RETURN(bool more, LoadBlock());
      if (!more) return false;
    }
    uint64_t klen, plen;
    if (!GetVarint32(p_, end_, &klen) || !GetVarint32(p_, end_, &plen) ||
        klen + plen > static_cast<uint64_t>(end_ - p_)) {
      return Damaged("a record overruns its block");
    }
    *key = std::string_view(p_, klen);
    *payload = std::string_view(p_ + klen, plen);
    p_ += klen + plen;
    ++read_;
    return true;
  }

 private:
  template <typename... Args>
  std::unexpected<Error> Damaged(fmt::format_string<Args...> f, Args&&... args) {
    return Corrupt("sort run in the spill folder '{}' is damaged at byte {}: {}", dir_, block_at_,
                   fmt::format(f, std::forward<Args>(args)...));
  }

  /// Reads `n` bytes at `offset` into `out`; a short read is damage.
  Status ReadExactly(uint64_t offset, size_t n, char* out) {
    size_t done = 0;
    while (done < n) {
      ssize_t r = ::pread(run_.fd.get(), out + done, n - done, static_cast<off_t>(offset + done));
      if (r < 0) {
        if (errno == EINTR) continue;
        return IoError("reading a sort run in the spill folder '{}' failed: {}", dir_,
                       ErrnoText(errno));
      }
      if (r == 0) return Damaged("the run ends {} bytes early", n - done);
      done += static_cast<size_t>(r);
    }
    return Ok();
  }

  Result<bool> LoadBlock() {
    block_at_ = offset_;
    if (offset_ == run_.bytes) {
      if (read_ != run_.records) {
        return Damaged("the run holds {} records, {} were written", read_, run_.records);
      }
      run_.fd.Close();
      std::string().swap(stored_);
      std::string().swap(raw_);
      return false;
    }
    if (run_.bytes - offset_ < kBlockHeaderBytes) return Damaged("a block header is cut off");
    char header[kBlockHeaderBytes];
    FLOE_RETURN_IF_ERROR(ReadExactly(offset_, kBlockHeaderBytes, header));
    const uint32_t raw_len = LoadU32(header);
    const uint32_t stored = LoadU32(header + 4);
    const uint32_t stored_len = stored & ~kCompressedBit;
    const bool compressed = (stored & kCompressedBit) != 0;
    if (stored_len > run_.bytes - offset_ - kBlockHeaderBytes || raw_len == 0 ||
        raw_len > kBlockBytes + SpillSorter::kMaxRecordBytes + kMaxFramingBytes ||
        (!compressed && stored_len != raw_len)) {
      return Damaged("block header (raw {} bytes, stored {}) does not fit the run", raw_len,
                     stored_len);
    }
    // Large blocks (a huge record) get fresh buffers, so the memory goes
    // when the next block is small again.
    if (stored_.capacity() > 4 * kBlockBytes && stored_len <= kBlockBytes)
      std::string().swap(stored_);
    if (raw_.capacity() > 4 * kBlockBytes && raw_len <= kBlockBytes) std::string().swap(raw_);
    ResizeUninit(&stored_, stored_len);
    FLOE_RETURN_IF_ERROR(ReadExactly(offset_ + kBlockHeaderBytes, stored_len, stored_.data()));
    if (XXH3_64bits_withSeed(stored_.data(), stored_len, LoadU64(header)) != LoadU64(header + 8)) {
      return Damaged("block checksum mismatch");
    }
    if (compressed) {
      ResizeUninit(&raw_, raw_len);
      int n = LZ4_decompress_safe(stored_.data(), raw_.data(), static_cast<int>(stored_len),
                                  static_cast<int>(raw_len));
      if (n < 0 || static_cast<uint32_t>(n) != raw_len)
        return Damaged("LZ4 block does not decompress");
      p_ = raw_.data();
    } else {
      p_ = stored_.data();
    }
    end_ = p_ + raw_len;
    offset_ += kBlockHeaderBytes + stored_len;
    return true;
  }

  Run run_;
  const std::string& dir_;
  uint64_t offset_ = 0;
  uint64_t block_at_ = 0;
  uint64_t read_ = 0;
  std::string stored_;
  std::string raw_;
  const char* p_ = nullptr;
  const char* end_ = nullptr;
};

/// The records of sorted runs, merged: a binary heap of the runs' current
/// records ordered by (key, run index). Runs hold consecutive stretches of
/// the input in order, so the run index keeps equal keys stable.
class MergeStream final : public SpillSorter::Stream {
 public:
  MergeStream(std::vector<Run> runs, std::string dir)
      : dir_(std::make_unique<std::string>(std::move(dir))) {
    sources_.reserve(runs.size());
    for (auto& run : runs) sources_.push_back(Source{RunReader(std::move(run), *dir_), {}, {}});
  }

  Result<bool> Next(std::string_view* key, std::string_view* payload) override {
    if (error_) return Fail(*error_);
    Result<bool> next = Advance();
    if (!next) {
      error_ = next.error();  // the heap is half-updated: every later call fails the same way
      return next;
    }
    if (!*next) return false;
    const Source& top = sources_[heap_[0].source];
    *key = top.key;
    *payload = top.payload;
    return true;
  }

 private:
  /// Moves to the next record; false at the end.
  Result<bool> Advance() {
    if (!started_) {
      started_ = true;
      for (uint32_t s = 0; s < sources_.size(); ++s) {
        FLOE_ASSIGN_OR_RETURN(bool more, Pull(s));
        if (more)
          heap_.push_back(Node{KeyPrefix(sources_[s].key.data(), sources_[s].key.size()), s});
      }
      for (size_t i = heap_.size() / 2; i-- > 0;) SiftDown(i);
    } else if (!heap_.empty()) {
      // The record returned last stays valid until now: advance its run.
      const uint32_t s = heap_[0].source;
      FLOE_ASSIGN_OR_RETURN(bool more, Pull(s));
      if (more) {
        heap_[0].prefix = KeyPrefix(sources_[s].key.data(), sources_[s].key.size());
      } else {
        heap_[0] = heap_.back();
        heap_.pop_back();
      }
      if (!heap_.empty()) SiftDown(0);
    }
    return !heap_.empty();
  }

  struct Source {
    RunReader reader;
    std::string_view key;
    std::string_view payload;
  };
  struct Node {
    uint64_t prefix;
    uint32_t source;
  };

  Result<bool> Pull(uint32_t s) {
    return sources_[s].reader.Next(&sources_[s].key, &sources_[s].payload);
  }

  bool Less(const Node& a, const Node& b) const {
    if (a.prefix != b.prefix) return a.prefix < b.prefix;
    if (int c = CompareKeys(sources_[a.source].key, sources_[b.source].key); c != 0) return c < 0;
    return a.source < b.source;
  }

  void SiftDown(size_t i) {
    const size_t n = heap_.size();
    const Node node = heap_[i];
    while (true) {
      size_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && Less(heap_[child + 1], heap_[child])) ++child;
      if (!Less(heap_[child], node)) break;
      heap_[i] = heap_[child];
      i = child;
    }
    heap_[i] = node;
  }

  // Readers keep a reference to the folder name: it lives on the heap so
  // that moving the stream does not move it.
  std::unique_ptr<std::string> dir_;
  std::vector<Source> sources_;
  std::vector<Node> heap_;
  bool started_ = false;
  std::optional<Error> error_;
};

/// The records of a sorter that never spilled: its sorted entries, walked.
class MemoryStream final : public SpillSorter::Stream {
 public:
  MemoryStream(PageBuffer arena, PageBuffer entries, size_t n)
      : arena_(std::move(arena)), entries_(std::move(entries)), n_(n) {}

  Result<bool> Next(std::string_view* key, std::string_view* payload) override {
    if (pos_ == n_) {
      arena_.Release();
      entries_.Release();
      return false;
    }
    const auto* entries = reinterpret_cast<const Entry*>(entries_.data());
    if (pos_ + kPrefetchAhead < n_)
      __builtin_prefetch(arena_.data() + entries[pos_ + kPrefetchAhead].offset);
    const Entry& e = entries[pos_++];
    *key = ArenaKey(arena_.data(), e.offset);
    *payload = ArenaPayload(arena_.data(), e.offset);
    return true;
  }

 private:
  PageBuffer arena_;
  PageBuffer entries_;
  size_t n_;
  size_t pos_ = 0;
};

/// Merges runs [first, first + count) of `runs` into one run in their place.
Status MergeRuns(std::vector<Run>* runs, size_t first, size_t count,
                 const SpillSorterOptions& options) {
  std::vector<Run> group;
  group.reserve(count);
  for (size_t i = first; i < first + count; ++i) group.push_back(std::move((*runs)[i]));
  runs->erase(runs->begin() + static_cast<ptrdiff_t>(first),
              runs->begin() + static_cast<ptrdiff_t>(first + count));
  MergeStream merge(std::move(group), options.spill_dir);
  FLOE_ASSIGN_OR_RETURN(UniqueFd fd, OpenSpillFile(options.spill_dir));
  RunWriter writer(std::move(fd), options.spill_dir, options.compress_runs);
  std::string_view key, payload;
  while (true) {
    FLOE_ASSIGN_OR_RETURN(bool more, merge.Next(&key, &payload));
    if (!more) break;
    FLOE_RETURN_IF_ERROR(writer.Add(key, payload));
  }
  FLOE_ASSIGN_OR_RETURN(Run merged, std::move(writer).Finish());
  runs->insert(runs->begin() + static_cast<ptrdiff_t>(first), std::move(merged));
  return Ok();
}

/// Merges runs in passes until at most kMaxMergeFanIn remain. Each pass
/// merges consecutive runs (so run order, and with it stability, holds),
/// as few as it takes: 70 runs become 64 by merging 7, not 64.
Status ReduceRuns(std::vector<Run>* runs, const SpillSorterOptions& options) {
  constexpr size_t kFanIn = SpillSorter::kMaxMergeFanIn;
  size_t first = 0;
  while (runs->size() > kFanIn) {
    if (runs->size() - first < 2) first = 0;  // every run of this level merged once: next level
    const size_t count = std::min({kFanIn, runs->size() - kFanIn + 1, runs->size() - first});
    FLOE_RETURN_IF_ERROR(MergeRuns(runs, first, count, options));
    ++first;
  }
  return Ok();
}

}  // namespace

struct SpillSorter::State {
  SpillSorterOptions options;
  PageBuffer arena;
  PageBuffer entries;
  size_t in_memory = 0;  ///< entries in `entries`
  size_t records = 0;    ///< since construction or the last Finish
  uint64_t spilled_bytes = 0;
  std::vector<Run> runs;

  /// Set when a sort left deeper key bytes in some entries' prefixes (a
  /// spill that then failed keeps them): a later sort must recompute them.
  bool prefixes_stale = false;

  Entry* entry_data() { return reinterpret_cast<Entry*>(entries.data()); }
  void Sort() {
    Entry* e = entry_data();
    if (prefixes_stale) {
      for (size_t i = 0; i < in_memory; ++i) {
        std::string_view key = ArenaKey(arena.data(), e[i].offset);
        e[i].prefix = KeyPrefix(key.data(), key.size());
      }
    }
    prefixes_stale = EntrySorter(arena.data()).Sort(e, in_memory);
  }
  void Reset() {
    prefixes_stale = false;
    arena.Release();
    entries.Release();
    in_memory = 0;
    records = 0;
    spilled_bytes = 0;
    runs.clear();
  }
};

SpillSorter::SpillSorter(std::unique_ptr<State> state) : state_(std::move(state)) {}
SpillSorter::~SpillSorter() = default;

Result<std::unique_ptr<SpillSorter>> SpillSorter::Make(SpillSorterOptions options) {
  if (options.spill_dir.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    options.spill_dir = tmp && *tmp ? tmp : "/tmp";
  }
  struct stat st {};
  if (::stat(options.spill_dir.c_str(), &st) != 0) {
    int err = errno;
    if (err == ENOENT) return NotFound("spill folder '{}' does not exist", options.spill_dir);
    return IoError("spill folder '{}': {}", options.spill_dir, ErrnoText(err));
  }
  if (!S_ISDIR(st.st_mode))
    return InvalidArgument("spill folder '{}' is not a folder", options.spill_dir);
  if (::access(options.spill_dir.c_str(), W_OK | X_OK) != 0) {
    return InvalidArgument("spill folder '{}' is not writable: {}", options.spill_dir,
                           ErrnoText(errno));
  }
  auto state = std::make_unique<State>();
  state->options = std::move(options);
  return std::unique_ptr<SpillSorter>(new SpillSorter(std::move(state)));
}

Status SpillSorter::Add(std::string_view key, std::string_view payload) {
  State& s = *state_;
  if (key.size() + payload.size() > kMaxRecordBytes) {
    return InvalidArgument("sort record of {} bytes (key {}, payload {}) is over the {} byte limit",
                           key.size() + payload.size(), key.size(), payload.size(),
                           kMaxRecordBytes);
  }
  const size_t at = s.arena.size();
  char* p = s.arena.Extend(kArenaHeaderBytes + key.size() + payload.size());
  Entry* e = p ? reinterpret_cast<Entry*>(s.entries.Extend(sizeof(Entry))) : nullptr;
  if (!e) {
    s.arena.Shrink(at);
    return IoError("no memory for a sort record of {} bytes ({} records in memory)",
                   key.size() + payload.size(), s.in_memory);
  }
  const auto klen = static_cast<uint32_t>(key.size());
  const auto plen = static_cast<uint32_t>(payload.size());
  std::memcpy(p, &klen, 4);
  std::memcpy(p + 4, &plen, 4);
  if (klen) std::memcpy(p + kArenaHeaderBytes, key.data(), klen);
  if (plen) std::memcpy(p + kArenaHeaderBytes + klen, payload.data(), plen);
  e->prefix = KeyPrefix(key.data(), key.size());
  e->offset = at;
  ++s.in_memory;
  ++s.records;
  return Ok();
}

size_t SpillSorter::memory_used() const { return state_->arena.size() + state_->entries.size(); }
size_t SpillSorter::records() const { return state_->records; }
int SpillSorter::runs() const { return static_cast<int>(state_->runs.size()); }
uint64_t SpillSorter::spilled_bytes() const { return state_->spilled_bytes; }

Status SpillSorter::Spill() {
  State& s = *state_;
  if (s.in_memory == 0) return Ok();
  s.Sort();
  FLOE_ASSIGN_OR_RETURN(UniqueFd fd, OpenSpillFile(s.options.spill_dir));
  RunWriter writer(std::move(fd), s.options.spill_dir, s.options.compress_runs);
  const Entry* entries = s.entry_data();
  for (size_t i = 0; i < s.in_memory; ++i) {
    if (i + kPrefetchAhead < s.in_memory)
      __builtin_prefetch(s.arena.data() + entries[i + kPrefetchAhead].offset);
    FLOE_RETURN_IF_ERROR(writer.Add(ArenaKey(s.arena.data(), entries[i].offset),
                                    ArenaPayload(s.arena.data(), entries[i].offset)));
  }
  FLOE_ASSIGN_OR_RETURN(Run run, std::move(writer).Finish());
  s.spilled_bytes += run.bytes;
  s.runs.push_back(std::move(run));
  s.arena.Release();
  s.entries.Release();
  s.in_memory = 0;
  s.prefixes_stale = false;
  return Ok();
}

Result<std::unique_ptr<SpillSorter::Stream>> SpillSorter::Finish() {
  State& s = *state_;
  if (s.runs.empty()) {
    s.Sort();
    auto stream =
        std::make_unique<MemoryStream>(std::move(s.arena), std::move(s.entries), s.in_memory);
    s.Reset();
    return stream;
  }
  // Whatever is in memory becomes one more run, so the merge below holds
  // only its block buffers, not the sort budget on top.
  Status spilled = Spill();
  if (spilled) spilled = ReduceRuns(&s.runs, s.options);
  if (!spilled) {
    s.Reset();
    return Fail(std::move(spilled).error());
  }
  auto stream = std::make_unique<MergeStream>(std::move(s.runs), s.options.spill_dir);
  s.Reset();
  return stream;
}

}  // namespace floe::sink
