// Queries and INSERTs of the session (session.h): SELECT over one table (or
// none) with WHERE (pushed to Iceberg scans where it maps onto floe's
// filter expressions, and always evaluated here too), projection and LIMIT;
// VALUES; INSERT INTO / OVERWRITE with Flink's type checks between the query
// and the sink; EXECUTE STATEMENT SET, whose Iceberg commits wait until
// every sink of the set finished.
//
// Rows move as batches: a source's batch is filtered (one gather), then
// each output column is either moved from the input (a plain column
// reference used once) or computed by the columnar evaluator.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <set>
#include <span>
#include <thread>

#include <fmt/format.h>

#include "floe/config/duration.h"
#include "floe/config/options.h"
#include "floe/kafka/kafka_source.h"
#include "floe/sink/streaming_job.h"
#include "floe/sqlengine/kafka_connector.h"
#include "floe/pgsrc/pg_source.h"
#include "floe/sqlengine/postgres_cdc_connector.h"
#include "floe/sql/printer.h"
#include "floe/sqlengine/expr_eval.h"
#include "floe/sqlengine/session_internal.h"
#include "floe/sqlengine/value_text.h"
#include "floe/types/column_ops.h"

namespace floe::sqlengine {

namespace {

// ------------------------------------------------------------ plan types

struct PlannedQuery {
  RelSchema output;
  bool changelog = false;
  std::function<Result<std::unique_ptr<RowSource>>()> open;
};

// A source of one row without columns (SELECT without FROM).
class OneRowSource : public RowSource {
 public:
  Result<bool> Next(Batch* out) override {
    if (done_) return false;
    done_ = true;
    Batch b;
    b.schema = std::make_shared<Schema>();
    b.num_rows = 1;
    *out = std::move(b);
    return true;
  }

 private:
  bool done_ = false;
};

// Batches given up front (VALUES).
class BatchesSource : public RowSource {
 public:
  explicit BatchesSource(std::vector<Batch> batches) : batches_(std::move(batches)) {}
  Result<bool> Next(Batch* out) override {
    if (next_ >= batches_.size()) return false;
    *out = std::move(batches_[next_++]);
    return true;
  }

 private:
  std::vector<Batch> batches_;
  size_t next_ = 0;
};

void CollectColumns(const BoundExpr& e, std::set<int>* out) {
  if (e.kind == BoundKind::kColumn) out->insert(e.column);
  for (const auto& a : e.args) CollectColumns(a, out);
}

void RemapColumns(BoundExpr* e, const std::map<int, int>& map) {
  if (e->kind == BoundKind::kColumn) e->column = map.at(e->column);
  for (auto& a : e->args) RemapColumns(&a, map);
}

// Computes output columns from an input batch: plain column references used
// once are moved, the rest evaluated.
class Projector {
 public:
  Projector(std::vector<BoundExpr> exprs, SchemaPtr schema)
      : exprs_(std::move(exprs)), schema_(std::move(schema)) {
    std::map<int, int> uses;
    for (const auto& e : exprs_) {
      std::set<int> cols;
      CollectColumns(e, &cols);
      for (int c : cols) ++uses[c];
    }
    for (const auto& e : exprs_)
      move_.push_back(e.kind == BoundKind::kColumn && uses[e.column] == 1);
  }

  Result<Batch> Apply(Batch&& in) const {
    Batch out;
    out.schema = schema_;
    out.num_rows = in.num_rows;
    out.columns.resize(exprs_.size());
    for (size_t i = 0; i < exprs_.size(); ++i) {
      if (move_[i]) continue;
      FLOE_ASSIGN_OR_RETURN(out.columns[i], Evaluate(exprs_[i], in));
      Retype(&out.columns[i], schema_->fields()[i].type);
    }
    for (size_t i = 0; i < exprs_.size(); ++i) {
      if (!move_[i]) continue;
      out.columns[i] = std::move(in.columns[exprs_[i].column]);
      Retype(&out.columns[i], schema_->fields()[i].type);
    }
    out.row_kinds = std::move(in.row_kinds);
    return out;
  }

  const std::vector<BoundExpr>& exprs() const { return exprs_; }

 private:
  std::vector<BoundExpr> exprs_;
  SchemaPtr schema_;
  std::vector<bool> move_;
};

// Source -> WHERE -> projection -> LIMIT.
class SelectSource : public RowSource {
 public:
  /// A LIMIT bounds it.
  bool unbounded() const override { return remaining_ < 0 && input_->unbounded(); }

  SelectSource(std::unique_ptr<RowSource> input, std::optional<BoundExpr> where,
               Projector projector, int64_t limit)
      : input_(std::move(input)),
        where_(std::move(where)),
        projector_(std::move(projector)),
        remaining_(limit) {}

  Result<bool> Next(Batch* out) override { return NextUntil(out, std::chrono::steady_clock::time_point::max()); }
  Result<bool> NextUntil(Batch* out, std::chrono::steady_clock::time_point deadline) override {
    while (true) {
      if (remaining_ == 0) return false;
      Batch b;
      FLOE_ASSIGN_OR_RETURN(bool more, deadline == std::chrono::steady_clock::time_point::max()
                                           ? input_->Next(&b)
                                           : input_->NextUntil(&b, deadline));
      if (!more) return false;
      if (b.num_rows == 0) {
        // An idle streaming source's heartbeat: passed on, so that the job
        // above sees time pass.
        *out = Batch();
        return true;
      }
      if (where_) {
        FLOE_ASSIGN_OR_RETURN(auto keep, EvaluateFilter(*where_, b));
        if (keep.empty()) {
          if (std::chrono::steady_clock::now() < deadline) continue;
          *out = Batch();  // nothing passed the filter by the deadline
          return true;
        }
        if (static_cast<int64_t>(keep.size()) < b.num_rows) b = Take(b, keep);
      }
      if (b.num_rows == 0) continue;
      if (remaining_ > 0 && b.num_rows > remaining_) {
        std::vector<int64_t> first(static_cast<size_t>(remaining_));
        for (int64_t i = 0; i < remaining_; ++i) first[i] = i;
        b = Take(b, first);
      }
      if (remaining_ > 0) remaining_ -= b.num_rows;
      FLOE_ASSIGN_OR_RETURN(*out, projector_.Apply(std::move(b)));
      return true;
    }
  }

