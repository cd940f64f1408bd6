#include "floe/util/status.h"

namespace floe {

std::string_view ErrorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kInvalidArgument: return "invalid argument";
    case ErrorKind::kIo: return "I/O error";
    case ErrorKind::kCorrupt: return "corrupt file";
    case ErrorKind::kNotFound: return "not found";
    case ErrorKind::kAlreadyExists: return "already exists";
    case ErrorKind::kUnsupported: return "unsupported";
    case ErrorKind::kCommitFailed: return "commit failed";
    case ErrorKind::kCommitStateUnknown: return "commit state unknown";
    case ErrorKind::kInternal: return "internal error";
  }
  return "error";
}

std::string Error::ToString() const { return fmt::format("{}: {}", ErrorKindName(kind), message); }

Error Error::WithContext(std::string_view context) const& {
  return Error{kind, fmt::format("{}: {}", context, message), retryable};
}

Error Error::WithContext(std::string_view context) && {
  message = fmt::format("{}: {}", context, message);
  return std::move(*this);
}

}  // namespace floe
