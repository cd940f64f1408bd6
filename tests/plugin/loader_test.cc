// The loader refuses what is not a floe plugin of this ABI, naming the file
// and what is wrong; class names are unique; a lookup miss reads as Flink's
// "Could not find any factory" text and FLOE_PLUGIN_PATH is searched on a miss.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "floe/plugin/plugin_registry.h"
#include "plugin_test_util.h"
#include "testing/matchers.h"

namespace floe::plugin {
namespace loader_test {

using floe::test::HasErrorMessage;
using floe::test::IsError;
using test::PluginFile;
using ::testing::AllOf;
using ::testing::HasSubstr;

TEST(PluginLoader, LoadsAPluginAndItsClasses) {
  ASSERT_OK_AND_ASSIGN(LibraryInfo info, LoadPlugin(PluginFile("floe_test_sink")));
  EXPECT_EQ(info.name, "floe-test-sink");
  EXPECT_EQ(info.version, "1.0");
  EXPECT_EQ(info.abi_major, uint32_t(FLOE_PLUGIN_ABI_MAJOR));
  EXPECT_THAT(info.sink_classes, ::testing::ElementsAre("test.RecordingSink", "test.RetractSink",
                                                        "test.AppendSink", "test.BatchSink"));
  // A second load of the same file is the first one.
  ASSERT_OK_AND_ASSIGN(LibraryInfo again, LoadPlugin(PluginFile("floe_test_sink")));
  EXPECT_EQ(again.path, info.path);
  ASSERT_OK_AND_ASSIGN(SinkClass c, FindSinkClass("test.RecordingSink"));
  EXPECT_EQ(c.vtable->capabilities, FLOE_SINK_ACCEPTS_DELETES);
}

// A library whose static constructor crashes or exits, inside dlopen before
// any class is known: the message names the library (it was a bare SIGSEGV,
// or exit 0). Without FLOE_TEST_LOAD_TRAP the same library loads normally.
TEST(PluginLoaderDeathTest, CrashInAStaticConstructorNamesTheLibrary) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::string lib = PluginFile("floe_test_load_trap");
  EXPECT_EXIT(
      {
        ::setenv("FLOE_TEST_LOAD_TRAP", "crash", 1);
        (void)LoadPlugin(lib);
        std::_Exit(3);
      },
      ::testing::ExitedWithCode(70),
      "floe.PluginException: plugin library .*libfloe_test_load_trap.so crashed in dlopen \\(its static "
      "constructors\\) \\(SIGSEGV\\); nothing was committed");
  EXPECT_EXIT(
      {
        ::setenv("FLOE_TEST_LOAD_TRAP", "exit", 1);
        (void)LoadPlugin(lib);
        std::_Exit(3);
      },
      ::testing::ExitedWithCode(70),
      "plugin library .*libfloe_test_load_trap.so ended the process in dlopen \\(its static constructors\\) "
      "\\(exit\\(0\\)\\)");
  ::unsetenv("FLOE_TEST_LOAD_TRAP");
  ASSERT_OK_AND_ASSIGN(LibraryInfo info, LoadPlugin(lib));
  EXPECT_THAT(info.sink_classes, ::testing::ElementsAre("test.LoadTrapSink"));
  EXPECT_OK(UnloadPlugin(lib));  // other tests list the registered classes
}

TEST(PluginLoader, MissingFile) {
  EXPECT_THAT(LoadPlugin("/nonexistent/libnothing.so"),
              AllOf(IsError(ErrorKind::kNotFound),
                    HasErrorMessage("plugin /nonexistent/libnothing.so: no such file")));
}

TEST(PluginLoader, NotASharedLibrary) {
  auto dir = floe::test::FreshTestDir("plugin_loader");
  std::string path = (dir / "not_a_library.so").string();
  ASSERT_TRUE(floe::test::WriteFile(path, "this is text"));
  EXPECT_THAT(LoadPlugin(path), AllOf(IsError(ErrorKind::kInvalidArgument),
                                      HasErrorMessage("plugin " + path + ": cannot load it: ")));
  floe::test::RemoveTestDirIfPassed(dir);
}

TEST(PluginLoader, NotAPlugin) {
  std::string path = PluginFile("floe_test_not_a_plugin");
  EXPECT_THAT(LoadPlugin(path),
              HasErrorMessage("plugin " + path +
                              ": not a floe plugin: it exports no 'floe_plugin_manifest' symbol"));
}

TEST(PluginLoader, WrongMagic) {
  std::string path = PluginFile("floe_test_abi_magic");
  EXPECT_THAT(
      LoadPlugin(path),
      HasErrorMessage("plugin " + path + ": not a floe plugin: its manifest's magic is 0x1234"));
}

TEST(PluginLoader, WrongAbiMajor) {
  std::string path = PluginFile("floe_test_abi_major");
  EXPECT_THAT(LoadPlugin(path),
              HasErrorMessage(fmt::format("plugin {}: built for floe plugin ABI 2.0, but this floe "
                                          "speaks ABI {}.{} (the major versions must be equal",
                                          path, FLOE_PLUGIN_ABI_MAJOR, FLOE_PLUGIN_ABI_MINOR)));
}

TEST(PluginLoader, NewerAbiMinor) {
  std::string path = PluginFile("floe_test_abi_minor");
  EXPECT_THAT(LoadPlugin(path),
              HasErrorMessage(fmt::format(
                  "plugin {}: built for floe plugin ABI {}.99, newer than this floe's ABI {}.{}",
                  path, FLOE_PLUGIN_ABI_MAJOR, FLOE_PLUGIN_ABI_MAJOR, FLOE_PLUGIN_ABI_MINOR)));
}

TEST(PluginLoader, NoInitFunction) {
  std::string path = PluginFile("floe_test_abi_no_init");
  EXPECT_THAT(LoadPlugin(path),
              HasErrorMessage("plugin " + path + ": exports no 'floe_plugin_init' function"));
}

TEST(PluginLoader, InitFailureCarriesThePluginsMessage) {
  std::string path = PluginFile("floe_test_abi_fail_init");
  EXPECT_THAT(
      LoadPlugin(path),
      HasErrorMessage("plugin " + path + ": floe_plugin_init failed: the license file is missing"));
  EXPECT_THAT(SinkClassNames(), ::testing::Not(::testing::Contains("test.AbiSink")));
}

TEST(PluginLoader, DuplicateClassRefusesTheWholeLibrary) {
  ASSERT_OK(LoadPlugin(PluginFile("floe_test_sink")));
  std::string path = PluginFile("floe_test_abi_duplicate");
  EXPECT_THAT(LoadPlugin(path),
              AllOf(IsError(ErrorKind::kAlreadyExists),
                    HasErrorMessage("plugin " + path +
                                    ": class 'test.RecordingSink' is already registered by ")));
  for (const auto& l : LoadedPlugins()) EXPECT_NE(l.name + l.path, "floe-test-abi" + path);
}

TEST(PluginLoader, UnknownClassListsTheRegisteredOnesAsFlinkDoes) {
  ASSERT_OK(LoadPlugin(PluginFile("floe_test_sink")));
  auto found = FindSinkClass("com.example.Missing");
  ASSERT_THAT(found, IsError(ErrorKind::kNotFound));
  const std::string& m = found.error().message;
  EXPECT_THAT(
      m,
      HasSubstr("Could not find any factory for identifier 'com.example.Missing' that implements "
                "'floe sink plugin'"));
  EXPECT_THAT(m, HasSubstr("\n\nAvailable factory identifiers are:\n\n"));
  EXPECT_THAT(m,
              HasSubstr("test.AppendSink\ntest.BatchSink\ntest.RecordingSink\ntest.RetractSink\n"));
}

TEST(PluginLoader, PluginPathIsSearchedOnAMiss) {
  // The ABI-ok plugin is loaded by no other test: found through the path.
  std::string dir = std::string(FLOE_BINARY_DIR) + "/plugins";
  EXPECT_THAT(PluginPathFiles(dir + ":/x/y.so"),
              ::testing::Contains(PluginFile("floe_test_abi_ok")));
  ::setenv(kPluginPathEnv, PluginFile("floe_test_abi_ok").c_str(), 1);
  auto found = FindSinkClass("test.AbiSink");
  ::unsetenv(kPluginPathEnv);
  ASSERT_OK(found);
  EXPECT_EQ(found->name, "test.AbiSink");
  // A path entry that fails to load is named in the miss message.
  ::setenv(kPluginPathEnv, PluginFile("floe_test_abi_major").c_str(), 1);
  auto missing = FindSinkClass("test.Nope");
  ::unsetenv(kPluginPathEnv);
  EXPECT_THAT(missing, HasErrorMessage("Plugin libraries that failed to load:\n  plugin " +
                                       PluginFile("floe_test_abi_major") +
                                       ": built for floe plugin ABI 2.0"));
}

}  // namespace loader_test
}  // namespace floe::plugin