 private:
  std::unique_ptr<RowSource> input_;
  std::optional<BoundExpr> where_;
  Projector projector_;
  int64_t remaining_;
};

// ------------------------------------------------------- filter pushdown

// floe's filter binder takes integers of every width as long literals.
expr::Literal Unbound(expr::Literal l) {
  if (l.type == TypeId::kInt) l.type = TypeId::kLong;
  return l;
}

std::optional<expr::Literal> ConstantLiteral(const BoundExpr& e) {
  auto col = EvaluateConstant(e);
  if (!col || col->length < 1 || col->IsNull(0)) return std::nullopt;
  expr::Literal l;
  l.type = col->type->id;
  switch (col->type->id) {
    case TypeId::kBoolean: l.i = col->data<uint8_t>()[0]; break;
    case TypeId::kInt:
    case TypeId::kDate: l.i = col->data<int32_t>()[0]; break;
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: l.i = col->data<int64_t>()[0]; break;
    case TypeId::kFloat: l.d = col->data<float>()[0]; break;
    case TypeId::kDouble: l.d = col->data<double>()[0]; break;
    case TypeId::kDecimal:
      l.dec = col->data<int128_t>()[0];
      l.scale = col->type->scale;
      break;
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kFixed:
    case TypeId::kUuid: l.s = std::string(col->bytes(0)); break;
    default: return std::nullopt;
  }
  return l;
}

// A conjunct of WHERE as floe's filter expression, when it maps exactly.
std::optional<expr::ExprPtr> ToFloeFilter(const BoundExpr& e, const RelSchema& schema) {
  auto column = [&](const BoundExpr& a) -> const ColumnInfo* {
    if (a.kind != BoundKind::kColumn) return nullptr;
    const ColumnInfo& c = schema.columns[a.column];
    if (c.physical->is_nested()) return nullptr;
    return &c;
  };
  switch (e.fn) {
    case Fn::kAnd: {
      expr::ExprPtr out;
      for (const auto& a : e.args) {
        auto x = ToFloeFilter(a, schema);
        if (!x) continue;  // AND: the other parts still prune
        out = out ? expr::And(out, *x) : *x;
      }
      if (!out) return std::nullopt;
      return out;
    }
    case Fn::kOr: {
      expr::ExprPtr out;
      for (const auto& a : e.args) {
        auto x = ToFloeFilter(a, schema);
        if (!x) return std::nullopt;
        out = out ? expr::Or(out, *x) : *x;
      }
      return out;
    }
    case Fn::kEq:
    case Fn::kNe:
    case Fn::kLt:
    case Fn::kLe:
    case Fn::kGt:
    case Fn::kGe: {
      const ColumnInfo* c = column(e.args[0]);
      const BoundExpr* lit = &e.args[1];
      Fn fn = e.fn;
      if (!c) {
        c = column(e.args[1]);
        lit = &e.args[0];
        switch (fn) {
          case Fn::kLt: fn = Fn::kGt; break;
          case Fn::kLe: fn = Fn::kGe; break;
          case Fn::kGt: fn = Fn::kLt; break;
          case Fn::kGe: fn = Fn::kLe; break;
          default: break;
        }
      }
      if (!c || !lit->IsConstant()) return std::nullopt;
      auto l = ConstantLiteral(*lit);
      if (!l || l->type != c->physical->id) return std::nullopt;
      // NaN compares unlike SQL in metrics: leave floating point out.
      if (l->type == TypeId::kFloat || l->type == TypeId::kDouble) return std::nullopt;
      expr::Op op = expr::Op::kEq;
      switch (fn) {
        case Fn::kEq: op = expr::Op::kEq; break;
        case Fn::kNe: op = expr::Op::kNe; break;
        case Fn::kLt: op = expr::Op::kLt; break;
        case Fn::kLe: op = expr::Op::kLe; break;
        case Fn::kGt: op = expr::Op::kGt; break;
        default: op = expr::Op::kGe; break;
      }
      return expr::Predicate(op, c->name, {Unbound(*l)});
    }
    case Fn::kIsNull:
    case Fn::kIsNotNull: {
      const ColumnInfo* c = column(e.args[0]);
      if (!c) return std::nullopt;
      return expr::Predicate(e.fn == Fn::kIsNull ? expr::Op::kIsNull : expr::Op::kNotNull, c->name);
    }
    case Fn::kIn: {
      if (e.negated) return std::nullopt;
      const ColumnInfo* c = column(e.args[0]);
      if (!c || c->physical->id == TypeId::kFloat || c->physical->id == TypeId::kDouble)
        return std::nullopt;
      std::vector<expr::Literal> lits;
      for (size_t i = 1; i < e.args.size(); ++i) {
        if (!e.args[i].IsConstant()) return std::nullopt;
        auto l = ConstantLiteral(e.args[i]);
        if (!l || l->type != c->physical->id) return std::nullopt;
        lits.push_back(Unbound(*l));
      }
      return expr::Predicate(expr::Op::kIn, c->name, std::move(lits));
    }
    case Fn::kLike: {
      if (e.negated || e.args.size() != 2) return std::nullopt;
      const ColumnInfo* c = column(e.args[0]);
      if (!c || c->physical->id != TypeId::kString || !e.args[1].IsConstant()) return std::nullopt;
      auto l = ConstantLiteral(e.args[1]);
      if (!l) return std::nullopt;
      // 'prefix%' with no other wildcard is a starts-with (Iceberg's pushdown of LIKE).
      const std::string& p = l->s;
      if (p.size() < 2 || p.back() != '%') return std::nullopt;
      const std::string prefix = p.substr(0, p.size() - 1);
      if (prefix.find_first_of("%_") != std::string::npos) return std::nullopt;
      return expr::Predicate(expr::Op::kStartsWith, c->name, {expr::Literal::String(prefix)});
    }
    default: return std::nullopt;
  }
}

// ----------------------------------------------------------- statements

// A bounded query's batches, read and projected onto the sink's columns on
// a thread of their own while the caller's thread writes the previous ones
// (the overlap `floe write`'s pipeline has: decoding here, Parquet encoding
// there). At most kDepth batches wait. Only for bounded queries: a
// streaming source may wait for snapshots forever, and the destructor joins.
class PrefetchingSource : public RowSource {
 public:
  static constexpr size_t kDepth = 4;

  PrefetchingSource(std::unique_ptr<RowSource> input, const Projector* projector)
      : input_(std::move(input)), unbounded_(input_->unbounded()), projector_(projector),
        thread_([this] { Produce(); }) {}

  bool unbounded() const override { return unbounded_; }

