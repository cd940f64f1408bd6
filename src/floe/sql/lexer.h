/// \file
/// The Flink SQL lexer: source text -> tokens with 1-based line and column
/// (columns counted in characters, a tab counts as one), following the lexical
/// rules of Calcite's parser as Flink configures it (Flink docs: "SQL" /
/// Calcite `Parser.jj`, Flink's `parserImpls.ftl`):
///   - unquoted identifiers: a letter or `_`, then letters, digits, `_`, `$`;
///     keywords among them are matched case-insensitively by the parser, and
///     identifiers keep the case they were written in (Flink's Lex.JAVA);
///   - back-quoted identifiers `` `a b` ``, where ``` `` ``` is one backquote;
///   - string literals `'it''s'`; binary string literals `X'0aff'`;
///   - numbers: integers (`42`), decimals (`4.2`, `.5`), approximate (`1e3`);
///   - comments `-- to the end of the line` and `/* ... */` (not nested);
///   - hints `/*+ ... */`, which are tokens of their own (Calcite's HINT_BEG);
///   - operators and punctuation.
/// Flink SQL has no `E'...'` escape strings (Calcite's default conformance has
/// none either): `E'x'` lexes as the identifier E followed by a string.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "floe/util/status.h"

namespace floe::sql {

/// A place in the source: 1-based line and column (characters, not bytes).
struct Pos {
  int32_t line = 1;
  int32_t column = 1;
  auto operator<=>(const Pos&) const = default;
};

/// "line 3, column 7", as Calcite's messages spell positions.
std::string PosText(Pos p);

enum class TokenKind : uint8_t {
  kEof,
  kIdentifier,        ///< unquoted word (keyword or name); value = text as written
  kQuotedIdentifier,  ///< `...`; value = the name with `` unescaped
  kString,            ///< '...'; value = the contents with '' unescaped
  kBinaryString,      ///< X'...'; value = the hex digits
  kInteger,           ///< unsigned integer digits
  kDecimal,           ///< digits with a '.' and no exponent
  kApprox,            ///< a number with an exponent
  kHint,              ///< /*+ ... */; value = the text between "/*+" and "*/"
  kSymbol,            ///< operator or punctuation; value = the symbol
  kUnterminated,      ///< lenient mode only: a string, quoted name, comment or hint open at EOF
  kUnknown,           ///< lenient mode only: a character no token starts with
};

struct Token {
  TokenKind kind = TokenKind::kEof;
  std::string value;
  Pos pos;                ///< first character
  Pos end;                ///< last character (inclusive); == pos for one-character tokens
  size_t offset = 0;      ///< byte offset of the first character in the lexed text
  size_t end_offset = 0;  ///< byte offset just past the token

  /// True for an unquoted word equal to `keyword` ignoring ASCII case.
  bool Is(std::string_view keyword) const;
  /// True for the symbol `symbol`.
  bool IsSymbol(std::string_view symbol) const {
    return kind == TokenKind::kSymbol && value == symbol;
  }
};

struct LexOptions {
  /// Where the text starts in its file, so that positions are those of the
  /// whole file when a statement is lexed on its own.
  Pos start;
  /// Lenient mode (statement splitting, the shell's "is this complete?"):
  /// never fails; an open string, name, comment or hint at the end becomes a
  /// kUnterminated token and an unknown character a kUnknown token.
  bool lenient = false;
};

/// Splits `text` into tokens, ending with one kEof token (at the position
/// just past the last character). Strict mode errors are Calcite's lexical
/// error text: `Lexical error at line 1, column 20.  Encountered: <EOF> after
/// : "'abc"` (kInvalidArgument).
Result<std::vector<Token>> Tokenize(std::string_view text, const LexOptions& options = {});

/// `name` back-quoted as Flink prints identifiers (`` `a``b` `` for a`b).
std::string QuoteIdentifier(std::string_view name);
/// `value` single-quoted with '' for each quote.
std::string QuoteString(std::string_view value);

}  // namespace floe::sql
