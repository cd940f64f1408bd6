// FileIO (floe issue 7, section 3): the local FileIO on locations, the
// scheme registry, the prefix-mapping decorator and the fault injector.

#include "floe/io/file_io.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "floe/io/fault_file_io.h"

namespace floe::io {
namespace file_io_test {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class FileIOTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           fmt::format("floe_file_io_{}_{}", ::getpid(),
                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  std::string Path(const std::string& rel) const { return (dir_ / rel).string(); }
  std::string Uri(const std::string& rel) const { return "file:" + Path(rel); }

  // Every entry below dir_, relative, folders with a trailing slash.
  std::set<std::string> Tree() const {
    std::set<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(dir_)) {
      std::string rel = fs::relative(e.path(), dir_).string();
      out.insert(e.is_directory() && !e.is_symlink() ? rel + "/" : rel);
    }
    return out;
  }

  fs::path dir_;
};

TEST_F(FileIOTest, LocalReadsAndWritesEverySpellingOfALocation) {
  FileIOPtr io = LocalFileIO();
  ASSERT_TRUE(WriteFile(*io, Uri("a.txt"), "one"));
  EXPECT_EQ(*ReadFile(*io, Path("a.txt")), "one");
  EXPECT_EQ(*ReadFile(*io, "file://" + Path("a.txt")), "one");
  EXPECT_EQ(*ReadFile(*io, "file://localhost" + Path("a.txt")), "one");
  EXPECT_EQ(*io->Canonical(Uri("x/../a.txt")), Path("a.txt"));
  EXPECT_EQ(*io->Canonical("file://" + Path("a.txt")), *io->Canonical(Path("a.txt")));
  EXPECT_EQ(*io->LocalPath(Uri("a.txt")), Path("a.txt"));
  // Without overwrite an existing file is refused and kept.
  auto again = WriteFile(*io, Uri("a.txt"), "two", /*overwrite=*/false);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().kind, ErrorKind::kAlreadyExists);
  EXPECT_EQ(*ReadFile(*io, Uri("a.txt")), "one");
  auto missing = io->NewInput(Uri("nope.txt"));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, ErrorKind::kNotFound);
  EXPECT_THAT(missing.error().message, HasSubstr("nope.txt"));
}

TEST_F(FileIOTest, LocalDeleteExistsAndStat) {
  FileIOPtr io = LocalFileIO();
  ASSERT_TRUE(WriteFile(*io, Uri("f"), "x"));
  fs::create_directories(dir_ / "folder");
  fs::create_symlink(dir_ / "folder", dir_ / "link");
  EXPECT_EQ(io->Stat(Uri("f"))->kind, EntryKind::kFile);
  EXPECT_EQ(io->Stat(Uri("f"))->size, 1);
  EXPECT_EQ(io->Stat(Uri("folder"))->kind, EntryKind::kFolder);
  EXPECT_EQ(io->Stat(Uri("link"))->kind, EntryKind::kOther);  // the link itself
  EXPECT_EQ(io->Stat(Uri("gone")).error().kind, ErrorKind::kNotFound);
  EXPECT_TRUE(*io->Exists(Uri("link")));
  EXPECT_FALSE(*io->Exists(Uri("gone")));
  // Deleting is idempotent, and never takes a folder.
  ASSERT_TRUE(io->Delete(Uri("f")));
  EXPECT_TRUE(io->Delete(Uri("f")));
  auto folder = io->Delete(Uri("folder"));
  ASSERT_FALSE(folder);
  EXPECT_THAT(folder.error().message, HasSubstr("folder"));
  EXPECT_TRUE(fs::is_directory(dir_ / "folder"));
  EXPECT_EQ(*io->Resolve(Uri("link")), *io->Canonical(Uri("folder")));
}

