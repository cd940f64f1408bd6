// The append window (append_window.h).
#include "floe/sink/append_window.h"

#include <algorithm>

#include "floe/types/column_ops.h"

namespace floe::sink {

AppendWindow::AppendWindow(const table::Table* table, table::DataWriterOptions options, int shards)
    : table_(table), options_(std::move(options)), writers_(static_cast<size_t>(std::max(1, shards))) {}

AppendWindow::~AppendWindow() = default;  // an unclosed writer aborts itself

bool AppendWindow::opened() const {
  return std::any_of(writers_.begin(), writers_.end(), [](const auto& w) { return w != nullptr; });
}

Result<table::PartitionedWriter*> AppendWindow::WriterFor(size_t shard) {
  if (!writers_[shard]) {
    // Shard s writes as task s: `<partition>-<task>-<operation>-<count>`.
    auto factory = std::make_shared<table::OutputFileFactory>(table_->io(), options_.data_location, 0,
                                                              static_cast<int64_t>(shard));
    FLOE_ASSIGN_OR_RETURN(writers_[shard], table::MakeDataWriter(table_->metadata(), options_, factory));
  }
  return writers_[shard].get();
}

Status AppendWindow::Write(const Batch& rows) {
  FLOE_ASSIGN_OR_RETURN(auto* w, WriterFor(0));
  FLOE_RETURN_IF_ERROR(w->Write(rows));
  rows_ += rows.num_rows;
  return Ok();
}

Status AppendWindow::Write(const Batch& rows, std::span<const int64_t> shard_of) {
  if (shard_of.empty()) return Write(rows);
  std::vector<std::vector<int64_t>> by_shard(writers_.size());
  for (int64_t i = 0; i < rows.num_rows; ++i) {
    by_shard[static_cast<size_t>(shard_of[static_cast<size_t>(i)]) % writers_.size()].push_back(i);
  }
  for (size_t s = 0; s < by_shard.size(); ++s) {
    if (by_shard[s].empty()) continue;
    FLOE_ASSIGN_OR_RETURN(auto* w, WriterFor(s));
    FLOE_RETURN_IF_ERROR(w->Write(by_shard[s].size() == static_cast<size_t>(rows.num_rows) ? rows
                                                                                           : Take(rows, by_shard[s])));
  }
  rows_ += rows.num_rows;
  return Ok();
}

Result<std::vector<iceberg::DataFile>> AppendWindow::Prepare() {
  std::vector<iceberg::DataFile> files;
  for (auto& w : writers_) {
    if (!w) continue;
    auto closed = w->Close();
    if (!closed) {
      Abort();
      return std::unexpected<Error>(std::move(closed).error());
    }
    for (auto& f : *closed) files.push_back(std::move(f));
  }
  return files;
}

void AppendWindow::Abort() {
  for (auto& w : writers_) {
    if (w) w->Abort();
  }
  Release();
}

void AppendWindow::Release() {
  for (auto& w : writers_) w.reset();
  rows_ = 0;
}

}  // namespace floe::sink
