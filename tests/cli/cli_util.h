// Helpers shared by the tests that drive the built `floe` command: running a
// command line in a test's folder; files, quoting, test folders and where
// shared/interop lives come from the test support library (testing/files.h).
#pragma once

#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "floe/cli/run.h"
#include "testing/files.h"
#include "testing/oracle.h"

namespace floe_cli_test {

namespace fs = std::filesystem;

struct RunResult {
  int rc = -1;
  std::string out, err;
};

using floe::test::FreshTestDir;
using floe::test::ReadFile;
using floe::test::RemoveTestDirIfPassed;
using floe::test::SharedDir;
using floe::test::WriteFile;

/// Single-quotes `s` for /bin/sh (the CLI tests' short name for ShellQuote).
inline std::string Shell(const std::string& s) { return floe::test::ShellQuote(s); }

/// Runs a /bin/sh command line in `dir`, stdout and stderr captured apart
/// (through files in `dir`, removed afterwards).
inline RunResult RunIn(const fs::path& dir, const std::string& cmd) {
  fs::path out = dir / ".stdout", err = dir / ".stderr";
  std::string full = "cd " + Shell(dir.string()) + " && " + cmd + " >" + Shell(out.string()) +
                     " 2>" + Shell(err.string());
  int status = std::system(full.c_str());
  RunResult r;
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = ReadFile(out);
  r.err = ReadFile(err);
  fs::remove(out);
  fs::remove(err);
  return r;
}

/// Runs `floe args...` in this process (floe::cli::Run) from `dir`, with
/// /dev/null as standard input and standard output and error captured: for
/// the checks whose process boundary is not what they test (reading a table
/// back, listing snapshots or files), which then cost no process start. The
/// working folder is changed for the call (the tests run one at a time).
/// `stdin_fd` (not closed here) replaces /dev/null as standard input.
inline RunResult FloeIn(const fs::path& dir, const std::vector<std::string>& args, int stdin_fd = -1) {
  RunResult r;
  const int out = ::memfd_create("floe-out", MFD_CLOEXEC);
  const int err = ::memfd_create("floe-err", MFD_CLOEXEC);
  const int in = stdin_fd >= 0 ? stdin_fd : ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  std::error_code ec;
  const fs::path before = fs::current_path(ec);
  fs::current_path(dir, ec);
  if (out < 0 || err < 0 || in < 0 || ec) {
    r.err = "FloeIn: cannot set up the command's descriptors or folder";
  } else {
    std::vector<std::string> argv = {"floe"};
    argv.insert(argv.end(), args.begin(), args.end());
    r.rc = floe::cli::Run(argv, floe::cli::Io{in, out, err});
    for (auto [fd, text] : {std::pair{out, &r.out}, std::pair{err, &r.err}}) {
      ::lseek(fd, 0, SEEK_SET);
      char buf[1 << 16];
      for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) text->append(buf, static_cast<size_t>(n));
    }
  }
  fs::current_path(before, ec);
  for (int fd : {out, err, stdin_fd >= 0 ? -1 : in}) {
    if (fd >= 0) ::close(fd);
  }
  return r;
}

