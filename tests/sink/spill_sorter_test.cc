// SpillSorter: the order and stability of std::stable_sort on random records
// with many equal keys and keys that are prefixes of each other, with 0, 1 and
// many spills and with more runs than one merge takes; an empty sorter, a
// record larger than a run block, reuse after Finish; spill files never
// visible in the folder and all closed at the end; memory handed back on
// Spill; a full disk and damaged run bytes as clear errors.
#include "floe/sink/spill_sorter.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "testing/files.h"
#include "testing/matchers.h"

namespace floe::sink {
namespace spill_sorter_test {

namespace fs = std::filesystem;

using Record = std::pair<std::string, std::string>;

class SpillSorterTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = fs::canonical(test::FreshTestDir("spill_")); }
  void TearDown() override { test::RemoveTestDirIfPassed(dir_); }

  std::unique_ptr<SpillSorter> MakeSorter(bool compress = true) {
    auto sorter = SpillSorter::Make({dir_.string(), compress});
    EXPECT_THAT(sorter, test::IsOk());
    return sorter ? std::move(*sorter) : nullptr;
  }

  bool DirIsEmpty() const { return fs::is_empty(dir_); }

  /// Descriptors this process holds open on (deleted) files in the folder.
  std::vector<int> SpillFds() const {
    std::vector<int> fds;
    for (const auto& e : fs::directory_iterator("/proc/self/fd")) {
      std::error_code ec;
      fs::path target = fs::read_symlink(e.path(), ec);
      if (ec) continue;
      std::string t = target.string();
      if (t.starts_with(dir_.string() + "/") && t.ends_with(" (deleted)")) {
        fds.push_back(std::stoi(e.path().filename().string()));
      }
    }
    std::sort(fds.begin(), fds.end());
    return fds;
  }

  fs::path dir_;
};

/// Keys from a 4-letter alphabet with 0x00 and 0xff in it, 0 to `max_len`
/// bytes: many duplicates, many keys that are prefixes of others, long equal
/// 8-byte prefixes. Payloads carry the insertion number, so stability shows.
std::vector<Record> RandomRecords(uint64_t seed, size_t n, int max_len = 12) {
  std::mt19937_64 rng(seed);
  const char alphabet[] = {'\0', '\x01', 'a', '\xff'};
  std::vector<Record> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    std::string key(rng() % (max_len + 1), 'a');
    // Mostly one common 8-byte head, so the sort must look past its prefix.
    const bool common_head = rng() % 2 == 0;
    for (size_t k = 0; k < key.size(); ++k) {
      key[k] = common_head && k < 8 ? 'a' : alphabet[rng() % 4];
    }
    out.emplace_back(std::move(key), "#" + std::to_string(i) + std::string(rng() % 30, 'p'));
  }
  return out;
}

std::vector<Record> Expected(std::vector<Record> records) {
  std::stable_sort(records.begin(), records.end(),
                   [](const Record& a, const Record& b) { return a.first < b.first; });
  return records;
}

std::vector<Record> Drain(SpillSorter::Stream* stream) {
  std::vector<Record> out;
  std::string_view key, payload;
  while (true) {
    auto more = stream->Next(&key, &payload);
    EXPECT_THAT(more, test::IsOk());
    if (!more || !*more) break;
    out.emplace_back(std::string(key), std::string(payload));
  }
  return out;
}

/// Adds `records`, spilling after every `spill_every` (0: never), and
/// returns what Finish streams.
std::vector<Record> SortThrough(SpillSorter* sorter, const std::vector<Record>& records,
                                size_t spill_every) {
  for (size_t i = 0; i < records.size(); ++i) {
    EXPECT_OK(sorter->Add(records[i].first, records[i].second));
    if (spill_every && (i + 1) % spill_every == 0) {
      EXPECT_OK(sorter->Spill());
    }
  }
  EXPECT_EQ(sorter->records(), records.size());
  auto stream = sorter->Finish();
  EXPECT_THAT(stream, test::IsOk());
  if (!stream) return {};
  return Drain(stream->get());
}

