/// \file
/// floe's one error model: `Result<T>` (= std::expected<T, Error>) and `Status`.
/// No exception crosses a module boundary; code that calls a throwing library
/// (Thrift, yaml-cpp) catches at its edge and returns an Error.
#pragma once

#include <expected>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace floe {

/// What went wrong, coarse enough for callers to branch on.
enum class ErrorKind {
  kInvalidArgument,     ///< bad option, bad value, bad input row
  kIo,                  ///< the file system or network failed
  kCorrupt,             ///< a file does not follow its format
  kNotFound,            ///< a file, table, namespace, column or option is missing
  kAlreadyExists,       ///< create of something that exists
  kUnsupported,         ///< valid but not implemented (e.g. deletion vectors)
  kCommitFailed,        ///< a commit lost a race or was rejected: nothing published, retry may help
  kCommitStateUnknown,  ///< a commit may or may not have landed: never delete its files
  kInternal,            ///< a bug in floe
};

std::string_view ErrorKindName(ErrorKind kind);

/// An error: its kind, a message that names the thing that failed, and
/// whether retrying the same operation can help.
struct Error {
  ErrorKind kind = ErrorKind::kInternal;
  std::string message;
  bool retryable = false;

  /// "kind: message", for logs and the command line.
  std::string ToString() const;

  /// Returns a copy whose message is prefixed by `context: `.
  Error WithContext(std::string_view context) const&;
  Error WithContext(std::string_view context) &&;
};

template <typename T>
using Result = std::expected<T, Error>;
using Status = std::expected<void, Error>;

/// The success value of a Status.
inline Status Ok() { return {}; }

namespace detail {
template <typename... Args>
std::unexpected<Error> MakeError(ErrorKind kind, bool retryable, fmt::format_string<Args...> f,
                                 Args&&... args) {
  return std::unexpected<Error>(
      Error{kind, fmt::format(f, std::forward<Args>(args)...), retryable});
}
}  // namespace detail

// One factory per error kind; each takes a fmt format string.
#define FLOE_DEFINE_ERROR_FACTORY(Name, Kind, Retry)                                   \
  template <typename... Args>                                                          \
  std::unexpected<Error> Name(fmt::format_string<Args...> f, Args&&... args) {         \
    return detail::MakeError(ErrorKind::Kind, Retry, f, std::forward<Args>(args)...); \
  }
FLOE_DEFINE_ERROR_FACTORY(InvalidArgument, kInvalidArgument, false)
FLOE_DEFINE_ERROR_FACTORY(IoError, kIo, true)
FLOE_DEFINE_ERROR_FACTORY(Corrupt, kCorrupt, false)
FLOE_DEFINE_ERROR_FACTORY(NotFound, kNotFound, false)
FLOE_DEFINE_ERROR_FACTORY(AlreadyExists, kAlreadyExists, false)
FLOE_DEFINE_ERROR_FACTORY(Unsupported, kUnsupported, false)
FLOE_DEFINE_ERROR_FACTORY(CommitFailed, kCommitFailed, true)
FLOE_DEFINE_ERROR_FACTORY(CommitStateUnknown, kCommitStateUnknown, false)
FLOE_DEFINE_ERROR_FACTORY(Internal, kInternal, false)
#undef FLOE_DEFINE_ERROR_FACTORY

/// Wraps an existing Error as an unexpected value.
inline std::unexpected<Error> Fail(Error e) { return std::unexpected<Error>(std::move(e)); }

}  // namespace floe

#define FLOE_CONCAT_INNER(a, b) a##b
#define FLOE_CONCAT(a, b) FLOE_CONCAT_INNER(a, b)

/// Returns the error of a Status/Result expression from the enclosing function.
#define FLOE_RETURN_IF_ERROR(expr)                                         \
  do {                                                                     \
    auto&& floe_status_ = (expr);                                          \
    if (!floe_status_) return ::floe::Fail(std::move(floe_status_).error()); \
  } while (false)

#define FLOE_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr)          \
  auto&& tmp = (expr);                                      \
  if (!tmp) return ::floe::Fail(std::move(tmp).error());    \
  lhs = std::move(tmp).value()

/// `FLOE_ASSIGN_OR_RETURN(auto x, F())`: x = F()'s value, or return its error.
#define FLOE_ASSIGN_OR_RETURN(lhs, expr) \
  FLOE_ASSIGN_OR_RETURN_IMPL(FLOE_CONCAT(floe_result_, __LINE__), lhs, expr)
