// One `node oracle_server.mjs` per test process (oracle.h).
#include "testing/oracle.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <nlohmann/json.hpp>

#include "testing/files.h"

extern char** environ;

namespace floe::test {

namespace {

class Server {
 public:
  /// Ends the server (closes its input, waits for it).
  void Stop() {
    std::lock_guard<std::mutex> lock(mu_);
    StopLocked();
  }

  OracleResult Run(const std::string& script, const std::vector<std::string>& args, const std::string& cwd) {
    std::lock_guard<std::mutex> lock(mu_);
    OracleResult r;
    r.command = (cwd.empty() ? std::string() : "cd " + ShellQuote(cwd) + " && ") + "node " +
                ShellQuote(SharedDir() + "/interop/" + script);
    for (const auto& a : args) r.command += " " + ShellQuote(a);
    nlohmann::json req = {{"id", ++id_}, {"script", script}, {"args", args}};
    if (!cwd.empty()) req["cwd"] = cwd;
    const std::string line = req.dump() + "\n";
    std::string answer;
    for (int attempt = 0; attempt < 2; ++attempt) {
      if (pid_ <= 0 && !Start(&r.err)) {
        r.code = 127;
        return r;
      }
      if (Send(line) && Receive(&answer)) break;
      // The server died (or never started): once more with a new one.
      r.err = "oracle_server: no answer (the server ended)";
      answer.clear();
      StopLocked();
    }
    if (answer.empty()) {
      r.code = 127;
      return r;
    }
    nlohmann::json a = nlohmann::json::parse(answer, nullptr, false);
    if (a.is_discarded() || !a.is_object() || a.value("id", int64_t{-1}) != id_) {
      r.code = 127;
      r.err = "oracle_server: an answer that is not the request's: " + answer.substr(0, 500);
      StopLocked();
      return r;
    }
    r.code = a.value("code", 127);
    r.out = a.value("stdout", std::string());
    r.err = a.value("stderr", std::string());
    if (a.value("stdout_base64", false) || a.value("stderr_base64", false)) {
      r.code = 127;
      r.err = "oracle_server: base64 answers are not decoded by the tests (a script printed bytes that are not UTF-8)";
    }
    return r;
  }

 private:
  bool Start(std::string* err) {
    int in[2], out[2];
    if (::pipe2(in, O_CLOEXEC) != 0) return Failed(err, "pipe");
    if (::pipe2(out, O_CLOEXEC) != 0) {
      ::close(in[0]);
      ::close(in[1]);
      return Failed(err, "pipe");
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    const std::string script = SharedDir() + "/interop/oracle_server.mjs";
    char* argv[] = {const_cast<char*>("node"), const_cast<char*>(script.c_str()), nullptr};
    const int rc = ::posix_spawnp(&pid_, "node", &fa, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    ::close(in[0]);
    ::close(out[1]);
    if (rc != 0) {
      ::close(in[1]);
      ::close(out[0]);
      pid_ = -1;
      errno = rc;
      return Failed(err, "posix_spawnp node");
    }
    to_ = in[1];
    from_ = out[0];
    buffer_.clear();
    return true;
  }

  static bool Failed(std::string* err, const char* what) {
    *err = std::string("oracle_server: ") + what + ": " + std::strerror(errno);
    return false;
  }

  bool Send(const std::string& line) {
    // A server that died would raise SIGPIPE: ignored while writing.
    struct sigaction ign {}, old {};
    ign.sa_handler = SIG_IGN;
    ::sigaction(SIGPIPE, &ign, &old);
    size_t off = 0;
    bool ok = true;
    while (off < line.size()) {
      const ssize_t n = ::write(to_, line.data() + off, line.size() - off);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        ok = false;
        break;
      }
      off += static_cast<size_t>(n);
    }
    ::sigaction(SIGPIPE, &old, nullptr);
    return ok;
  }

  bool Receive(std::string* line) {
    for (;;) {
      const size_t nl = buffer_.find('\n');
      if (nl != std::string::npos) {
        *line = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return true;
      }
      char buf[1 << 16];
      const ssize_t n = ::read(from_, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      buffer_.append(buf, static_cast<size_t>(n));
    }
  }

  void StopLocked() {
    if (to_ >= 0) ::close(to_);  // end of input: the server exits
    if (from_ >= 0) ::close(from_);
    to_ = from_ = -1;
    if (pid_ > 0) {
      int status = 0;
      while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
    }
    pid_ = -1;
  }

  std::mutex mu_;
  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
  std::string buffer_;
  int64_t id_ = 0;
};

Server& TheServer() {
  // Lives to the end of the process; at exit its input is closed and it is
  // waited for, so its CPU time counts as this process's children's (the
  // test scripts' accounting) and no node outlives the test binary.
  static Server* server = [] {
    auto* s = new Server();
    std::atexit([] { TheServer().Stop(); });
    return s;
  }();
  return *server;
}

}  // namespace

OracleResult Oracle(const std::string& script, const std::vector<std::string>& args, const std::string& cwd) {
  return TheServer().Run(script, args, cwd);
}

}  // namespace floe::test