TEST_F(SpillSorterTest, InMemoryMatchesStableSort) {
  auto sorter = MakeSorter();
  auto records = RandomRecords(1, 20000);
  EXPECT_EQ(SortThrough(sorter.get(), records, 0), Expected(records));
  EXPECT_EQ(sorter->runs(), 0);
}

TEST_F(SpillSorterTest, OneSpillMatchesStableSort) {
  auto sorter = MakeSorter();
  auto records = RandomRecords(2, 20000);
  EXPECT_EQ(SortThrough(sorter.get(), records, 12000), Expected(records));
}

TEST_F(SpillSorterTest, ManySpillsMatchStableSortWithAndWithoutCompression) {
  for (bool compress : {true, false}) {
    SCOPED_TRACE(compress);
    auto sorter = MakeSorter(compress);
    auto records = RandomRecords(3, 30000, 20);
    EXPECT_EQ(SortThrough(sorter.get(), records, 1000), Expected(records));
  }
}

// 150 runs: Finish merges passes down to 64 first, and stays stable.
TEST_F(SpillSorterTest, MoreRunsThanOneMergeTakes) {
  auto sorter = MakeSorter();
  auto records = RandomRecords(4, 30000);
  std::vector<Record> got;
  for (size_t i = 0; i < records.size(); ++i) {
    ASSERT_OK(sorter->Add(records[i].first, records[i].second));
    if ((i + 1) % 200 == 0) {
      ASSERT_OK(sorter->Spill());
    }
  }
  EXPECT_EQ(sorter->runs(), 150);
  ASSERT_OK_AND_ASSIGN(auto stream, sorter->Finish());
  // The passes left at most 64 runs for the stream to read.
  EXPECT_LE(SpillFds().size(), static_cast<size_t>(SpillSorter::kMaxMergeFanIn));
  EXPECT_EQ(Drain(stream.get()), Expected(records));
  EXPECT_TRUE(SpillFds().empty());
}

// Keys sharing long heads (past several 8-byte windows), keys that end
// inside a window, prefixes of each other, and every range size around the
// switch from radix to comparison sort.
TEST_F(SpillSorterTest, LongSharedHeadsAndEveryRangeSize) {
  std::mt19937_64 rng(14);
  for (size_t n : {1, 2, 3, 10, 24, 25, 26, 100, 5000}) {
    SCOPED_TRACE(n);
    std::vector<Record> records;
    for (size_t i = 0; i < n; ++i) {
      const size_t heads[] = {0, 7, 8, 9, 16, 40, 300};
      std::string key(heads[rng() % 7], 'x');
      key += std::string(rng() % 10, static_cast<char>("\0ax\xff"[rng() % 4]));
      records.emplace_back(std::move(key), std::to_string(i));
    }
    for (int spill : {0, 1}) {
      auto sorter = MakeSorter();
      EXPECT_EQ(SortThrough(sorter.get(), records, spill ? n / 2 + 1 : 0), Expected(records));
    }
  }
}

TEST_F(SpillSorterTest, EmptySorter) {
  auto sorter = MakeSorter();
  EXPECT_EQ(sorter->memory_used(), 0u);
  ASSERT_OK(sorter->Spill());  // nothing to spill: no run
  EXPECT_EQ(sorter->runs(), 0);
  ASSERT_OK_AND_ASSIGN(auto stream, sorter->Finish());
  std::string_view key, payload;
  ASSERT_OK_AND_ASSIGN(bool more, stream->Next(&key, &payload));
  EXPECT_FALSE(more);
  ASSERT_OK_AND_ASSIGN(more, stream->Next(&key, &payload));
  EXPECT_FALSE(more);
  // Empty keys and payloads are records like any other.
  ASSERT_OK(sorter->Add("", ""));
  ASSERT_OK(sorter->Add("", "x"));
  ASSERT_OK(sorter->Spill());
  ASSERT_OK(sorter->Add("", ""));
  ASSERT_OK_AND_ASSIGN(stream, sorter->Finish());
  EXPECT_EQ(Drain(stream.get()), (std::vector<Record>{{"", ""}, {"", "x"}, {"", ""}}));
}

