// `floe sql`: Flink SQL statements (the sqlengine module's Session) from
// -e 'SQL', -f FILE, standard input, or an interactive shell when standard
// input is a terminal (line editing and history through libedit). Output is
// what Flink's SQL client prints: result tables in tableau form,
// `[INFO] ...` after statements without rows, `[WARNING] ...`, and
// `[ERROR] Could not execute SQL statement. Reason:` with the exception
// class and message. A script (-e, -f, standard input) stops at its first
// failed statement and floe exits 1; the shell goes on.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <optional>
#include <string>

#include <editline/readline.h>

#include "floe/cli/run.h"
#include "floe/cli/table_args.h"
#include "floe/io/file.h"
#include "floe/sink/source.h"
#include "floe/sql/parser.h"
#include "floe/sqlengine/result.h"
#include "floe/sqlengine/session.h"

namespace floe::cli {
namespace {

struct SqlArgs {
  std::string execute;
  std::string file;
};

void Out(std::string_view s) { WriteAll(CurrentIo().out, s); }

// The [ERROR] frame; with `sql-client.verbose` also what kind of failure it
// was and whether a retry can help (floe has no stack trace to show).
std::string ErrorText(const sqlengine::Session& session, const Error& e) {
  std::string msg = e.message;
  if (session.verbose()) {
    msg +=
        fmt::format("\nError kind: {}{}", ErrorKindName(e.kind), e.retryable ? " (retryable)" : "");
  }
  return sqlengine::RenderError(msg);
}

// A streaming SELECT's rows print as they are read: on a terminal as the
// lines of a tableau whose column widths come from the types (Flink's
// tableau mode for a streaming query), elsewhere (a pipe, a file) as one
// changelog line per row, `+I[1, a]` (Flink's Row text). The footer
// (`Received a total of N rows`) prints when the statement ends, a stop by
// a signal included: what was read is on the output already.
class StreamingPrinter {
 public:
  explicit StreamingPrinter(bool terminal) : terminal_(terminal) {}
  void Rows(const sqlengine::ResultTable& t) {
    if (t.rows.empty()) {  // the start: the columns
      tableau_.emplace(t);
      if (terminal_) Out(tableau_->Header());
      return;
    }
    std::string text;
    if (terminal_) {
      text = tableau_->Rows(t);
    } else {
      for (size_t r = 0; r < t.rows.size(); ++r) {
        text += sqlengine::ChangelogLine(
            r < t.kinds.size() ? t.kinds[r] : RowKind::kInsert, t.rows[r]);
      }
    }
    Out(text);
  }
  // What prints for a statement's result.
  std::string Result(const sqlengine::StatementResult& r) const {
    std::string out = sqlengine::RenderResult(r);
    if (r.kind == sqlengine::StatementResult::Kind::kRows && r.table.streamed_rows && tableau_) {
      const int64_t n = *r.table.streamed_rows;
      out += terminal_ ? tableau_->Footer(n)
                       : fmt::format("Received a total of {} {}\n", n, n > 1 ? "rows" : "row");
    }
    return out;
  }

