/// \file
/// floe's one error model: `Result<T>` (a must-use std::expected<T, Error>)
/// and `Status` (= Result<void>).
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

/// A value or the Error that kept it from being made: std::expected<T, Error>
/// that must be used. Ignoring a Result is a compile warning (an error in
/// floe's own build, -Werror=unused-result): a failed write, commit or close
/// must never pass unnoticed. Where ignoring is right, write `(void)` and say
/// why in a comment.
///
/// Why a class and not `[[nodiscard]]` on each declaration: the attribute
/// then sits in one place and covers every function, lambda and std::function
/// that returns a Result, including the ones written tomorrow, where a
/// per-declaration attribute is forgotten on the first new function. The class
/// adds nothing else: it is a std::expected (same layout, same members,
/// inherited constructors), so `return value;`, `return Fail(...)`, `return
/// {};` and the FLOE_* macros work unchanged, and it converts to and from
/// std::expected<T, Error>. Monadic members (and_then, transform) return
/// plain std::expected, which converts back on return.
template <typename T>
class [[nodiscard]] Result : public std::expected<T, Error> {
 public:
  using Base = std::expected<T, Error>;
  using Base::Base;
  using Base::operator=;

  Result() = default;
  // The base class's copy and move constructors are not inherited.
  Result(const Base& other) : Base(other) {}        // NOLINT(google-explicit-constructor)
  Result(Base&& other) : Base(std::move(other)) {}  // NOLINT(google-explicit-constructor)
};

/// Success or an Error, and must be used like any Result.
using Status = Result<void>;

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