// A record far larger than a run block (64 KiB), in memory and in a run,
// between small ones.
TEST_F(SpillSorterTest, HugeSingleRecord) {
  std::string big(5 << 20, '\0');
  std::mt19937_64 rng(5);
  for (auto& c : big) c = static_cast<char>(rng() % 7);  // compressible, not trivially
  std::string big_key(100000, 'k');
  for (int spill : {0, 1}) {
    SCOPED_TRACE(spill);
    auto sorter = MakeSorter();
    std::vector<Record> records = {{"m", "small"}, {big_key, big}, {"a", "x"}, {"z", big}};
    for (const auto& [k, p] : records) ASSERT_OK(sorter->Add(k, p));
    if (spill) {
      ASSERT_OK(sorter->Spill());
      ASSERT_OK(sorter->Add("b", "after"));
      records.emplace_back("b", "after");
    }
    ASSERT_OK_AND_ASSIGN(auto stream, sorter->Finish());
    EXPECT_EQ(Drain(stream.get()), Expected(records));
  }
}

TEST_F(SpillSorterTest, ReuseAfterFinish) {
  auto sorter = MakeSorter();
  auto first = RandomRecords(6, 5000);
  EXPECT_EQ(SortThrough(sorter.get(), first, 1500), Expected(first));
  EXPECT_EQ(sorter->records(), 0u);
  EXPECT_EQ(sorter->runs(), 0);
  EXPECT_EQ(sorter->memory_used(), 0u);
  // A second round sees only its own records, spilled or not.
  auto second = RandomRecords(7, 3000);
  EXPECT_EQ(SortThrough(sorter.get(), second, 1000), Expected(second));
  auto third = RandomRecords(8, 3000);
  EXPECT_EQ(SortThrough(sorter.get(), third, 0), Expected(third));
}

// A stream outlives a sorter that is reused (and destroyed) meanwhile.
TEST_F(SpillSorterTest, StreamOwnsItsRecords) {
  auto sorter = MakeSorter();
  auto records = RandomRecords(9, 4000);
  for (const auto& [k, p] : records) ASSERT_OK(sorter->Add(k, p));
  ASSERT_OK_AND_ASSIGN(auto in_memory, sorter->Finish());
  for (size_t i = 0; i < records.size(); ++i) {
    ASSERT_OK(sorter->Add(records[i].first, records[i].second));
    if (i % 1000 == 999) {
      ASSERT_OK(sorter->Spill());
    }
  }
  ASSERT_OK_AND_ASSIGN(auto merged, sorter->Finish());
  ASSERT_OK(sorter->Add("zz", "other"));
  sorter.reset();
  EXPECT_EQ(Drain(in_memory.get()), Expected(records));
  EXPECT_EQ(Drain(merged.get()), Expected(records));
}

