#include "testing/postgres.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>

#include "testing/files.h"

namespace floe::test {

namespace {

namespace fs = std::filesystem;

struct Cluster {
  std::string bin;  // folder of initdb, pg_ctl, psql
  std::string as;   // "runuser -u postgres -- " when root
  std::string dir;  // data, log and socket
  int port = 0;
  pid_t owner = 0;  // the process that started it (forked children never stop it)
  int databases = 0;
};

std::mutex g_mu;
Cluster* g_cluster = nullptr;

// Runs a /bin/sh command; its output (stdout and stderr) and exit status.
std::pair<int, std::string> Run(const std::string& command) {
  std::string out;
  std::fflush(nullptr);
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (!p) return {-1, "cannot run: " + command};
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int rc = ::pclose(p);
  return {rc, out};
}

std::string FindBin() {
  // Debian keeps the server programs out of PATH, one folder per version.
  for (int v = 17; v >= 13; --v) {
    std::string dir = "/usr/lib/postgresql/" + std::to_string(v) + "/bin";
    if (fs::exists(dir + "/initdb") && fs::exists(dir + "/pg_ctl")) return dir;
  }
  if (const char* path = std::getenv("PATH")) {
    std::string p = path;
    size_t start = 0;
    while (start <= p.size()) {
      size_t colon = p.find(':', start);
      std::string dir =
          p.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
      if (!dir.empty() && fs::exists(dir + "/initdb") && fs::exists(dir + "/pg_ctl")) {
        std::error_code ec;
        fs::path real = fs::canonical(dir + "/initdb", ec);
        return ec ? dir : real.parent_path().string();
      }
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
  }
  return "";
}

int FreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t len = sizeof a;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
    port = ntohs(a.sin_port);
  }
  ::close(fd);
  return port;
}

void StopCluster() {
  std::lock_guard lock(g_mu);
  if (!g_cluster || g_cluster->owner != ::getpid()) return;
  (void)Run(g_cluster->as + g_cluster->bin + "/pg_ctl -D " + g_cluster->dir +
            "/data -m fast -w stop");
  std::error_code ec;
  fs::remove_all(g_cluster->dir, ec);
  // Freed here, not left to the end of the process: LeakSanitizer checks after
  // the atexit handlers and counts a dropped pointer as a leak (asan run).
  delete g_cluster;
  g_cluster = nullptr;
}

Result<Cluster*> Start() {
  if (g_cluster) return g_cluster;
  auto c = std::make_unique<Cluster>();
  c->bin = FindBin();
  if (c->bin.empty()) {
    return NotFound(
        "PostgreSQL is not installed (no initdb/pg_ctl under /usr/lib/postgresql/*/bin or on "
        "PATH): "
        "install it with scripts/install-deps (package postgresql)");
  }
  char tmpl[] = "/tmp/floe_pg_XXXXXX";
  if (!::mkdtemp(tmpl)) return IoError("cannot make a folder for the PostgreSQL cluster");
  c->dir = tmpl;
  if (::geteuid() == 0) {
    // postgres refuses to run as root: the cluster belongs to the postgres user.
    passwd* pw = ::getpwnam("postgres");
    if (!pw) return NotFound("running as root and there is no postgres user to run PostgreSQL as");
    if (::chown(c->dir.c_str(), pw->pw_uid, pw->pw_gid) != 0) {
      return IoError("cannot hand {} to the postgres user", c->dir);
    }
    c->as = "runuser -u postgres -- ";
  }
  auto [rc, out] =
      Run(c->as + c->bin + "/initdb -D " + c->dir +
          "/data -U postgres --auth=trust --encoding=UTF8 " + "--locale=C.UTF-8 --no-sync");
  if (rc != 0) return IoError("initdb failed: {}", out);
  {
    // Every role trusted, but for kPasswordRole, which must give its password
    // (the first matching pg_hba.conf line decides): jdbc.password's test.
    const std::string hba = c->dir + "/data/pg_hba.conf";
    std::string text = ReadFile(hba);
    std::string line = std::string("host all ") + kPasswordRole + " 127.0.0.1/32 scram-sha-256\n";
    FILE* f = std::fopen(hba.c_str(), "w");
    if (!f) return IoError("cannot write {}", hba);
    std::fputs((line + text).c_str(), f);
    std::fclose(f);
  }
  // A port another process takes between our probe and the start: try again.
  std::string last;
  for (int attempt = 0; attempt < 5; ++attempt) {
    c->port = FreePort();
    auto [src, sout] =
        Run(c->as + c->bin + "/pg_ctl -D " + c->dir + "/data -l " + c->dir + "/log -w start -o " +
            ShellQuote("-c listen_addresses=127.0.0.1 -p " + std::to_string(c->port) + " -k " +
                       c->dir + " -c fsync=off -c max_connections=200" +
                       // Logical replication (the PostgreSQL source's tests).
                       " -c wal_level=logical -c max_replication_slots=32 -c max_wal_senders=32"));
    if (src == 0) {
      c->owner = ::getpid();
      g_cluster = c.release();
      std::atexit(StopCluster);
      return g_cluster;
    }
    last = sout + ReadFile(c->dir + "/log");
  }
  return IoError("pg_ctl start failed: {}", last);
}

std::string Uri(const Cluster& c, const std::string& db) {
  return "jdbc:postgresql://127.0.0.1:" + std::to_string(c.port) + "/" + db;
}

Result<std::string> Psql(const Cluster& c, const std::string& database, const std::string& sql) {
  auto [rc, out] =
      Run(c.bin + "/psql -X -q -A -t -v ON_ERROR_STOP=1 -h 127.0.0.1 -p " + std::to_string(c.port) +
          " -U postgres -d " + ShellQuote(database) + " -c " + ShellQuote(sql));
  if (rc != 0) return IoError("psql {}: {}", sql, out);
  return out;
}

}  // namespace

Result<std::string> PostgresUri() {
  std::lock_guard lock(g_mu);
  FLOE_ASSIGN_OR_RETURN(Cluster * c, Start());
  return Uri(*c, "postgres");
}

Result<std::string> FreshPostgresDatabase() {
  std::lock_guard lock(g_mu);
  FLOE_ASSIGN_OR_RETURN(Cluster * c, Start());
  std::string name = "t" + std::to_string(++c->databases);
  if (const auto* info = ::testing::UnitTest::GetInstance()->current_test_info()) {
    for (char ch : std::string(info->name()).substr(0, 40)) {
      name +=
          std::isalnum(static_cast<unsigned char>(ch)) ? static_cast<char>(std::tolower(ch)) : '_';
    }
  }
  FLOE_RETURN_IF_ERROR(Psql(*c, "postgres", "CREATE DATABASE " + name));
  return Uri(*c, name);
}

Result<std::string> PostgresSql(const std::string& database, const std::string& sql) {
  std::lock_guard lock(g_mu);
  FLOE_ASSIGN_OR_RETURN(Cluster * c, Start());
  return Psql(*c, database, sql);
}

Result<std::string> PostgresBinDir() {
  std::lock_guard lock(g_mu);
  FLOE_ASSIGN_OR_RETURN(Cluster * c, Start());
  return c->bin;
}

Result<int> PostgresPort() {
  std::lock_guard lock(g_mu);
  FLOE_ASSIGN_OR_RETURN(Cluster * c, Start());
  return c->port;
}

}  // namespace floe::test
