// FaultInjectingFileIO: counts operations and fails the armed ones.
#include "floe/io/fault_file_io.h"

namespace floe::io {

namespace {

// An output whose writes and commit go through the fault checks.
class FaultOutputFile final : public OutputFile {
 public:
  FaultOutputFile(FaultInjectingFileIO* io, std::string location, std::unique_ptr<OutputFile> inner)
      : io_(io), location_(std::move(location)), inner_(std::move(inner)) {}
  Status Write(const void* data, size_t size) override {
    FLOE_RETURN_IF_ERROR(io_->Check(FaultOp::kWrite, location_));
    return inner_->Write(data, size);
  }
  int64_t Tell() const override { return inner_->Tell(); }
  Status Commit() override {
    if (Status st = io_->Check(FaultOp::kRename, location_); !st) {
      inner_->Abort();  // as a failed rename: the temporary file goes, nothing is published
      return st;
    }
    return inner_->Commit();
  }
  void Abort() override { inner_->Abort(); }
  const std::string& path() const override { return inner_->path(); }

 private:
  FaultInjectingFileIO* io_;
  std::string location_;
  std::unique_ptr<OutputFile> inner_;
};

}  // namespace

std::string_view FaultOpName(FaultOp op) {
  switch (op) {
    case FaultOp::kCreate: return "create";
    case FaultOp::kWrite: return "write";
    case FaultOp::kRename: return "rename";
    case FaultOp::kDelete: return "delete";
    case FaultOp::kList: return "list";
    case FaultOp::kRead: return "read";
  }
  return "?";
}

FaultInjectingFileIO::FaultInjectingFileIO(FileIOPtr inner) : inner_(std::move(inner)) {}

void FaultInjectingFileIO::FailNth(FaultOp op, int64_t n, std::string match) {
  std::lock_guard lock(mu_);
  rules_.push_back(Rule{op, n, std::move(match), false});
}

void FaultInjectingFileIO::FailFrom(FaultOp op, int64_t n, std::string match) {
  std::lock_guard lock(mu_);
  rules_.push_back(Rule{op, n, std::move(match), true});
}

void FaultInjectingFileIO::Clear() {
  std::lock_guard lock(mu_);
  rules_.clear();
}

int64_t FaultInjectingFileIO::Count(FaultOp op) const {
  std::lock_guard lock(mu_);
  return counts_[static_cast<int>(op)];
}

std::vector<std::string> FaultInjectingFileIO::Fired() const {
  std::lock_guard lock(mu_);
  return fired_;
}

Status FaultInjectingFileIO::Check(FaultOp op, std::string_view location) {
  std::lock_guard lock(mu_);
  ++counts_[static_cast<int>(op)];
  bool fire = false;
  for (auto& r : rules_) {
    if (r.op != op || (!r.match.empty() && location.find(r.match) == std::string_view::npos)) continue;
    ++r.seen;
    fire |= r.seen == r.n || (r.sticky && r.seen > r.n);
  }
  if (!fire) return Ok();
  fired_.push_back(fmt::format("{} {}", FaultOpName(op), location));
  return IoError("injected fault: {} of {} failed", FaultOpName(op), location);
}

Result<std::unique_ptr<InputFile>> FaultInjectingFileIO::NewInput(std::string_view location) {
  FLOE_RETURN_IF_ERROR(Check(FaultOp::kRead, location));
  return inner_->NewInput(location);
}

Result<std::unique_ptr<OutputFile>> FaultInjectingFileIO::NewOutput(std::string_view location,
                                                                    const OutputOptions& options) {
  FLOE_RETURN_IF_ERROR(Check(FaultOp::kCreate, location));
  FLOE_ASSIGN_OR_RETURN(auto out, inner_->NewOutput(location, options));
  return std::unique_ptr<OutputFile>(new FaultOutputFile(this, std::string(location), std::move(out)));
}

Status FaultInjectingFileIO::Delete(std::string_view location) {
  FLOE_RETURN_IF_ERROR(Check(FaultOp::kDelete, location));
  return inner_->Delete(location);
}

Status FaultInjectingFileIO::ListFiles(std::string_view location,
                                       const std::function<Status(const FileInfo&)>& visit) {
  FLOE_RETURN_IF_ERROR(Check(FaultOp::kList, location));
  return inner_->ListFiles(location, visit);
}

Result<std::vector<FileInfo>> FaultInjectingFileIO::ListFolder(std::string_view location) {
  FLOE_RETURN_IF_ERROR(Check(FaultOp::kList, location));
  return inner_->ListFolder(location);
}

Status FaultInjectingFileIO::CreateFolders(std::string_view location, std::vector<std::string>* created) {
  FLOE_RETURN_IF_ERROR(Check(FaultOp::kCreate, location));
  return inner_->CreateFolders(location, created);
}

Result<bool> FaultInjectingFileIO::RemoveFolderIfEmpty(std::string_view location) {
  FLOE_RETURN_IF_ERROR(Check(FaultOp::kDelete, location));
  return inner_->RemoveFolderIfEmpty(location);
}

Status FaultInjectingFileIO::DeletePrefix(std::string_view location) {
  FLOE_RETURN_IF_ERROR(Check(FaultOp::kDelete, location));
  return inner_->DeletePrefix(location);
}

}  // namespace floe::io
