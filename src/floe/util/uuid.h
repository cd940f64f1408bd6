/// \file
/// Random (version 4) UUIDs for table uuids and file names.
#pragma once

#include <cstdint>
#include <string>

namespace floe {

/// A random RFC 4122 version-4 UUID in canonical lowercase text.
std::string RandomUuid();
/// 64 random bits (fork-safe: reseeded in a child process).
uint64_t RandomU64();
/// A random positive 63-bit id (snapshot ids).
int64_t RandomPositiveId();

}  // namespace floe