  ~PrefetchingSource() override {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

  Result<bool> Next(Batch* out) override {
    return NextUntil(out, std::chrono::steady_clock::time_point::max());
  }
  // Waits for the producer no longer than `deadline` (an empty batch then):
  // an idle streaming INSERT reaches its checkpoints and sees a stop on time.
  Result<bool> NextUntil(Batch* out, std::chrono::steady_clock::time_point deadline) override {
    std::unique_lock lock(mu_);
    auto ready = [&] { return !queue_.empty() || done_; };
    if (deadline == std::chrono::steady_clock::time_point::max()) {
      cv_.wait(lock, ready);
    } else if (!cv_.wait_until(lock, deadline, ready)) {
      *out = Batch();
      return true;
    }
    if (queue_.empty()) {
      if (error_) return Fail(*error_);
      return false;
    }
    *out = std::move(queue_.front());
    queue_.pop_front();
    cv_.notify_all();
    return true;
  }

 private:
  void Produce() {
    while (true) {
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [&] { return queue_.size() < kDepth || stop_; });
        if (stop_) break;
      }
      Batch b;
      auto more = input_->Next(&b);
      Result<Batch> projected =
          more && *more ? projector_->Apply(std::move(b)) : Result<Batch>(Batch());
      std::lock_guard lock(mu_);
      if (!more || !projected) {
        error_ = !more ? more.error() : projected.error();
        break;
      }
      if (!*more) break;
      if (projected->num_rows > 0) queue_.push_back(std::move(*projected));
      cv_.notify_all();
    }
    std::lock_guard lock(mu_);
    done_ = true;
    cv_.notify_all();
  }

  std::unique_ptr<RowSource> input_;
  const bool unbounded_;
  const Projector* projector_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Batch> queue_;
  std::optional<Error> error_;
  bool done_ = false;
  bool stop_ = false;
  std::thread thread_;  ///< last: starts once the members it uses exist
};

// An INSERT's query as a source of the streaming loop (sink/streaming_job.h):
// each Read pulls one batch of the query (`projected`: the source already
// gives the sink's columns), enforces the sink's NOT NULL columns and writes
// it to the sink. It is unbounded for the loop, so that with a checkpoint
// interval (a streaming job, `execution.checkpointing.interval`) a sink that
// publishes at checkpoints does so each time the interval has passed; the
// end of the input is committed by RunInserts, every sink of a statement set
// together.
class InsertSource final : public sink::Source {
 public:
  static constexpr std::chrono::milliseconds kStopPoll{200};
  InsertSource(RowSource* source, const Projector& projector, bool projected, const RelSchema& sink_schema,
               RowSink* sink, std::string table)
      : source_(source), projector_(projector), projected_(projected), sink_schema_(sink_schema), sink_(sink),
        table_(std::move(table)) {}
  std::string name() const override { return table_; }
  bool bounded() const override { return false; }
  Status Open(SchemaPtr, sink::SourceOutput) override { return Ok(); }
  Result<sink::SourceState> Read(sink::SourceClock::time_point deadline, const sink::Cancellation* cancel) override {
    // A stop (a failed INSERT of the set, a signal) is seen within kStopPoll.
    if (cancel) deadline = std::min(deadline, sink::SourceClock::now() + kStopPoll);
    Batch b;
    FLOE_ASSIGN_OR_RETURN(bool more, source_->NextUntil(&b, deadline));
    if (!more) return sink::SourceState::kEnd;
    if (b.num_rows == 0) return sink::SourceState::kIdle;
    Batch out;
    if (projected_) {
      out = std::move(b);
    } else {
      FLOE_ASSIGN_OR_RETURN(out, projector_.Apply(std::move(b)));
    }
    // Flink's sink NOT NULL enforcer (table.exec.sink.not-null-enforcer=ERROR).
    for (int c = 0; c < sink_schema_.size(); ++c) {
      if (!sink_schema_.columns[c].type.nullable && out.columns[c].has_nulls() &&
          out.columns[c].null_count() > 0) {
        return InvalidArgument(
            "Column '{}' is NOT NULL, however, a null value is being written into it (table {}).",
            sink_schema_.columns[c].name, table_);
      }
    }
    FLOE_RETURN_IF_ERROR(sink_->Write(std::move(out)));
    return sink::SourceState::kMore;
  }
  // A SQL sink stores no source position (no sink token to resume from).
  Result<std::string> Describe(int64_t) override { return std::string(); }
  Status Resume(std::string_view, std::string_view, int64_t) override { return Ok(); }

 private:
  RowSource* source_;
  const Projector& projector_;
  bool projected_;
  const RelSchema& sink_schema_;
  RowSink* sink_;
  std::string table_;
};

// A SQL sink as the loop's target: a trigger is a checkpoint.
class CheckpointTarget final : public sink::JobTarget {
 public:
  explicit CheckpointTarget(RowSink* sink) : sink_(sink) {}
  Status Commit(int64_t) override { return sink_->Checkpoint(); }

 private:
  RowSink* sink_;
};

// Runs one INSERT through the streaming loop until its source ends or
// `cancel` is set (another INSERT of the statement set failed: its error is
// the one reported, and every sink is aborted).
Status RunToSink(RowSource* source, const Projector& projector, bool projected, const RelSchema& sink_schema,
                 RowSink* sink, const std::string& table, std::chrono::nanoseconds checkpoint_interval,
                 const sink::Cancellation* cancel) {
  InsertSource input(source, projector, projected, sink_schema, sink, table);
  CheckpointTarget target(sink);
  sink::LoopOptions lo;
  if (checkpoint_interval.count() > 0 && sink->checkpoints()) {
    lo.trigger = std::chrono::duration_cast<std::chrono::milliseconds>(checkpoint_interval);
  }
  lo.cancel = cancel;
  lo.commit_at_end = false;  // RunInserts commits the statement set's sinks together
  return sink::RunStreamingLoop(input, target, lo);
}

}  // namespace

// The planner lives in the Impl's query half.
struct QueryPlanner {
  Session::Impl& s;

  Result<std::map<std::string, std::string>> Hints(const std::vector<sql::Hint>& hints) {
    std::map<std::string, std::string> out;
    for (const sql::Hint& h : hints) {
      std::string name = h.name;
      for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      if (name != "OPTIONS") {
        return Fail(NotSupportedYet(
            fmt::format("Table hint '{}' (line {}, column {}); floe takes OPTIONS hints", h.name,
                        h.pos.line, h.pos.column)));
      }
      for (const auto& p : h.options) out[p.key] = p.value;
    }
    return out;
  }

  Result<PlannedQuery> Plan(const sql::Query& q) {
    if (const auto* sel = std::get_if<sql::Select>(&q.body)) return PlanSelect(*sel);
    return PlanValues(std::get<sql::Values>(q.body));
  }