TEST_F(FileIOTest, ListFilesIsRecursiveSpelledAsAskedAndStaysOutOfLinks) {
  FileIOPtr io = LocalFileIO();
  EXPECT_FALSE(WriteFile(*io, Path("t/a"), "1"));  // WriteFile makes no folder
  ASSERT_TRUE(io->CreateFolders(Path("t/data/p=1"), nullptr));
  ASSERT_TRUE(WriteFile(*io, Path("t/data/p=1/b"), "22"));
  ASSERT_TRUE(WriteFile(*io, Path("t/c"), "333"));
  ASSERT_TRUE(io->CreateFolders(Path("elsewhere"), nullptr));
  ASSERT_TRUE(WriteFile(*io, Path("elsewhere/secret"), "x"));
  fs::create_directory_symlink(dir_ / "elsewhere", dir_ / "t/data/link");
  fs::create_symlink(dir_ / "elsewhere/secret", dir_ / "t/file-link");
  ASSERT_TRUE(io->CreateFolders(Path("t2"), nullptr));
  ASSERT_TRUE(WriteFile(*io, Path("t2/sibling"), "x"));  // a sibling prefix: not below t
  std::map<std::string, int64_t> seen;
  ASSERT_TRUE(io->ListFiles("file://" + Path("t") + "/", [&](const FileInfo& f) -> Status {
    seen[f.location] = f.size;
    return Ok();
  }));
  const std::string t = "file://" + Path("t");
  EXPECT_EQ(seen, (std::map<std::string, int64_t>{{t + "/c", 3}, {t + "/data/p=1/b", 2}}));
  // A missing folder lists nothing; a visitor's error stops the listing.
  EXPECT_TRUE(io->ListFiles(Uri("none"), [](const FileInfo&) -> Status { return Internal("called"); }));
  auto stopped = io->ListFiles(Uri("t"), [](const FileInfo&) -> Status { return Internal("stop"); });
  ASSERT_FALSE(stopped);
  EXPECT_EQ(stopped.error().message, "stop");
  // ListFolder: direct children, sorted, links as what they point to.
  auto children = io->ListFolder(Uri("t/data"));
  ASSERT_TRUE(children) << children.error().ToString();
  ASSERT_EQ(children->size(), 2u);
  EXPECT_EQ((*children)[0].location, Uri("t/data/link"));
  EXPECT_EQ((*children)[0].kind, EntryKind::kFolder);
  EXPECT_EQ((*children)[1].location, Uri("t/data/p=1"));
  EXPECT_EQ(io->ListFolder(Uri("none")).error().kind, ErrorKind::kNotFound);
}

TEST_F(FileIOTest, OutputsMakeTheirFoldersAndReleaseOnlyThose) {
  FileIOPtr io = LocalFileIO();
  fs::create_directories(dir_ / "t");
  std::vector<std::string> made;
  OutputOptions o;
  o.create_parents = true;
  o.created_folders = &made;
  auto out = io->NewOutput(Uri("t/data/k=1/f"), o);
  ASSERT_TRUE(out) << out.error().ToString();
  EXPECT_EQ(made, (std::vector<std::string>{Path("t/data"), Path("t/data/k=1")}));
  (*out)->Abort();
  std::set<std::string> created(made.begin(), made.end());
  created.insert(Path("t/unrelated"));  // never made: not touched
  io->ReleaseFolders(Uri("t/data/k=1/f"), &created);
  EXPECT_EQ(created, std::set<std::string>{Path("t/unrelated")});
  EXPECT_EQ(Tree(), std::set<std::string>{"t/"});
  // Without create_parents a missing folder is kNotFound, naming it.
  auto bare = io->NewOutput(Uri("t/nofolder/f"));
  ASSERT_FALSE(bare);
  EXPECT_EQ(bare.error().kind, ErrorKind::kNotFound);
  EXPECT_THAT(bare.error().message, HasSubstr("nofolder"));
}