// Runs exist only as open descriptors: the folder is empty while they
// exist, and they are closed after the stream ends or the sorter goes.
TEST_F(SpillSorterTest, SpillFilesNeverShowInTheFolder) {
  auto sorter = MakeSorter();
  auto records = RandomRecords(10, 5000);
  for (size_t i = 0; i < records.size(); ++i) {
    ASSERT_OK(sorter->Add(records[i].first, records[i].second));
    if (i % 1000 == 999) {
      ASSERT_OK(sorter->Spill());
    }
  }
  EXPECT_EQ(sorter->runs(), 5);
  EXPECT_TRUE(DirIsEmpty());
  EXPECT_EQ(SpillFds().size(), 5u);

  // Destroying the sorter closes its runs.
  sorter.reset();
  EXPECT_TRUE(SpillFds().empty());
  EXPECT_TRUE(DirIsEmpty());

  // A stream closes them once exhausted, and on destruction when not.
  sorter = MakeSorter();
  for (size_t i = 0; i < records.size(); ++i) {
    ASSERT_OK(sorter->Add(records[i].first, records[i].second));
    if (i % 1000 == 999) {
      ASSERT_OK(sorter->Spill());
    }
  }
  ASSERT_OK_AND_ASSIGN(auto stream, sorter->Finish());
  EXPECT_TRUE(DirIsEmpty());
  EXPECT_EQ(Drain(stream.get()).size(), records.size());
  EXPECT_TRUE(SpillFds().empty());
  for (size_t i = 0; i < records.size(); ++i) {
    ASSERT_OK(sorter->Add(records[i].first, records[i].second));
    if (i % 1000 == 999) {
      ASSERT_OK(sorter->Spill());
    }
  }
  ASSERT_OK_AND_ASSIGN(stream, sorter->Finish());
  std::string_view key, payload;
  ASSERT_OK(stream->Next(&key, &payload));
  EXPECT_FALSE(SpillFds().empty());
  stream.reset();
  EXPECT_TRUE(SpillFds().empty());
  EXPECT_TRUE(DirIsEmpty());
}

// kill -9 right after spilling leaves nothing in the folder: no path ever
// named the runs.
TEST_F(SpillSorterTest, KillNineLeavesNothingBehind) {
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto sorter = SpillSorter::Make({dir_.string()});
    if (!sorter) ::_exit(3);
    for (int i = 0; i < 20000; ++i) {
      if (!(*sorter)->Add(fmt::format("{:08}", i % 977), "payload")) ::_exit(4);
      if (i % 5000 == 4999 && !(*sorter)->Spill()) ::_exit(5);
    }
    if ((*sorter)->runs() != 4) ::_exit(6);
    ::raise(SIGKILL);
    ::_exit(7);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "child exited with " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  EXPECT_TRUE(DirIsEmpty());
}

/// Resident set size of this process, from /proc/self/statm.
size_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<size_t>(::sysconf(_SC_PAGESIZE));
}

// Spill hands the memory back to the system, not to a free list.
TEST_F(SpillSorterTest, SpillReleasesMemory) {
  auto sorter = MakeSorter();
  std::string payload(200, 'p');
  for (int i = 0; i < 400000; ++i) ASSERT_OK(sorter->Add(fmt::format("{:08}", i), payload));
  const size_t used = sorter->memory_used();
  EXPECT_GE(used, 400000u * 200);
  const size_t before = ResidentBytes();
  ASSERT_OK(sorter->Spill());
  EXPECT_EQ(sorter->memory_used(), 0u);
  const size_t after = ResidentBytes();
  EXPECT_LT(after + used * 9 / 10, before) << "resident " << before << " -> " << after;
}

