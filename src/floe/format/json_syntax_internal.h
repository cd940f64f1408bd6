/// \file
/// Internal to the format module: where a line of JSON text breaks the
/// grammar (RFC 8259), for error messages. simdjson reports *that* a line is
/// malformed, often with a message about its own state ("document ended
/// early") and without a position; the JSONL reader calls this on a line it
/// already knows to be bad, to say what is wrong and at which column. Never on
/// the hot path.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace floe::format::internal {

/// The first grammar error in `text` as one JSON value (surrounding
/// whitespace allowed): its byte offset and what is wrong there, such as
/// "'nope' is not a JSON value", "invalid number '01' (leading zero)" or
/// "trailing content after the JSON value". nullopt when `text` is valid.
/// Iterative: any nesting depth is fine. UTF-8 is not checked here.
struct JsonSyntaxError {
  size_t offset = 0;
  std::string what;
};
std::optional<JsonSyntaxError> FindJsonSyntaxError(std::string_view text);

/// When the JSON number token `raw` (as simdjson delimits it) has a leading
/// zero (`01`, `-01`, `00.5`), which RFC 8259 forbids: the message for it.
/// Checks only that rule, in O(1), for the simdjson path's number decoding.
std::optional<std::string> LeadingZeroError(std::string_view raw);

/// "not valid JSON at column N: <what>", N the 1-based character column of
/// byte `offset` in `line` (UTF-8 continuation bytes do not count).
std::string SyntaxMessage(std::string_view line, size_t offset, std::string_view what);

}  // namespace floe::format::internal
