// A hadoop-catalog warehouse in a fresh folder per test, and tables whose
// data files are small stand-ins on disk: what the expire and orphan tests
// share. (table_test.cc keeps its own fixture.)
#pragma once

#include <gtest/gtest.h>
#include <sys/time.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "floe/io/file.h"
#include "floe/io/location.h"
#include "floe/table/table.h"
#include "testing/files.h"
#include "testing/matchers.h"

namespace floe::table::testing_util {

namespace fs = std::filesystem;

class WarehouseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::FreshTestDir("floe_");
    catalog_ = Open(dir_ / "wh");
    ASSERT_OK(catalog_->CreateNamespace(*catalog::ParseNamespace("db"), {}));
  }
  void TearDown() override { test::RemoveTestDirIfPassed(dir_); }

  static std::unique_ptr<catalog::Catalog> Open(const fs::path& warehouse) {
    auto c = catalog::OpenHadoopCatalog("t", warehouse.string());
    EXPECT_TRUE(c) << c.error().ToString();
    return std::move(*c);
  }

  Table Create(const std::string& name, std::map<std::string, std::string> props = {}) {
    catalog::TableDefinition def;
    def.schema = Schema({{1, "id", true, LongType(), {}}});
    def.properties = std::move(props);
    auto t = catalog_->CreateTable(*catalog::ParseTableIdentifier("db." + name), def);
    EXPECT_TRUE(t) << t.error().ToString();
    return Table(catalog_.get(), std::move(*t));
  }

  // The table folder, as a local path.
  static std::string TableDir(const Table& t) { return *t.LocalPath(t.metadata().location); }

  // A data file at `local` (created with a byte of content), as the
  // manifest entry a writer would add.
  static iceberg::DataFile FileAt(const std::string& local, int64_t rows = 1) {
    fs::create_directories(fs::path(local).parent_path());
    EXPECT_OK(WriteLocalFile(local, "x"));
    iceberg::DataFile f;
    f.file_path = FileUri(local);
    f.record_count = rows;
    f.file_size_in_bytes = 1;
    return f;
  }
  static iceberg::DataFile File(const Table& t, const std::string& name) {
    return FileAt(TableDir(t) + "/data/" + name);
  }

  // Sets a file's modification time `age_ms` into the past (lutimes: a
  // symlink's own time), as if it had been left there that long ago.
  static void Age(const fs::path& p, int64_t age_ms) {
    struct timeval now;
    ::gettimeofday(&now, nullptr);
    int64_t t_ms = int64_t{now.tv_sec} * 1000 + now.tv_usec / 1000 - age_ms;
    struct timeval tv[2];
    tv[0].tv_sec = tv[1].tv_sec = t_ms / 1000;
    tv[0].tv_usec = tv[1].tv_usec = (t_ms % 1000) * 1000;
    ASSERT_EQ(::lutimes(p.c_str(), tv), 0) << p;
  }
  // Ages every file under `dir` (recursively).
  static void AgeAll(const fs::path& dir, int64_t age_ms) {
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
      if (!e.is_directory()) Age(e.path(), age_ms);
    }
  }

  fs::path dir_;
  std::unique_ptr<catalog::Catalog> catalog_;
};

}  // namespace floe::table::testing_util