  Result<PlannedQuery> PlanValues(const sql::Values& v) {
    const Scope empty;
    std::vector<std::vector<BoundExpr>> rows;
    size_t width = v.rows.empty() ? 0 : v.rows[0].size();
    for (const auto& row : v.rows) {
      if (row.size() != width) {
        return Fail(Classed(
            "floe.ValidationException",
            ValidationError(sql::Span{v.pos, v.pos},
                            "Values passed to VALUES must have the same number of columns")));
      }
      std::vector<BoundExpr> bound;
      for (const sql::Expr& e : row) {
        auto b = Bind(e, empty);
        if (!b) return Fail(Classed("floe.ValidationException", b.error()));
        bound.push_back(std::move(*b));
      }
      rows.push_back(std::move(bound));
    }
    PlannedQuery p;
    for (size_t c = 0; c < width; ++c) {
      std::optional<sql::DataType> t;
      bool nullable = false;
      for (const auto& row : rows) {
        if (row[c].null_literal) {
          nullable = true;
          continue;
        }
        nullable = nullable || row[c].type.nullable;
        if (!t) {
          t = row[c].type;
        } else {
          auto common = CommonType(*t, row[c].type);
          if (!common) {
            return Fail(Classed(
                "floe.ValidationException",
                ValidationError(row[c].span,
                                fmt::format("Type mismatch in column {} of VALUES", c + 1))));
          }
          t = common;
        }
      }
      if (!t) {
        return Fail(Classed("floe.ValidationException",
                            ValidationError(rows[0][c].span, "Illegal use of 'NULL'")));
      }
      t->nullable = nullable;
      for (auto& row : rows) {
        auto cast = CastTo(std::move(row[c]), *t);
        if (!cast) return Fail(cast.error());
        row[c] = std::move(*cast);
      }
      FLOE_ASSIGN_OR_RETURN(TypePtr phys, PhysicalOf(*t));
      p.output.columns.push_back(ColumnInfo{ExprName(static_cast<int>(c)), *t, phys});
    }
    SchemaPtr schema = p.output.Physical();
    Batch b(schema);
    for (size_t c = 0; c < width; ++c) {
      for (const auto& row : rows) {
        FLOE_ASSIGN_OR_RETURN(ColumnVector one, EvaluateConstant(row[c]));
        one.type = schema->fields()[c].type;
        AppendRange(one, 0, 1, &b.columns[c]);
      }
    }
    b.num_rows = static_cast<int64_t>(rows.size());
    auto batch = std::make_shared<Batch>(std::move(b));
    p.open = [batch]() -> Result<std::unique_ptr<RowSource>> {
      std::vector<Batch> bs;
      bs.push_back(*batch);
      return std::unique_ptr<RowSource>(new BatchesSource(std::move(bs)));
    };
    return p;
  }

  Result<PlannedQuery> PlanSelect(const sql::Select& sel) {
    if (!sel.hints.empty()) return Fail(NotSupportedYet("Query hints (SELECT /*+ ... */)"));
    Scope scope;
    std::optional<TableHandle> table;
    std::map<std::string, std::string> hints;
    if (sel.from) {
      FLOE_ASSIGN_OR_RETURN(TableHandle h, s.LoadTableHandle(sel.from->name));
      FLOE_ASSIGN_OR_RETURN(hints, Hints(sel.from->hints));
      if (!h.iceberg) {
        // Flink's dynamic table options: the hint overrides the table's options.
        for (const auto& [k, v] : hints) h.options[k] = v;
      }
      scope.schema = h.schema;
      scope.name = h.name;
      if (sel.from->alias) {
        scope.qualifiers = {{*sel.from->alias}};
      } else {
        scope.qualifiers = {{h.name}, {h.database, h.name}, {h.catalog, h.database, h.name}};
      }
      table = std::move(h);
    }
    std::vector<BoundExpr> items;
    std::vector<std::string> names;
    auto bind = [&](const sql::Expr& e) -> Result<BoundExpr> {
      auto b = Bind(e, scope);
      if (!b)
        return Fail(Classed(b.error().kind == ErrorKind::kUnsupported ? "floe.UnsupportedException"
                                                                      : "floe.ValidationException",
                            b.error()));
      return b;
    };
    for (const sql::SelectItem& item : sel.items) {
      if (item.expr.kind == sql::ExprKind::kStar) {
        if (!table) {
          return Fail(Classed("floe.ValidationException",
                              ValidationError(item.expr.span, "SELECT * requires a FROM clause")));
        }
        if (!item.expr.names.empty()) {
          bool found = false;
          for (const auto& q : scope.qualifiers) found = found || q == item.expr.names;
          if (!found) {
            std::string q;
            for (const auto& n : item.expr.names) q += (q.empty() ? "" : ".") + n;
            return Fail(Classed(
                "floe.ValidationException",
                ValidationError(item.expr.span, fmt::format("Unknown identifier '{}'", q))));
          }
        }
        for (int c = 0; c < scope.schema.size(); ++c) {
          BoundExpr b;
          b.kind = BoundKind::kColumn;
          b.column = c;
          b.type = scope.schema.columns[c].type;
          b.physical = scope.schema.columns[c].physical;
          b.span = item.expr.span;
          items.push_back(std::move(b));
          names.push_back(scope.schema.columns[c].name);
        }
        continue;
      }
      FLOE_ASSIGN_OR_RETURN(BoundExpr b, bind(item.expr));
      if (b.null_literal) {
        return Fail(Classed("floe.ValidationException",
                            ValidationError(item.expr.span, "Illegal use of 'NULL'")));
      }
      if (item.alias) {
        names.push_back(*item.alias);
      } else if (b.kind == BoundKind::kColumn) {
        names.push_back(scope.schema.columns[b.column].name);
      } else {
        names.push_back(ExprName(static_cast<int>(items.size())));
      }
      items.push_back(std::move(b));
    }
    std::optional<BoundExpr> where;
    if (sel.where) {
      FLOE_ASSIGN_OR_RETURN(BoundExpr w, bind(*sel.where));
      if (w.null_literal) {
        FLOE_ASSIGN_OR_RETURN(w, CastTo(std::move(w), MakeType(sql::TypeName::kBoolean)));
      }
      if (w.type.name != sql::TypeName::kBoolean) {
        return Fail(
            Classed("floe.ValidationException",
                    ValidationError(sel.where->span,
                                    fmt::format("WHERE clause must be a condition (its type is {})",
                                                TypeSummary(w.type)))));
      }
      where = std::move(w);
    }
    PlannedQuery p;
    for (size_t i = 0; i < items.size(); ++i) {
      p.output.columns.push_back(ColumnInfo{names[i], items[i].type, items[i].physical});
    }
    // Output names must be unique for an INSERT's schema summary; Flink
    // suffixes duplicates (a, a0): do the same.
    std::set<std::string> seen;
    for (auto& c : p.output.columns) {
      std::string n = c.name;
      for (int k = 0; seen.contains(n); ++k) n = c.name + std::to_string(k);
      seen.insert(n);
      c.name = n;
    }
    const int64_t limit = sel.limit.value_or(-1);
    if (!table) {
      Projector proj(items, p.output.Physical());
      auto where_copy = where;
      p.open = [proj, where_copy, limit]() -> Result<std::unique_ptr<RowSource>> {
        return std::unique_ptr<RowSource>(
            new SelectSource(std::make_unique<OneRowSource>(), where_copy, proj, limit));
      };
      return p;
    }
    // The columns the query reads, and the expressions rewritten onto them.
    std::set<int> used;
    for (const auto& e : items) CollectColumns(e, &used);
    if (where) CollectColumns(*where, &used);
    if (used.empty()) used.insert(0);
    ReadRequest request;
    request.hints = table->iceberg ? hints : std::map<std::string, std::string>{};
    if (where && table->iceberg) {
      if (auto f = ToFloeFilter(*where, table->schema)) request.filter = *f;
    }
    if (!where) request.limit = limit;
    std::map<int, int> remap;
    for (int c : used) {
      remap[c] = static_cast<int>(request.columns.size());
      request.columns.push_back(c);
    }
    for (auto& e : items) RemapColumns(&e, remap);
    if (where) RemapColumns(&*where, remap);
    FLOE_ASSIGN_OR_RETURN(auto connector, ConnectorOf(*table));
    if (Status st = connector->Validate(*table, false); !st)
      return Fail(Classed("floe.ValidationException", st.error()));
    EngineContext ctx = s.Context();
    p.changelog = connector->ChangelogSource(*table, request, ctx) || ctx.streaming;
    Projector proj(items, p.output.Physical());
    auto t = std::make_shared<TableHandle>(*table);
    Session::Impl* impl = &s;
    p.open = [impl, connector, t, request, proj, where,
              limit]() -> Result<std::unique_ptr<RowSource>> {
      FLOE_ASSIGN_OR_RETURN(auto src, connector->OpenSource(*t, request, impl->Context()));
      return std::unique_ptr<RowSource>(new SelectSource(std::move(src), where, proj, limit));
    };
    return p;
  }

