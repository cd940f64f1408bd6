/// \file
/// Test support: a throwaway PostgreSQL cluster per test binary, for the SQL
/// catalog's PostgreSQL backend. Started on first use (initdb in a fresh
/// folder, run as the `postgres` user when the tests run as root, a free
/// loopback port, its socket in that folder, fsync off), stopped and removed
/// when the test binary exits. Without PostgreSQL installed the calls fail
/// with a message (a test that needs it fails, never skips: CI installs it).
#pragma once

#include <string>

#include "floe/util/status.h"

namespace floe::test {

/// The one role of the cluster that must authenticate with a password
/// (scram-sha-256 over TCP); every other role is trusted. Tests create it.
inline constexpr const char* kPasswordRole = "floe_pw";

/// `jdbc:postgresql://127.0.0.1:PORT/postgres`, starting the cluster on the
/// first call.
Result<std::string> PostgresUri();

/// A new, empty database for the running test (CREATE DATABASE), as
/// `jdbc:postgresql://127.0.0.1:PORT/<name>`.
Result<std::string> FreshPostgresDatabase();

/// The folder of the cluster's programs (psql, pgbench, pg_recvlogical).
Result<std::string> PostgresBinDir();
/// The cluster's port on 127.0.0.1 (wal_level=logical, max_replication_slots
/// and max_wal_senders 32: the PostgreSQL source's tests replicate from it).
Result<int> PostgresPort();

/// Runs `sql` with psql on `database`; its output (unaligned, tuples only).
Result<std::string> PostgresSql(const std::string& database, const std::string& sql);

}  // namespace floe::test
