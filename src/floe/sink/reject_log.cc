// RejectLog: exactly-once JSONL error and dead-letter outputs.
#include "floe/sink/reject_log.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "floe/catalog/identifier.h"
#include "floe/sink/sink_options.h"
#include "floe/sink/sink_token.h"
#include "floe/sink/write_config.h"
#include "floe/sink/write_job.h"
#include "floe/types/sql_schema.h"

namespace floe::sink {

RejectLog::~RejectLog() {
  if (fd_ >= 0) ::close(fd_);
}

namespace {

// Reads the position of the last complete entry of the file `fd` (0 when
// none) and removes a line cut by a writer that died mid-write.
Result<int64_t> LastEntryPosition(int fd, const std::string& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return IoError("error output {}: {}", path, std::strerror(errno));
  const off_t size = st.st_size;
  if (size == 0) return int64_t{0};
  int64_t last = 0;
  off_t keep = size;
  const off_t want = std::min<off_t>(size, off_t{1} << 20);
  std::string tail(static_cast<size_t>(want), '\0');
  if (::pread(fd, tail.data(), tail.size(), size - want) != want) {
    return IoError("error output {}: cannot read: {}", path, std::strerror(errno));
  }
  size_t end = tail.rfind('\n');
  if (end == std::string::npos) {
    if (want < size) return Corrupt("error output {}: its last line is over 1 MiB", path);
    keep = 0;  // one cut line and nothing else
  } else {
    keep = size - want + static_cast<off_t>(end) + 1;
    size_t begin = end == 0 ? std::string::npos : tail.rfind('\n', end - 1);
    begin = begin == std::string::npos ? 0 : begin + 1;
    if (begin == 0 && want < size) return Corrupt("error output {}: its last line is over 1 MiB", path);
    auto j = nlohmann::json::parse(tail.substr(begin, end - begin), nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("position") || !j["position"].is_number_integer()) {
      return Corrupt("error output {}: its last line is not an entry written by floe", path);
    }
    last = j["position"].get<int64_t>();
  }
  if (keep < size && ::ftruncate(fd, keep) != 0) {
    return IoError("error output {}: cannot remove a cut last line: {}", path, std::strerror(errno));
  }
  return last;
}

// An exclusive lock on the file while alive (flock: per open file, so it
// also keeps apart two outputs of one process, and processes sharing it).
class RejectFileLock {
 public:
  explicit RejectFileLock(int fd) : fd_(fd) {
    int rc;
    do {
      rc = ::flock(fd_, LOCK_EX);
    } while (rc != 0 && errno == EINTR);
    ok_ = rc == 0;
  }
  ~RejectFileLock() {
    if (ok_) ::flock(fd_, LOCK_UN);
  }
  bool ok() const { return ok_; }