  // ---------------------------------------------------------- INSERT

  struct PlannedInsert {
    TableHandle table;
    std::shared_ptr<const Connector> connector;
    WriteRequest request;
    PlannedQuery query;
    std::optional<Projector> to_sink;
    /// INSERT INTO <iceberg> SELECT <its columns> FROM <kafka table>: the
    /// Kafka table, whose rows go through floe write's streaming job.
    std::optional<TableHandle> kafka_source;
    /// ... or from a postgres-cdc table: the PostgreSQL source of floe write.
    std::optional<TableHandle> pg_source;
  };

  /// An INSERT into an Iceberg table from a Kafka table runs as `floe write`
  /// runs a Kafka `source:` (exactly-once: the offsets in every commit); the
  /// query must then hand the Kafka table's columns over as they are.
  Status PlanKafkaInsert(const sql::Insert& ins, PlannedInsert* p) {
    const auto* sel = std::get_if<sql::Select>(&ins.query.body);
    if (sel == nullptr || !sel->from) return Ok();
    FLOE_ASSIGN_OR_RETURN(TableHandle src, s.LoadTableHandle(sel->from->name));
    const bool pg = IsPostgresCdcTable(src);
    if (!IsKafkaTable(src) && !pg) return Ok();
    // Into another connector (print, blackhole, ...): the engine's loop;
    // nothing there stores offsets (a postgres-cdc table refuses it).
    if (!p->table.iceberg) return Ok();
    std::vector<std::string> names;
    bool plain = !sel->where && !sel->limit && sel->hints.empty() && sel->from->hints.empty() &&
                 ins.partition.empty() && ins.hints.empty();
    for (const sql::SelectItem& item : sel->items) {
      if (item.expr.kind == sql::ExprKind::kStar) {
        for (const auto& c : src.schema.columns) names.push_back(c.name);
      } else if (item.expr.kind == sql::ExprKind::kColumn && !item.expr.names.empty() &&
                 (!item.alias || *item.alias == item.expr.names.back())) {
        names.push_back(item.expr.names.back());
      } else {
        plain = false;
      }
    }
    const RelSchema& sink = p->table.schema;
    plain = plain && static_cast<int>(names.size()) == sink.size() && src.schema.size() == sink.size();
    for (int c = 0; plain && c < sink.size(); ++c) {
      plain = names[c] == src.schema.columns[c].name && names[c] == sink.columns[c].name &&
              SameLogical(src.schema.columns[c].type, sink.columns[c].type);
    }
    if (!ins.columns.empty()) {
      for (size_t c = 0; plain && c < ins.columns.size(); ++c) {
        plain = static_cast<int>(c) < sink.size() && ins.columns[c] == sink.columns[c].name;
      }
      plain = plain && static_cast<int>(ins.columns.size()) == sink.size();
    }
    if (!plain) {
      const char* kind = pg ? "postgres-cdc" : "Kafka";
      return Fail(NotSupportedYet(fmt::format(
          "INSERT INTO {} from the {} table {} with a query other than SELECT * (or every column in order, "
          "the {} table's columns named and typed as the sink's; no WHERE, LIMIT, hints or PARTITION: floe "
          "runs it as the exactly-once streaming job of floe write)",
          p->table.FullName(), kind, src.FullName(), kind)));
    }
    if (pg) {
      std::vector<std::string> a = src.primary_key, b = p->table.primary_key;
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      if (a != b) {
        auto names = [](const std::vector<std::string>& v) {
          std::string out;
          for (const auto& n : v) out += (out.empty() ? "" : ", ") + n;
          return out.empty() ? std::string("none") : out;
        };
        return Fail(Validation(fmt::format(
            "INSERT INTO {} from the postgres-cdc table {}: the Iceberg table's PRIMARY KEY (identifier fields: {}) "
            "must be the source's ({}): the changes are applied by it",
            p->table.FullName(), src.FullName(), names(b), names(a))));
      }
      p->pg_source = std::move(src);
      return Ok();
    }
    p->kafka_source = std::move(src);
    return Ok();
  }

  Error Mismatch(const TableHandle& t, const RelSchema& query, const std::string& cause) {
    return Validation(
        fmt::format("Column types of query result and sink for '{}' do not match.\nCause: "
                    "{}\n\nQuery schema: {}\nSink schema:  {}",
                    t.FullName(), cause, query.Summary(), t.schema.Summary()));
  }

