#include "testing/avro_java.h"

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>

#include "testing/files.h"

namespace floe::test {
namespace {

namespace fs = std::filesystem;

// Where avro_java.sh compiles AvroCheck (its own rule: $ICEBERG_INTEROP_HOME,
// else $XDG_CACHE_HOME or ~/.cache, then iceberg-interop/java).
std::string AvroCheckClassDir() {
  if (const char* home = std::getenv("ICEBERG_INTEROP_HOME"); home && *home) {
    return std::string(home) + "/java";
  }
  std::string cache;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    cache = xdg;
  } else if (const char* h = std::getenv("HOME"); h && *h) {
    cache = std::string(h) + "/.cache";
  }
  return cache + "/iceberg-interop/java";
}

std::string Run(const std::string& cmd, int* code) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) {
    *code = 127;
    return "popen failed";
  }
  std::array<char, 4096> buf;
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  const int status = ::pclose(p);
  *code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return out;
}

}  // namespace

bool AvroJavaInstalled() { return fs::exists("/usr/share/java/avro.jar"); }

AvroJavaResult AvroJava(const std::vector<std::string>& files) {
  AvroJavaResult r;
  const std::string script = SharedDir() + "/interop/avro_java.sh";
  // avro_java.sh with no file compiles AvroCheck when it is missing or older
  // than its source, and reads nothing. Once per process.
  static std::once_flag compiled;
  static int compile_code = 0;
  static std::string compile_out;
  std::call_once(compiled, [&] { compile_out = Run("bash " + ShellQuote(script) + " 2>&1", &compile_code); });
  if (compile_code != 0) {
    r.code = compile_code;
    r.command = "bash " + script;
    r.out = compile_out;
    return r;
  }
  // avro_java.sh's class path: Debian's jars of Avro Java and what it uses.
  std::string cp;
  for (const char* jar : {"avro", "jackson-core-asl", "jackson-mapper-asl", "commons-compress", "xz", "snappy-java",
                          "slf4j-api", "paranamer"}) {
    const std::string path = std::string("/usr/share/java/") + jar + ".jar";
    if (fs::exists(path)) cp += path + ":";
  }
  cp += AvroCheckClassDir();
  r.command = "java -cp " + ShellQuote(cp) + " " + ShellQuote(FLOE_SOURCE_DIR "/tests/tools/AvroCheckEach.java");
  for (const std::string& f : files) r.command += " " + ShellQuote(f);
  r.out = Run(r.command + " 2>&1", &r.code);
  return r;
}

}  // namespace floe::test