 private:
  int fd_;
  bool ok_ = false;
};

}  // namespace

Result<std::unique_ptr<RejectLog>> RejectLog::Open(const std::string& path) {
  std::unique_ptr<RejectLog> log(new RejectLog());
  log->path_ = path;
  log->fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (log->fd_ < 0) return IoError("error output {}: cannot open: {}", path, std::strerror(errno));
  struct stat st {};
  if (::fstat(log->fd_, &st) != 0) return IoError("error output {}: {}", path, std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return InvalidArgument("error output {}: not a regular file", path);
  RejectFileLock lock(log->fd_);
  if (!lock.ok()) return IoError("error output {}: cannot lock: {}", path, std::strerror(errno));
  // The last complete line names the last position written.
  FLOE_ASSIGN_OR_RETURN(log->last_position_, LastEntryPosition(log->fd_, path));
  return log;
}

void RejectLog::Add(int64_t position, std::string_view destination, std::string_view reason, std::string row_json,
                    std::string input, std::string extra) {
  if (position <= last_position_) return;  // written by an earlier run
  nlohmann::ordered_json j;
  j["position"] = position;
  if (destination.empty()) {
    j["destination"] = nullptr;
  } else {
    j["destination"] = std::string(destination);
  }
  j["reason"] = std::string(reason);
  if (!input.empty()) j["input"] = std::move(input);
  std::string line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  line.pop_back();  // '}'
  if (!row_json.empty()) line += ",\"row\":" + row_json;
  if (!extra.empty()) line += "," + extra;
  line += "}\n";
  pending_.push_back({position, std::move(line)});
}

Status RejectLog::Flush(int64_t) {
  if (pending_.empty()) return Ok();
  // Another process with the same sink_id (or a zombie copy) may append to
  // the same file: under the lock, what it wrote since counts as written, so
  // every input position has one entry, in order, whoever writes it.
  RejectFileLock lock(fd_);
  if (!lock.ok()) return IoError("error output {}: cannot lock: {}", path_, std::strerror(errno));
  FLOE_ASSIGN_OR_RETURN(int64_t on_file, LastEntryPosition(fd_, path_));
  last_position_ = std::max(last_position_, on_file);
  std::stable_sort(pending_.begin(), pending_.end(),
                   [](const Entry& a, const Entry& b) { return a.position < b.position; });
  std::string out;
  int64_t last = last_position_;
  for (const auto& e : pending_) {
    if (e.position <= last_position_) continue;
    out += e.line;
    last = std::max(last, e.position);
  }
  pending_.clear();
  if (::lseek(fd_, 0, SEEK_END) < 0) return IoError("error output {}: {}", path_, std::strerror(errno));
  for (size_t done = 0; done < out.size();) {
    ssize_t n = ::write(fd_, out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return IoError("error output {}: cannot write: {}", path_, std::strerror(errno));
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd_) != 0) return IoError("error output {}: cannot sync: {}", path_, std::strerror(errno));
  last_position_ = last;
  return Ok();
}

// ---------------------------------------------------------------- the table

namespace {

SchemaPtr RejectSchema() {
  static const SchemaPtr schema = [] {
    auto parsed = ParseSqlColumns(
        "position BIGINT NOT NULL, destination STRING, reason STRING NOT NULL, row STRING, input STRING, "
        "details STRING");
    return std::make_shared<Schema>(std::move(*parsed));
  }();
  return schema;
}

void AppendText(ColumnVector* col, const std::string& text, bool null_when_empty) {
  if (null_when_empty && text.empty()) {
    col->AppendNull();
  } else {
    col->AppendBytes(text);
  }
}

}  // namespace

RejectTable::~RejectTable() = default;

Result<std::unique_ptr<RejectTable>> RejectTable::Open(catalog::Catalog* catalog, const WriteConfig& config,
                                                       std::string table, std::string sink_id) {
  FLOE_RETURN_IF_ERROR(catalog::ParseTableIdentifier(table));
  std::unique_ptr<RejectTable> t(new RejectTable());
  t->catalog_ = catalog;
  t->config_ = std::make_unique<WriteConfig>();
  t->config_->table = table;
  t->config_->catalog_name = config.catalog_name;
  t->config_->catalog_properties = config.catalog_properties;
  t->sink_id_ = std::move(sink_id);
  FLOE_ASSIGN_OR_RETURN(OpenedTable opened,
                        OpenOrCreateTable(*t->config_, table, catalog, RejectSchema(), "it is created on first use"));
  if (!t->sink_id_.empty()) {
    FLOE_ASSIGN_OR_RETURN(auto token, FindSinkToken(opened.table->metadata(), t->sink_id_, ""));
    if (token) {
      t->commit_number_ = token->commit_number;
      t->committed_position_ = token->position;
    }
    FLOE_RETURN_IF_ERROR(RegisterSink(opened.table.get(), t->sink_id_));
  }
  return t;
}

void RejectTable::Add(int64_t position, std::string_view destination, std::string_view reason, std::string row_json,
                      std::string input, std::string extra) {
  if (position <= committed_position_) return;  // written by an earlier run
  pending_.push_back({position, std::string(destination), std::string(reason), std::move(row_json), std::move(input),
                      extra.empty() ? std::string() : "{" + extra + "}"});
}

Status RejectTable::Flush(int64_t window_end) {
  if (pending_.empty()) return Ok();
  std::stable_sort(pending_.begin(), pending_.end(),
                   [](const Entry& a, const Entry& b) { return a.position < b.position; });
  const SchemaPtr schema = RejectSchema();
  Batch batch(schema);
  for (const Entry& e : pending_) {
    batch.columns[0].Append<int64_t>(e.position);
    AppendText(&batch.columns[1], e.destination, true);
    AppendText(&batch.columns[2], e.reason, false);
    AppendText(&batch.columns[3], e.row, true);
    AppendText(&batch.columns[4], e.input, true);
    AppendText(&batch.columns[5], e.details, true);
    ++batch.num_rows;
  }
  FLOE_ASSIGN_OR_RETURN(auto job, WriteJob::Open(*config_, catalog_, schema));
  FLOE_RETURN_IF_ERROR(job->Write(std::move(batch)));
  std::map<std::string, std::string> summary;
  const int64_t number = commit_number_ + 1;
  if (!sink_id_.empty()) {
    summary[std::string(kSummarySinkId)] = sink_id_;
    summary[std::string(kSummaryCommitNumber)] = std::to_string(number);
    summary[std::string(kSummaryInputPosition)] = std::to_string(std::max(window_end, pending_.back().position));
  }
  auto committed = job->Commit(summary);
  if (!committed) return Fail(committed.error().WithContext("error table " + config_->table));
  commit_number_ = number;
  committed_position_ = std::max(window_end, pending_.back().position);
  pending_.clear();
  return Ok();
}

}  // namespace floe::sink
