// SnapshotUpdate, the facade of table.h: picks the operation class for what
// was added and how (an overwrite mode wins, then delete files make a row
// delta, else an append) and commits through it.
#include "floe/table/append_files.h"
#include "floe/table/overwrite_files.h"
#include "floe/table/row_delta.h"
#include "floe/table/table.h"

namespace floe::table {

SnapshotUpdate& SnapshotUpdate::AddDataFile(iceberg::DataFile file) {
  data_files_.push_back(std::move(file));
  return *this;
}
SnapshotUpdate& SnapshotUpdate::AddDeleteFile(iceberg::DataFile file) {
  delete_files_.push_back(std::move(file));
  return *this;
}
SnapshotUpdate& SnapshotUpdate::OverwritePartitions() {
  overwrite_ = Overwrite::kPartitions;
  return *this;
}
SnapshotUpdate& SnapshotUpdate::OverwriteAll() {
  overwrite_ = Overwrite::kAll;
  return *this;
}
SnapshotUpdate& SnapshotUpdate::Set(const std::string& key, const std::string& value) {
  properties_[key] = value;
  return *this;
}
SnapshotUpdate& SnapshotUpdate::ToBranch(std::string branch) {
  branch_ = std::move(branch);
  return *this;
}

namespace {

// Hands the update's files, properties and branch to `op` and commits it.
template <typename Op>
Result<CommitResult> CommitAs(Op& op, const std::vector<iceberg::DataFile>& data,
                              const std::vector<iceberg::DataFile>& deletes,
                              const std::map<std::string, std::string>& properties,
                              const std::string& branch) {
  for (const auto& f : data) op.AddDataFile(f);
  if constexpr (!std::is_same_v<Op, AppendFiles>) {
    for (const auto& f : deletes) op.AddDeleteFile(f);
  }
  for (const auto& [k, v] : properties) op.Set(k, v);
  op.ToBranch(branch);
  return op.Commit();
}

}  // namespace

Result<CommitResult> SnapshotUpdate::Commit() {
  if (overwrite_ != Overwrite::kNone) {
    OverwriteFiles op(
        table_, overwrite_ == Overwrite::kAll ? OverwriteMode::kAll : OverwriteMode::kPartitions);
    return CommitAs(op, data_files_, delete_files_, properties_, branch_);
  }
  if (!delete_files_.empty()) {
    RowDelta op(table_);
    return CommitAs(op, data_files_, delete_files_, properties_, branch_);
  }
  AppendFiles op(table_);
  return CommitAs(op, data_files_, delete_files_, properties_, branch_);
}

}  // namespace floe::table