/// A /bin/sh command line's words, for the quoting the tests write: white
/// space separates words; '...' is taken as it is (so Shell()'s '\'' works),
/// "..." with \" and \\ escapes, and a backslash outside quotes escapes the
/// next character. No expansion of any kind.
inline std::vector<std::string> ShellWords(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '\'') {
      const size_t end = line.find('\'', i + 1);
      word.append(line, i + 1, (end == std::string::npos ? line.size() : end) - i - 1);
      i = end == std::string::npos ? line.size() : end;
      in_word = true;
    } else if (c == '"') {
      for (++i; i < line.size() && line[i] != '"'; ++i) {
        if (line[i] == '\\' && i + 1 < line.size() && (line[i + 1] == '"' || line[i + 1] == '\\')) ++i;
        word.push_back(line[i]);
      }
      in_word = true;
    } else if (c == '\\' && i + 1 < line.size()) {
      word.push_back(line[++i]);
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else {
      word.push_back(c);
      in_word = true;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

/// True when `args` is plain words for /bin/sh: quoting ('...', "..." and
/// backslashes) and nothing else, so that ShellWords(args) is what the shell
/// would pass. A redirection, pipe, list, background job, substitution,
/// expansion, glob or comment makes it false.
inline bool PlainWords(const std::string& args) {
  char quote = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    const char c = args[i];
    if (quote == '\'') {
      if (c == '\'') quote = 0;
    } else if (quote == '"') {
      if (c == '"') quote = 0;
      else if (c == '$' || c == '`') return false;
      else if (c == '\\' && i + 1 < args.size() && (args[i + 1] == '"' || args[i + 1] == '\\')) ++i;
      else if (c == '\\') return false;  // \$, \` and \newline: ShellWords keeps the backslash
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '\\') {
      ++i;
    } else if (std::string_view("<>|&;$`()*?[]~#\n").find(c) != std::string_view::npos) {
      return false;
    }
  }
  return quote == 0;
}

/// Runs `floe args` from `dir`. Plain words (PlainWords) run in this process
/// (FloeIn: standard input /dev/null, the same exit status and output as the
/// process, no process start: under ASan a `floe` start alone costs 0.14 CPU
/// s); anything else (`< file`, pipes, `&`, environment) runs through
/// /bin/sh, as do the tests that are about the process boundary, which call
/// RunIn themselves.
inline RunResult FloeRun(const fs::path& dir, const std::string& args) {
  if (PlainWords(args)) return FloeIn(dir, ShellWords(args));
  return RunIn(dir, Shell(FLOE_BIN) + " " + args);
}

/// `text` split at white space (arguments written as one string, no quoting).
inline std::vector<std::string> Words(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

/// An interop reader of shared/interop (`verify_table.mjs`, ...) run from
/// `dir` with `args` (no shell), through the test process's one
/// oracle_server.mjs (testing/oracle.h): the same status and output as
/// `cd dir && node script args...`, without a node start per check.
inline RunResult Node(const fs::path& dir, const std::string& script, const std::vector<std::string>& args) {
  floe::test::OracleResult o = floe::test::Oracle(script, args, dir.string());
  RunResult r;
  r.rc = o.code;
  r.out = std::move(o.out);
  r.err = o.code == 0 ? std::move(o.err) : o.command + ": " + o.err;
  return r;
}

/// A `floe` process started in `dir` with stdout and stderr in files
/// (`<name>.out`, `<name>.err`), to signal, kill or wait for: for the tests of
/// a process boundary (signals, kill -9, concurrent processes).
class FloeProcess {
 public:
  FloeProcess(const fs::path& dir, const std::string& name, const std::vector<std::string>& args)
      : out_(dir / (name + ".out")), err_(dir / (name + ".err")) {
    pid_ = ::fork();
    if (pid_ == 0) {
      if (::chdir(dir.c_str()) != 0) ::_exit(126);
      const int o = ::open(out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int e = ::open(err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (o < 0 || e < 0) ::_exit(126);
      ::dup2(o, 1);
      ::dup2(e, 2);
      std::vector<char*> argv;
      std::string bin = FLOE_BIN;
      argv.push_back(bin.data());
      std::vector<std::string> copy = args;
      for (auto& a : copy) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(bin.c_str(), argv.data());
      ::_exit(127);
    }
  }
  ~FloeProcess() {
    if (running()) Kill();
  }
  bool running() {
    if (done_) return false;
    int status = 0;
    pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) Finish(status);
    return !done_;
  }
  void Kill() {
    ::kill(pid_, SIGKILL);
    Wait();
  }
  /// Sends `sig` (the process may still be running afterwards).
  void Signal(int sig) { ::kill(pid_, sig); }
  // Waits for the exit (a failsafe bound turns a hang into a failure).
  int Wait() {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(3);
    while (running()) {
      if (std::chrono::steady_clock::now() > give_up) {
        ADD_FAILURE() << "floe did not stop; stderr: " << err();
        ::kill(pid_, SIGKILL);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return rc_;
  }
  std::string out() const { return ReadFile(out_); }
  std::string err() const { return ReadFile(err_); }

 private:
  void Finish(int status) {
    done_ = true;
    rc_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  fs::path out_, err_;
  pid_t pid_ = -1;
  bool done_ = false;
  int rc_ = -1;
};

}  // namespace floe_cli_test
