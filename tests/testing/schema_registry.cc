#include "testing/schema_registry.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include "testing/files.h"

namespace floe::test {

namespace {

/// Runs `cmd` with /bin/sh; its standard output, and its exit status.
std::pair<std::string, int> Capture(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return {"", -1};
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int status = ::pclose(p);
  return {out, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

}  // namespace

Result<std::unique_ptr<SchemaRegistryServer>> SchemaRegistryServer::Start(const std::string& user,
                                                                          const std::string& password) {
  std::unique_ptr<SchemaRegistryServer> s(new SchemaRegistryServer());
  s->user_ = user;
  s->password_ = password;
  const std::string script = std::string(FLOE_SOURCE_DIR) + "/tests/testing/schema_registry.mjs";
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return IoError("pipe: {}", std::strerror(errno));
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) return IoError("fork: {}", std::strerror(errno));
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);  // the registry goes with the test process
    ::dup2(out[1], 1);
    const int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    std::vector<std::string> args = {"node", script, "--port", "0"};
    if (!user.empty()) {
      args.insert(args.end(), {"--user", user, "--password", password});
    }
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execvp("node", argv.data());
    std::fprintf(stderr, "cannot run node: %s\n", std::strerror(errno));
    ::_exit(127);
  }
  ::close(out[1]);
  s->pid_ = pid;
  std::string text;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (text.find('\n') == std::string::npos) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{out[0], POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
    char buf[256];
    const ssize_t n = ::read(out[0], buf, sizeof buf);
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  ::close(out[0]);
  const std::string marker = "schema registry on ";
  const auto at = text.find(marker);
  if (at == std::string::npos) {
    return IoError("the schema registry fixture ({}) did not start; it said: '{}' (is node installed?)", script, text);
  }
  s->url_ = text.substr(at + marker.size());
  s->url_ = s->url_.substr(0, s->url_.find_first_of(" \n"));
  return s;
}

SchemaRegistryServer::~SchemaRegistryServer() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
}

int SchemaRegistryServer::Requests(const std::string& route) const {
  const std::string auth = user_.empty() ? "" : " -u " + ShellQuote(user_ + ":" + password_);
  auto [out, rc] = Capture("curl -s" + auth + " " + ShellQuote(url_ + "/requests"));
  auto j = nlohmann::json::parse(out, nullptr, false);
  if (rc != 0 || !j.is_object()) return -1;
  return j.contains(route) ? j[route].get<int>() : 0;
}

Result<std::vector<std::string>> SchemaRegistryServer::Encode(const std::string& subject,
                                                              const std::filesystem::path& out_dir,
                                                              const std::string& args) const {
  std::string cmd = "cd " + ShellQuote(out_dir.parent_path().string()) + " && node " + ShellQuote(std::string(FLOE_SOURCE_DIR) + "/tests/testing/avro_confluent_encode.mjs") +
                    " " + ShellQuote(SharedDir()) + " --registry " + ShellQuote(url_) + " --subject " +
                    ShellQuote(subject) + " --out " + ShellQuote(out_dir.string()) + " " + args;
  if (!user_.empty()) cmd += " --user " + ShellQuote(user_) + " --password " + ShellQuote(password_);
  auto [out, rc] = Capture(cmd + " 2>&1");
  if (rc != 0) return IoError("{}: exit {}: {}", cmd, rc, out);
  std::vector<std::string> files;
  size_t start = 0;
  while (start < out.size()) {
    size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    if (end > start) files.push_back(out.substr(start, end - start));
    start = end + 1;
  }
  return files;
}

}  // namespace floe::test