// A full disk (here: a file size limit, which fails write() the same way)
// is kIo naming the folder; the records stay and spill once there is room.
TEST_F(SpillSorterTest, WriteFailureNamesTheFolderAndKeepsTheRecords) {
  auto sorter = MakeSorter(/*compress=*/false);
  auto records = RandomRecords(11, 20000);
  for (const auto& [k, p] : records) ASSERT_OK(sorter->Add(k, p));

  rlimit old{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  auto old_handler = ::signal(SIGXFSZ, SIG_IGN);
  rlimit small = old;
  small.rlim_cur = 100000;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  Status st = sorter->Spill();
  ::setrlimit(RLIMIT_FSIZE, &old);
  ::signal(SIGXFSZ, old_handler);

  EXPECT_THAT(st,
              ::testing::AllOf(test::IsError(ErrorKind::kIo), test::HasErrorMessage(dir_.string()),
                               test::HasErrorMessage("File too large")));
  EXPECT_EQ(sorter->runs(), 0);
  EXPECT_TRUE(SpillFds().empty());  // the partial run is gone
  // The failed spill sorted the records already; more come, then they are
  // sorted again (the sort must not trust what the first one left behind).
  auto more = RandomRecords(13, 5000);
  for (const auto& [k, p] : more) ASSERT_OK(sorter->Add(k, p));
  records.insert(records.end(), more.begin(), more.end());
  ASSERT_OK(sorter->Spill());
  ASSERT_OK_AND_ASSIGN(auto stream, sorter->Finish());
  EXPECT_EQ(Drain(stream.get()), Expected(records));
}

// Damaged run bytes (written behind the sorter's back through its
// descriptor) are kCorrupt: a flipped byte in a block, a run cut short,
// a block header that lies about its size.
TEST_F(SpillSorterTest, DamagedRunsAreCorrupt) {
  struct Damage {
    const char* name;
    bool compress;
    std::function<void(int fd)> apply;
  };
  auto flip = [](off_t at) {
    return [at](int fd) {
      char c;
      ASSERT_EQ(::pread(fd, &c, 1, at), 1);
      c = static_cast<char>(c ^ 0x20);
      ASSERT_EQ(::pwrite(fd, &c, 1, at), 1);
    };
  };
  const std::vector<Damage> damages = {
      {"flipped byte in an LZ4 block", true, flip(5000)},
      {"flipped byte in a raw block", false, flip(5000)},
      {"flipped length in a header", false, flip(1)},
      {"run cut short", true, [](int fd) { ASSERT_EQ(::ftruncate(fd, 3000), 0); }},
      {"run cut at a block boundary", false,
       [](int fd) {
         uint32_t stored;
         ASSERT_EQ(::pread(fd, &stored, 4, 4), 4);
         ASSERT_EQ(::ftruncate(fd, 16 + (stored & 0x7fffffff)), 0);
       }},
  };
  for (const auto& damage : damages) {
    SCOPED_TRACE(damage.name);
    auto sorter = MakeSorter(damage.compress);
    auto records = RandomRecords(12, 20000);
    for (size_t i = 0; i < records.size(); ++i) {
      ASSERT_OK(sorter->Add(records[i].first, records[i].second));
      if (i == 9999) {
        ASSERT_OK(sorter->Spill());
      }
    }
    ASSERT_OK(sorter->Spill());
    auto fds = SpillFds();
    ASSERT_EQ(fds.size(), 2u);
    damage.apply(fds[0]);
    ASSERT_OK_AND_ASSIGN(auto stream, sorter->Finish());
    std::string_view key, payload;
    Result<bool> more = true;
    while (more && *more) more = stream->Next(&key, &payload);
    EXPECT_THAT(more, ::testing::AllOf(test::IsError(ErrorKind::kCorrupt),
                                       test::HasErrorMessage(dir_.string())));
    // And it stays an error.
    EXPECT_THAT(stream->Next(&key, &payload), test::IsError(ErrorKind::kCorrupt));
  }
  EXPECT_TRUE(SpillFds().empty());
}

TEST_F(SpillSorterTest, BadFoldersAndOversizedRecords) {
  EXPECT_THAT(
      SpillSorter::Make({(dir_ / "missing").string()}),
      ::testing::AllOf(test::IsError(ErrorKind::kNotFound), test::HasErrorMessage("missing")));
  ASSERT_TRUE(test::WriteFile(dir_ / "file", "x"));
  EXPECT_THAT(SpillSorter::Make({(dir_ / "file").string()}),
              test::IsError(ErrorKind::kInvalidArgument));
  fs::remove(dir_ / "file");

  auto sorter = MakeSorter();
  // The view's bytes are never read: the size alone is refused.
  std::string small = "x";
  std::string_view huge(small.data(), SpillSorter::kMaxRecordBytes + 1);
  EXPECT_THAT(sorter->Add("k", huge), test::IsError(ErrorKind::kInvalidArgument));
  EXPECT_EQ(sorter->records(), 0u);
}

}  // namespace spill_sorter_test
}  // namespace floe::sink