TEST_F(FileIOTest, PublishIfAbsentNeverReplacesAndCleansUpAFailure) {
  FileIOPtr io = LocalFileIO();
  ASSERT_TRUE(io->PublishIfAbsent(Uri("t/metadata/v1.json"), "first", /*sync=*/true));
  auto second = io->PublishIfAbsent(Uri("t/metadata/v1.json"), "second", true);
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().kind, ErrorKind::kAlreadyExists);
  EXPECT_EQ(*ReadFile(*io, Uri("t/metadata/v1.json")), "first");
  // A publication that fails (the rename) leaves neither the file nor the
  // folders it made.
  auto faulty = std::make_shared<FaultInjectingFileIO>(io);
  faulty->FailNth(FaultOp::kRename, 1);
  auto failed = faulty->PublishIfAbsent(Uri("u/metadata/v1.json"), "x", true);
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().kind, ErrorKind::kIo);
  EXPECT_THAT(failed.error().message, HasSubstr("u/metadata/v1.json"));
  EXPECT_EQ(Tree(), (std::set<std::string>{"t/", "t/metadata/", "t/metadata/v1.json"}));
}

TEST_F(FileIOTest, RegistryPicksByScheme) {
  EXPECT_EQ(SchemeOf("/abs/p"), "file");
  EXPECT_EQ(SchemeOf("rel/p"), "file");
  EXPECT_EQ(SchemeOf("file:///p"), "file");
  EXPECT_EQ(SchemeOf("S3A://b/k"), "s3a");
  for (std::string loc : {"/w", "file:/w", "file:///w", "relative/w"}) {
    auto io = OpenFileIO(loc);
    ASSERT_TRUE(io) << loc;
    EXPECT_EQ((*io)->name(), "local") << loc;
  }
  for (std::string loc : {"s3://bucket/wh", "gs://bucket/wh", "abfss://c@a.dfs.core.windows.net/wh"}) {
    auto io = OpenFileIO(loc);
    ASSERT_FALSE(io) << loc;
    EXPECT_EQ(io.error().kind, ErrorKind::kUnsupported);
    EXPECT_THAT(io.error().message, HasSubstr("'" + SchemeOf(loc) + "'"));
    EXPECT_THAT(io.error().message, HasSubstr("available here: file"));
  }
  // A registered scheme is found, with the catalog properties.
  std::map<std::string, std::string> seen;
  RegisterFileIO("floe-test-mem", [&](const std::map<std::string, std::string>& p) -> Result<FileIOPtr> {
    seen = p;
    return LocalFileIO();
  });
  auto custom = OpenFileIO("floe-test-mem://x/y", {{"k", "v"}});
  ASSERT_TRUE(custom) << custom.error().ToString();
  EXPECT_EQ(seen, (std::map<std::string, std::string>{{"k", "v"}}));
  // The local FileIO itself refuses a remote location, naming it and --map.
  auto remote = LocalFileIO()->NewInput("s3://bucket/t/data/a.parquet");
  ASSERT_FALSE(remote);
  EXPECT_EQ(remote.error().kind, ErrorKind::kUnsupported);
  EXPECT_THAT(remote.error().message, HasSubstr("s3://bucket/t/data/a.parquet"));
  EXPECT_THAT(remote.error().message, HasSubstr("--map"));
}