  Result<PlannedInsert> PlanInsert(const sql::Insert& ins) {
    PlannedInsert p;
    FLOE_ASSIGN_OR_RETURN(p.table, s.LoadTableHandle(ins.table));
    FLOE_ASSIGN_OR_RETURN(auto hints, Hints(ins.hints));
    if (p.table.iceberg) {
      p.request.hints = hints;
    } else {
      for (const auto& [k, v] : hints) p.table.options[k] = v;
    }
    p.request.overwrite = ins.overwrite;
    EngineContext ctx = s.Context();
    if (ins.overwrite && ctx.streaming) {
      return Fail(
          Validation("INSERT OVERWRITE expression is only supported in batch mode "
                     "(execution.runtime-mode = batch)."));
    }
    FLOE_ASSIGN_OR_RETURN(p.connector, ConnectorOf(p.table));
    if (Status st = p.connector->Validate(p.table, true); !st)
      return Fail(Classed("floe.ValidationException", st.error()));
    FLOE_ASSIGN_OR_RETURN(p.query, Plan(ins.query));
    p.request.changelog = p.query.changelog && !ctx.streaming ? true : p.query.changelog;
    const RelSchema& sink = p.table.schema;
    // Static partition values.
    std::map<std::string, BoundExpr> fixed;
    for (const auto& [col, e] : ins.partition) {
      if (std::find(p.table.partition_keys.begin(), p.table.partition_keys.end(), col) ==
          p.table.partition_keys.end()) {
        std::string keys;
        for (const auto& k : p.table.partition_keys) keys += (keys.empty() ? "" : ", ") + k;
        return Fail(Validation(
            fmt::format("{} is not a partition column of table {}. Partition columns are: [{}]",
                        col, p.table.FullName(), keys)));
      }
      auto b = Bind(e, Scope{});
      if (!b) return Fail(Classed("floe.ValidationException", b.error()));
      fixed[col] = std::move(*b);
      FLOE_ASSIGN_OR_RETURN(ColumnVector v, EvaluateConstant(fixed[col]));
      std::string text;
      AppendValueText(v, fixed[col].type, 0, &text);
      p.request.static_partition[col] = text;
    }
    // The target columns the query fills, in the query's order.
    std::vector<int> targets;
    if (!ins.columns.empty()) {
      for (const std::string& name : ins.columns) {
        int idx = -1;
        for (int c = 0; c < sink.size(); ++c) {
          if (sink.columns[c].name == name) idx = c;
        }
        if (idx < 0) return Fail(Validation(fmt::format("Unknown target column '{}'", name)));
        if (std::find(targets.begin(), targets.end(), idx) != targets.end()) {
          return Fail(
              Validation(fmt::format("Target column '{}' is assigned more than once", name)));
        }
        targets.push_back(idx);
      }
    } else {
      for (int c = 0; c < sink.size(); ++c) {
        if (!fixed.contains(sink.columns[c].name)) targets.push_back(c);
      }
    }
    const RelSchema& q = p.query.output;
    if (q.size() != static_cast<int>(targets.size())) {
      return Fail(Mismatch(p.table, q, "Different number of columns."));
    }
    Scope scope;
    scope.schema = q;
    std::vector<BoundExpr> exprs(static_cast<size_t>(sink.size()));
    for (int c = 0; c < sink.size(); ++c) {
      const ColumnInfo& col = sink.columns[c];
      sql::DataType want = col.type;
      want.nullable = true;  // nulls are checked per row (NOT NULL enforcer)
      auto pos = std::find(targets.begin(), targets.end(), c);
      BoundExpr e;
      if (fixed.contains(col.name)) {
        e = fixed[col.name];
        if (!ExplicitCastAllowed(e.type, want)) {
          return Fail(Validation(fmt::format(
              "Static partition value of column '{}' has type {}, which does not cast to {}",
              col.name, TypeSummary(e.type), TypeSummary(col.type))));
        }
      } else if (pos != targets.end()) {
        const int j = static_cast<int>(pos - targets.begin());
        e.kind = BoundKind::kColumn;
        e.column = j;
        e.type = q.columns[j].type;
        e.physical = q.columns[j].physical;
        const bool constant = false;
        if (!SameLogical(e.type, col.type) && !ImplicitCastAllowed(e.type, col.type) &&
            !(constant && ExplicitCastAllowed(e.type, col.type))) {
          return Fail(Mismatch(
              p.table, q,
              fmt::format("Incompatible types for sink column '{}' at position {}.", col.name, c)));
        }
      } else {
        if (!col.type.nullable) {
          return Fail(Validation(
              fmt::format("Column '{}' has no default value and does not allow NULLs.", col.name)));
        }
        BoundExpr n;
        n.kind = BoundKind::kLiteral;
        n.null_literal = true;
        e = std::move(n);
      }
      want.nullable = e.null_literal || e.type.nullable;
      FLOE_ASSIGN_OR_RETURN(e, CastTo(std::move(e), want));
      exprs[c] = std::move(e);
    }
    p.to_sink.emplace(std::move(exprs), sink.Physical());
    FLOE_RETURN_IF_ERROR(PlanKafkaInsert(ins, &p));
    return p;
  }
};

// ------------------------------------------------------------- execution

Result<StatementResult> Session::Impl::Query(const sql::Query& q) {
  QueryPlanner planner{*this};
  FLOE_ASSIGN_OR_RETURN(PlannedQuery p, planner.Plan(q));
  FLOE_ASSIGN_OR_RETURN(auto source, p.open());
  StatementResult r;
  r.kind = StatementResult::Kind::kRows;
  for (const auto& c : p.output.columns) {
    r.table.columns.push_back(c.name);
    r.table.types.push_back(c.type);
  }
  r.table.changelog = p.changelog;
  // A streaming result goes to the listener batch by batch (Ctrl-C then
  // loses nothing that was read, and an unbounded read is not held).
  const bool stream = p.changelog && streaming_rows;
  if (stream) {
    streaming_rows(r.table);
    r.table.streamed_rows = 0;
  }
  while (true) {
    // A stop (Session::SetInterrupt) ends the query with what it read.
    if (interrupt && interrupt->cancelled()) {
      stopped = true;
      break;
    }
    Batch b;
    FLOE_ASSIGN_OR_RETURN(bool more, interrupt ? source->NextUntil(&b, std::chrono::steady_clock::now() +
                                                                            std::chrono::milliseconds(200))
                                               : source->Next(&b));
    if (!more) break;
    for (int64_t i = 0; i < b.num_rows; ++i) {
      std::vector<std::optional<std::string>> row;
      for (size_t c = 0; c < b.columns.size(); ++c) {
        if (b.columns[c].IsNull(i)) {
          row.emplace_back();
        } else {
          std::string text;
          AppendValueText(b.columns[c], p.output.columns[c].type, i, &text);
          row.emplace_back(std::move(text));
        }
      }
      r.table.rows.push_back(std::move(row));
      if (p.changelog)
        r.table.kinds.push_back(b.row_kinds.empty() ? RowKind::kInsert : b.row_kinds[i]);
    }
    if (stream && !r.table.rows.empty()) {
      streaming_rows(r.table);
      *r.table.streamed_rows += static_cast<int64_t>(r.table.rows.size());
      r.table.rows.clear();
      r.table.kinds.clear();
    }
  }
  return r;
}