 private:
  bool terminal_;
  std::optional<sqlengine::StreamingTableau> tableau_;
};

// Runs the statements of a script; false after the first failure.
bool RunScript(sqlengine::Session& session, std::string_view script, bool blank_lines,
               const sink::Cancellation* interrupt, const StreamingPrinter& printer) {
  const sql::SplitResult split = sql::SplitStatements(script);
  std::vector<sql::StatementSource> statements = split.statements;
  if (split.rest) statements.push_back(*split.rest);
  bool first = true;
  for (const sql::StatementSource& st : statements) {
    if (!first && blank_lines) Out("\n");
    first = false;
    auto r = session.ExecuteSql(st.text, st.pos);
    if (!r) {
      Out(ErrorText(session, r.error()));
      return false;
    }
    Out(printer.Result(*r));
    if (interrupt && interrupt->cancelled()) {
      // A signal: the statement that ran ended (a streaming job committed
      // what it read); the statements after it do not run.
      const bool query = r->kind == sqlengine::StatementResult::Kind::kRows;
      WriteAll(CurrentIo().err,
               query ? "floe sql: stopped by a signal; the query printed what it had read, and the "
                       "statements after it were not run\n"
               : session.stopped()
                   ? "floe sql: stopped by a signal; the job committed what it had read, and the "
                     "statements after it were not run\n"
                   : "floe sql: stopped by a signal; the statements after this one were not run\n");
      return true;
    }
  }
  return true;
}

std::string HistoryPath() {
  const char* home = std::getenv("HOME");
  return home ? std::string(home) + "/.floe_sql_history" : std::string();
}

// The interactive shell: a statement may span lines; it runs once a line
// ends it with ';' outside strings, comments and statement sets.
Status RunShell(sqlengine::Session& session, const StreamingPrinter& printer) {
  const std::string history = HistoryPath();
  using_history();
  if (!history.empty()) read_history(history.c_str());
  Out("floe SQL shell (Flink SQL). End statements with ';'. Type QUIT; or press Ctrl-D to "
      "leave.\n\n");
  std::string buffer;
  while (true) {
    char* line = readline(buffer.empty() ? "floe SQL> " : "> ");
    if (!line) {
      Out("\n");
      break;
    }
    std::string text(line);
    std::free(line);
    if (buffer.empty()) {
      std::string_view t = text;
      while (!t.empty() && t.back() == ' ') t.remove_suffix(1);
      if (t == "QUIT;" || t == "quit;" || t == "EXIT;" || t == "exit;" || t == "QUIT" ||
          t == "EXIT" || t == "quit" || t == "exit") {
        break;
      }
    }
    buffer += text;
    buffer += "\n";
    const sql::SplitResult split = sql::SplitStatements(buffer);
    if (split.statements.empty() || split.rest_incomplete) {
      if (buffer.find_first_not_of(" \t\r\n") == std::string::npos) buffer.clear();
      continue;
    }
    std::string entry = buffer;
    while (!entry.empty() && entry.back() == '\n') entry.pop_back();
    add_history(entry.c_str());
    for (const sql::StatementSource& st : split.statements) {
      // Ctrl-C stops the running statement (a streaming job commits what it
      // read) and comes back to the prompt.
      sink::Cancellation interrupt;
      session.SetInterrupt(&interrupt);
      Result<sqlengine::StatementResult> r;
      {
        sink::ScopedSignalCancellation signals(&interrupt);
        r = session.ExecuteSql(st.text, st.pos);
      }
      session.SetInterrupt(nullptr);
      Out(r ? printer.Result(*r) : ErrorText(session, r.error()));
      Out("\n");
    }
    buffer = split.rest ? std::string(split.rest->text) + "\n" : std::string();
  }
  if (!history.empty()) write_history(history.c_str());
  return Ok();
}

Status RunSql(const SqlArgs& a) {
  if (!a.execute.empty() && !a.file.empty())
    return UsageError("give either -e 'SQL' or -f FILE, not both");
  sqlengine::SessionOptions so;
  const Io io = CurrentIo();
  so.print_out = [io](std::string_view s) { WriteAll(io.out, s); };
  so.print_err = [io](std::string_view s) { WriteAll(io.err, s); };
  sqlengine::Session session(std::move(so));
  StreamingPrinter streaming(::isatty(io.out) != 0);
  session.SetStreamingRows([&streaming](const sqlengine::ResultTable& t) { streaming.Rows(t); });
  // SIGINT / SIGTERM stop the running statement (a streaming INSERT commits
  // what it read; a bounded one is given up), then the script.
  sink::Cancellation interrupt;
  if (!a.execute.empty() || !a.file.empty() || ::isatty(io.in) == 0) session.SetInterrupt(&interrupt);
  std::optional<sink::ScopedSignalCancellation> signals;
  if (!a.execute.empty() || !a.file.empty() || ::isatty(io.in) == 0) signals.emplace(&interrupt);
  if (!a.execute.empty()) {
    if (!RunScript(session, a.execute, true, &interrupt, streaming))
      return Fail(
          Error{ErrorKind::kInvalidArgument, "sql: a statement failed (see [ERROR] above)", false});
    return Ok();
  }
  if (!a.file.empty() || ::isatty(io.in) == 0) {
    std::string script;
    if (a.file.empty() || a.file == "-") {
      char buf[65536];
      for (;;) {
        const ssize_t n = ::read(io.in, buf, sizeof(buf));
        if (n < 0 && errno == EINTR) {
          if (interrupt.cancelled()) return IoError("<stdin>: stopped by a signal while reading the script");
          continue;
        }
        if (n < 0) return IoError("<stdin>: read: {}", std::strerror(errno));
        if (n == 0) break;
        script.append(buf, static_cast<size_t>(n));
      }
    } else {
      FLOE_ASSIGN_OR_RETURN(script, ReadLocalFile(a.file));
    }
    if (!RunScript(session, script, true, &interrupt, streaming)) {
      return Fail(Error{ErrorKind::kInvalidArgument,
                        fmt::format("sql: a statement of {} failed (see [ERROR] above)",
                                    a.file.empty() ? "<stdin>" : a.file),
                        false});
    }
    return Ok();
  }
  return RunShell(session, streaming);
}

}  // namespace

void AddSqlCommand(CLI::App* root, CommandContext* ctx) {
  auto* cmd = root->add_subcommand(
      "sql", "Run Flink SQL (-e, -f FILE, standard input, or an interactive shell)");
  auto a = std::make_shared<SqlArgs>();
  cmd->add_option("-e,--execute", a->execute, "SQL statements to run (separated by ';')");
  cmd->add_option("-f,--file", a->file,
                  "A file of SQL statements separated by ';' (- for standard input)");
  cmd->callback([=] { ctx->action = [=] { return RunSql(*a); }; });
}

}  // namespace floe::cli