TEST_F(FileIOTest, MappedPrefixesKeepTheLocationSpelling) {
  LocationMapper m;
  m.AddMapping("s3://bucket/t", Path("local/t"));
  FileIOPtr io = MappedFileIO(m, LocalFileIO());
  std::vector<std::string> made;
  OutputOptions o;
  o.create_parents = true;
  o.created_folders = &made;
  auto out = io->NewOutput("s3://bucket/t/data/a.parquet", o);
  ASSERT_TRUE(out) << out.error().ToString();
  ASSERT_TRUE((*out)->Write("abc", 3));
  ASSERT_TRUE((*out)->Commit());
  EXPECT_TRUE(fs::exists(dir_ / "local/t/data/a.parquet"));
  EXPECT_EQ(*ReadFile(*io, "s3://bucket/t/data/a.parquet"), "abc");
  EXPECT_EQ(*io->Canonical("s3://bucket/t/data/a.parquet"), Path("local/t/data/a.parquet"));
  std::vector<std::string> listed;
  ASSERT_TRUE(io->ListFiles("s3://bucket/t", [&](const FileInfo& f) -> Status {
    listed.push_back(f.location);
    return Ok();
  }));
  EXPECT_EQ(listed, std::vector<std::string>{"s3://bucket/t/data/a.parquet"});
  EXPECT_EQ(io->Stat("s3://bucket/t/data/a.parquet")->location, "s3://bucket/t/data/a.parquet");
  // Errors of a mapped location name it; unmapped remote locations are refused.
  auto missing = io->NewInput("s3://bucket/t/data/b.parquet");
  ASSERT_FALSE(missing);
  EXPECT_THAT(missing.error().message, HasSubstr("s3://bucket/t/data/b.parquet"));
  EXPECT_THAT(missing.error().message, HasSubstr(Path("local/t/data/b.parquet")));
  auto other = io->NewInput("s3://bucket/other/x");
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error().kind, ErrorKind::kUnsupported);
  // Plain local locations pass through.
  ASSERT_TRUE(WriteFile(*io, Uri("plain"), "p"));
  EXPECT_EQ(*ReadFile(*io, Path("plain")), "p");
  // A failed write releases the folders it made, through the decorator.
  ASSERT_TRUE(io->Delete("s3://bucket/t/data/a.parquet"));
  std::set<std::string> created(made.begin(), made.end());
  io->ReleaseFolders("s3://bucket/t/data/a.parquet", &created);
  EXPECT_TRUE(created.empty());
  EXPECT_FALSE(fs::exists(dir_ / "local"));
}

TEST_F(FileIOTest, FaultInjectorFailsTheNthOperationAndNothingOfIt) {
  auto faulty = std::make_shared<FaultInjectingFileIO>(LocalFileIO());
  ASSERT_TRUE(WriteFile(*faulty, Uri("keep"), "k"));
  // The second rename of a `.avro` file fails: the first publishes, the
  // second leaves nothing (no file, no temporary).
  faulty->FailNth(FaultOp::kRename, 2, ".avro");
  ASSERT_TRUE(WriteFile(*faulty, Uri("a.avro"), "a"));
  ASSERT_TRUE(WriteFile(*faulty, Uri("x.json"), "x"));  // not matched
  auto b = WriteFile(*faulty, Uri("b.avro"), "b");
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().kind, ErrorKind::kIo);
  EXPECT_THAT(b.error().message, HasSubstr("injected fault: rename of " + Uri("b.avro")));
  ASSERT_TRUE(WriteFile(*faulty, Uri("c.avro"), "c"));  // only the 2nd
  EXPECT_EQ(Tree(), (std::set<std::string>{"keep", "a.avro", "x.json", "c.avro"}));
  EXPECT_EQ(faulty->Fired(), std::vector<std::string>{"rename " + Uri("b.avro")});
  // Writes, deletes and listings: a broken device from the 1st delete on.
  faulty->FailNth(FaultOp::kWrite, 1);
  EXPECT_FALSE(WriteFile(*faulty, Uri("w"), "w"));
  EXPECT_FALSE(fs::exists(dir_ / "w"));
  faulty->FailFrom(FaultOp::kDelete, 1);
  EXPECT_FALSE(faulty->Delete(Uri("keep")));
  EXPECT_FALSE(faulty->Delete(Uri("keep")));
  EXPECT_TRUE(fs::exists(dir_ / "keep"));
  faulty->FailNth(FaultOp::kList, 1);
  EXPECT_FALSE(faulty->ListFiles(Uri(""), [](const FileInfo&) { return Ok(); }));
  EXPECT_TRUE(faulty->ListFiles(Uri(""), [](const FileInfo&) { return Ok(); }));
  EXPECT_EQ(faulty->Count(FaultOp::kList), 2);
  faulty->Clear();
  EXPECT_TRUE(faulty->Delete(Uri("keep")));
}

}  // namespace file_io_test
}  // namespace floe::io
