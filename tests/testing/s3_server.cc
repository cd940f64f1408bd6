#include "testing/s3_server.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>

#include "testing/files.h"

namespace floe::test {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kObjectSuffix = "._S3rver_object";

}  // namespace

Result<std::unique_ptr<S3TestServer>> S3TestServer::Start(S3ServerOptions options) {
  std::unique_ptr<S3TestServer> s(new S3TestServer());
  s->options_ = std::move(options);
  const std::string script =
      s->options_.conditional_writes
          ? SharedDir() + "/interop/s3_server.cjs"
          : std::string(FLOE_SOURCE_DIR) + "/tests/testing/s3_server_no_conditional.cjs";
  if (!fs::exists(script)) return NotFound("the S3 test server {} is missing", script);
  std::string tmpl =
      (s->options_.parent_dir.empty() ? std::string("/tmp") : s->options_.parent_dir) +
      "/floe_s3_XXXXXX";
  if (!::mkdtemp(tmpl.data())) {
    return IoError("cannot make a folder for the S3 test server in {}: {}", tmpl, std::strerror(errno));
  }
  s->dir_ = tmpl;
  int out[2];
  if (::pipe(out) != 0) return IoError("pipe: {}", std::strerror(errno));
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) return IoError("fork: {}", std::strerror(errno));
  if (pid == 0) {
    // The server goes when the test process does, however it ends.
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    ::dup2(out[1], 1);
    ::close(out[0]);
    ::close(out[1]);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    const std::string dir = s->dir_.string();
    // Through the listing fix (s3rver_listing_fix.cjs), which then loads `script`.
    const std::string fix = std::string(FLOE_SOURCE_DIR) + "/tests/testing/s3rver_listing_fix.cjs";
    std::vector<std::string> args = {"node",
                                     "--openssl-legacy-provider",
                                     fix,
                                     "--server",
                                     script,
                                     "--dir",
                                     dir,
                                     "--port",
                                     "0",
                                     "--bucket",
                                     s->options_.bucket,
                                     "--key",
                                     s->options_.access_key,
                                     "--secret",
                                     s->options_.secret_key};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execvp("node", argv.data());
    std::fprintf(stderr, "cannot run node: %s\n", std::strerror(errno));
    ::_exit(127);
  }
  ::close(out[1]);
  s->pid_ = pid;
  // Wait for "S3 test server on http://127.0.0.1:PORT bucket=B".
  std::string text;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (text.find('\n') == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{out[0], POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    char buf[512];
    ssize_t n = ::read(out[0], buf, sizeof buf);
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  ::close(out[0]);
  const std::string marker = "S3 test server on ";
  auto at = text.find(marker);
  if (at == std::string::npos) {
    return IoError(
        "the S3 test server ({}) did not start; it said: '{}' (is node installed, and "
        "shared/interop/install.sh run?)",
        script, text);
  }
  std::string url = text.substr(at + marker.size());
  url = url.substr(0, url.find(' '));
  s->endpoint_ = url;
  s->port_ = std::atoi(url.substr(url.rfind(':') + 1).c_str());
  return s;
}

S3TestServer::~S3TestServer() { Stop(); }

void S3TestServer::Pause() {
  if (pid_ > 0) ::kill(pid_, SIGSTOP);
}

void S3TestServer::Resume() {
  if (pid_ > 0) ::kill(pid_, SIGCONT);
}

void S3TestServer::Stop() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    ::kill(pid_, SIGCONT);  // a paused server handles the SIGTERM only when it runs
    int status = 0;
    // s3rver closes on SIGTERM; a server that hangs is killed after 5 s.
    for (int i = 0; i < 100; ++i) {
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      ::usleep(50000);
    }
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
      pid_ = -1;
    }
  }
  if (!dir_.empty()) {
    std::error_code ec;
    fs::remove_all(dir_, ec);
    dir_.clear();
  }
}

std::map<std::string, std::string> S3TestServer::CatalogProperties(
    const std::string& warehouse) const {
  std::map<std::string, std::string> p = {{"s3.endpoint", endpoint_},
                                          {"s3.access-key-id", options_.access_key},
                                          {"s3.secret-access-key", options_.secret_key},
                                          {"s3.path-style-access", "true"}};
  if (!warehouse.empty()) p["warehouse"] = warehouse;
  return p;
}

std::string S3TestServer::CatalogArgs(const std::string& warehouse) const {
  std::string out;
  for (const auto& [k, v] : CatalogProperties(warehouse)) {
    out += (out.empty() ? "" : " ") + std::string("--catalog ") + ShellQuote(k + "=" + v);
  }
  return out;
}

Status S3TestServer::Mirror(const fs::path& target, const std::string& prefix) const {
  std::error_code ec;
  fs::remove_all(target, ec);
  fs::create_directories(target, ec);
  if (ec) return IoError("cannot make {}: {}", target.string(), ec.message());
  const fs::path root = dir_ / options_.bucket;
  if (!fs::exists(root)) return Ok();
  for (auto it = fs::recursive_directory_iterator(root, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const std::string p = it->path().string();
    if (!p.ends_with(kObjectSuffix) || !it->is_regular_file()) continue;
    std::string key = fs::relative(it->path(), root).string();
    key.resize(key.size() - kObjectSuffix.size());
    if (!key.starts_with(prefix) || key.ends_with("/")) continue;
    const fs::path link = target / key;
    fs::create_directories(link.parent_path(), ec);
    if (ec) return IoError("cannot make {}: {}", link.parent_path().string(), ec.message());
    fs::create_symlink(it->path(), link, ec);
    if (ec) return IoError("cannot link {}: {}", link.string(), ec.message());
  }
  if (ec) return IoError("cannot list {}: {}", root.string(), ec.message());
  return Ok();
}

}  // namespace floe::test