namespace {

// Runs planned INSERTs as one job: every sink opened, every query run to its
// end, every sink finished, then the commits that must wait (Iceberg).
// Any failure aborts every sink: nothing is committed to Iceberg.
Status RunInserts(std::vector<QueryPlanner::PlannedInsert>& inserts, Session::Impl& s) {
  std::vector<std::unique_ptr<RowSink>> sinks;
  auto abort_all = [&] {
    for (auto& sk : sinks) {
      if (sk) sk->Abort();
    }
  };
  EngineContext ctx = s.Context();
  std::chrono::nanoseconds checkpoint_interval{0};
  if (auto it = s.options.find("execution.checkpointing.interval"); it != s.options.end()) {
    FLOE_ASSIGN_OR_RETURN(checkpoint_interval, config::ParseDuration(it->second));
  }
  for (auto& ins : inserts) {
    auto sink = ins.connector->OpenSink(ins.table, ins.request, ctx);
    if (!sink) {
      abort_all();
      return Fail(
          sink.error().WithContext(fmt::format("cannot write to table {}", ins.table.FullName())));
    }
    sinks.push_back(std::move(*sink));
  }
  // The sources are opened here, on the session's thread (their warnings
  // print in order); the INSERTs of a set then run side by side, each on
  // its own thread, as Flink runs a statement set's pipelines together: an
  // unbounded INSERT does not keep the others waiting. The first failure
  // stops the others.
  std::vector<std::unique_ptr<RowSource>> sources;
  for (auto& ins : inserts) {
    auto source = ins.query.open();
    if (!source) {
      abort_all();
      return Fail(source.error());
    }
    sources.push_back(std::move(*source));
  }
  // The first failure stops the others; so does the session's interrupt (a
  // signal to `floe sql`).
  sink::Cancellation stop;
  if (s.interrupt) stop.Follow(s.interrupt);
  std::vector<Status> results(inserts.size(), Ok());
  auto run_one = [&](size_t i) {
    Status st;
    if (!inserts[i].query.changelog) {
      // Bounded: read and project on another thread while this one writes.
      PrefetchingSource prefetch(std::move(sources[i]), &*inserts[i].to_sink);
      st = RunToSink(&prefetch, *inserts[i].to_sink, true, inserts[i].table.schema,
                     sinks[i].get(), inserts[i].table.FullName(), checkpoint_interval, &stop);
    } else {
      st = RunToSink(sources[i].get(), *inserts[i].to_sink, false, inserts[i].table.schema,
                     sinks[i].get(), inserts[i].table.FullName(), checkpoint_interval, &stop);
    }
    if (!st) stop.Cancel();
    results[i] = std::move(st);
  };
  std::vector<bool> unbounded;
  for (const auto& src : sources) unbounded.push_back(src->unbounded());
  if (inserts.size() == 1) {
    run_one(0);
  } else {
    std::vector<std::thread> threads;
    for (size_t i = 0; i < inserts.size(); ++i) threads.emplace_back(run_one, i);
    for (auto& t : threads) t.join();
  }
  sources.clear();
  for (const Status& st : results) {
    if (!st) {
      abort_all();
      return st;
    }
  }
  if (s.interrupt && s.interrupt->cancelled()) {
    // Stopped from outside. A streaming job ends as Flink's stop-with-savepoint
    // does: what every INSERT read is committed below. A bounded one is given
    // up: part of a bounded input is not what anyone asked for.
    for (size_t i = 0; i < inserts.size(); ++i) {
      if (unbounded[i]) continue;
      abort_all();
      return Fail(Error{ErrorKind::kCommitFailed,
                        fmt::format("INSERT INTO {} was stopped (a signal) before the end of its input; nothing "
                                    "{}was committed",
                                    inserts[i].table.FullName(),
                                    checkpoint_interval.count() > 0 ? "after its last checkpoint " : ""),
                        false});
    }
    s.stopped = true;
  }
  for (auto& sk : sinks) {
    if (Status st = sk->Finish(); !st) {
      abort_all();
      return st;
    }
  }
  for (auto& sk : sinks) {
    if (sk->deferred_commit()) continue;
    if (Status st = sk->Commit(); !st) {
      abort_all();
      return st;
    }
  }
  for (auto& sk : sinks) {
    if (!sk->deferred_commit()) continue;
    // An Iceberg commit that fails after another one of the set succeeded
    // cannot be undone (no multi-table transactions): the error says so.
    if (Status st = sk->Commit(); !st) {
      abort_all();
      return st;
    }
  }
  return Ok();
}

// INSERT INTO <iceberg table> SELECT ... FROM <kafka table>, planned as
// PlannedInsert::kafka_source: the streaming job of `floe write` with the
// Kafka source (sink/streaming_job.h), so that every commit stores the
// offsets it covers and a relaunch resumes from them (sink_id
// `sql:<kafka table>`). debezium-json is merge-on-read and upsert-kafka an
// upsert, by the table's PRIMARY KEY. Commits at every checkpoint
// (`execution.checkpointing.interval`, at least a second) and at the end
// (bounded) or stop (a signal).
Status RunKafkaInsert(QueryPlanner::PlannedInsert& ins, Session::Impl& s) {
  namespace k = config::keys;
  const TableHandle& src = *ins.kafka_source;
  FLOE_ASSIGN_OR_RETURN(kafka::KafkaSourceOptions ko, KafkaSourceOptionsOf(src));
  const bool changes = ko.upsert || kafka::KafkaFormat(ko.format).value_or("") == "debezium-json";
  if (!ins.table.loaded) return Internal("iceberg table {} not loaded", ins.table.FullName());
  sink::WriteConfig cfg;
  FLOE_RETURN_IF_ERROR(cfg.SetTable(ins.table.loaded->id.ToString(), "INSERT"));
  FLOE_RETURN_IF_ERROR(cfg.Set(k::kBeamSinkId.name, "sql:" + src.FullName(), "INSERT"));
  if (changes) {
    if (ins.table.primary_key.empty()) {
      return Fail(Error{ErrorKind::kInvalidArgument,
                        fmt::format("INSERT INTO {} from {}: its rows are changes ({}), which need the table's PRIMARY "
                                    "KEY (its equality fields) to be applied",
                                    ins.table.FullName(), src.FullName(), ko.upsert ? "upsert-kafka" : ko.format),
                        false});
    }
    if (ko.upsert) {
      FLOE_RETURN_IF_ERROR(cfg.Set(k::kUpsertEnabled.name, "true", "upsert-kafka"));
    } else {
      FLOE_RETURN_IF_ERROR(cfg.Set(k::kBeamMode.name, "merge-on-read", "debezium-json"));
    }
  }
  if (auto it = s.options.find("execution.checkpointing.interval"); it != s.options.end()) {
    FLOE_ASSIGN_OR_RETURN(auto interval, config::ParseDuration(it->second));
    const int64_t secs = std::max<int64_t>(
        1, (std::chrono::duration_cast<std::chrono::milliseconds>(interval).count() + 999) / 1000);
    FLOE_RETURN_IF_ERROR(cfg.Set(k::kBeamTriggeringFrequencySeconds.name, std::to_string(secs), "INSERT"));
  }
  FLOE_ASSIGN_OR_RETURN(auto source, kafka::OpenKafkaSource(std::move(ko)));
  sink::Cancellation stop;
  if (s.interrupt) stop.Follow(s.interrupt);
  sink::StreamingJobOptions jo;
  jo.cancel = &stop;
  sink::ChangeSinkOptions copt;
  copt.changes_in_batch = changes;
  FLOE_ASSIGN_OR_RETURN(auto job, sink::StreamingJob::Open(cfg, ins.table.iceberg, ins.table.schema.Physical(),
                                                           std::move(copt), std::move(source), std::move(jo)));
  Status st = job->Run();
  if (st && s.interrupt && s.interrupt->cancelled()) s.stopped = true;
  return st;
}

// INSERT INTO <iceberg table> SELECT * FROM <postgres-cdc table>, planned
// as PlannedInsert::pg_source: the PostgreSQL source of `floe write`
// (pgsrc::RunPostgresWrite: snapshot, then logical replication, the LSN in
// every commit; sink_id `sql:<postgres-cdc table>`), committing at every
// checkpoint (`execution.checkpointing.interval`, at least a second) until
// the session's interrupt (a last commit) or, with scan.startup.mode
// snapshot, the snapshot's commit.
Status RunPostgresCdcInsert(QueryPlanner::PlannedInsert& ins, Session::Impl& s) {
  namespace k = config::keys;
  const TableHandle& src = *ins.pg_source;
  FLOE_ASSIGN_OR_RETURN(PostgresCdcSource pg, PostgresCdcSourceOf(src));
  FLOE_RETURN_IF_ERROR(ResolvePostgresCdcTable(src, &pg));
  if (!ins.table.loaded) return Internal("iceberg table {} not loaded", ins.table.FullName());
  sink::WriteConfig cfg;
  FLOE_RETURN_IF_ERROR(cfg.SetTable(ins.table.loaded->id.ToString(), "INSERT"));
  FLOE_RETURN_IF_ERROR(cfg.Set(k::kBeamSinkId.name, "sql:" + src.FullName(), "INSERT"));
  if (auto it = s.options.find("execution.checkpointing.interval"); it != s.options.end()) {
    FLOE_ASSIGN_OR_RETURN(auto interval, config::ParseDuration(it->second));
    const int64_t secs = std::max<int64_t>(
        1, (std::chrono::duration_cast<std::chrono::milliseconds>(interval).count() + 999) / 1000);
    FLOE_RETURN_IF_ERROR(cfg.Set(k::kBeamTriggeringFrequencySeconds.name, std::to_string(secs), "INSERT"));
  }
  sink::Cancellation stop;
  if (s.interrupt) stop.Follow(s.interrupt);
  pgsrc::PgWriteOptions po;
  po.cancel = &stop;
  Status st = pgsrc::RunPostgresWrite(cfg, ins.table.iceberg, pg.config, sink::ChangeSinkOptions{}, po);
  if (st && s.interrupt && s.interrupt->cancelled()) s.stopped = true;
  return st;
}

}  // namespace

