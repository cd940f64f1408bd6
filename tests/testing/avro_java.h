/// \file
/// Apache Avro Java, the reference reader Iceberg's JVM engines build on
/// (shared/interop/avro_java.sh: Debian's libavro-java on the image's
/// OpenJDK), reading many Avro container files in one JVM.
#pragma once

#include <string>
#include <vector>

namespace floe::test {

/// Whether Avro Java is installed (Debian's libavro-java).
bool AvroJavaInstalled();

struct AvroJavaResult {
  int code = -1;    ///< 0 when every file was read
  std::string out;  ///< stdout and stderr: per file its "meta", "schema", "record" and "records N" lines
  std::string command;
};

/// Reads `files` with shared/interop's AvroCheck, as `avro_java.sh FILES...`
/// does, but in one JVM (tests/tools/AvroCheckEach.java) instead of one per
/// file. Stops at the first file it cannot read (code 1, the file named).
AvroJavaResult AvroJava(const std::vector<std::string>& files);

}  // namespace floe::test