// Plans the INSERTs (one, or a statement set's) and runs them as one job.
static Result<StatementResult> RunPlannedInserts(Session::Impl& s, std::span<const sql::Insert> inserts) {
  QueryPlanner planner{s};
  std::vector<QueryPlanner::PlannedInsert> plans;
  for (const sql::Insert& ins : inserts) {
    FLOE_ASSIGN_OR_RETURN(auto p, planner.PlanInsert(ins));
    plans.push_back(std::move(p));
  }
  for (const auto& p : plans) {
    if (!p.pg_source) continue;
    if (plans.size() > 1) {
      return Fail(NotSupportedYet(
          fmt::format("An INSERT from the postgres-cdc table {} in a statement set", p.pg_source->FullName())));
    }
    FLOE_RETURN_IF_ERROR(RunPostgresCdcInsert(plans[0], s));
    StatementResult r;
    r.kind = StatementResult::Kind::kInfo;
    r.message = "Complete execution of the SQL update statement.";
    return r;
  }
  for (const auto& p : plans) {
    if (!p.kafka_source) continue;
    if (plans.size() > 1) {
      return Fail(NotSupportedYet(
          fmt::format("An INSERT from the Kafka table {} in a statement set", p.kafka_source->FullName())));
    }
    FLOE_RETURN_IF_ERROR(RunKafkaInsert(plans[0], s));
    StatementResult r;
    r.kind = StatementResult::Kind::kInfo;
    r.message = "Complete execution of the SQL update statement.";
    return r;
  }
  FLOE_RETURN_IF_ERROR(RunInserts(plans, s));
  StatementResult r;
  r.kind = StatementResult::Kind::kInfo;
  r.message = "Complete execution of the SQL update statement.";
  return r;
}

Result<StatementResult> Session::Impl::Insert(const sql::Insert& ins) {
  return RunPlannedInserts(*this, std::span<const sql::Insert>(&ins, 1));
}

Result<StatementResult> Session::Impl::StatementSet(const sql::StatementSet& set) {
  return RunPlannedInserts(*this, set.inserts);
}

}  // namespace floe::sqlengine
