// Binding: column names resolved against a schema, literals converted to the
// column's type (text forms through floe/util/civil_time).
#include "floe/expr/expression.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "floe/expr/expr_internal.h"
#include "floe/util/civil_time.h"
#include "floe/util/strings.h"

namespace floe::expr {

namespace {

bool ParseUuid(std::string_view s, std::string* out) {
  if (s.size() != 36) return false;
  out->clear();
  for (size_t i = 0; i < 36;) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (s[i] != '-') return false;
      ++i;
      continue;
    }
    int a = HexDigitValue(s[i]), b = HexDigitValue(s[i + 1]);
    if (a < 0 || b < 0) return false;
    out->push_back(static_cast<char>(a * 16 + b));
    i += 2;
  }
  return true;
}

int128_t Pow10(int n) {
  int128_t p = 1;
  for (int i = 0; i < n; ++i) p *= 10;
  return p;
}

}  // namespace


Result<Literal> LiteralFromText(std::string_view text, const Type& type) {
  Literal l;
  l.type = type.id;
  switch (type.id) {
    // Filter literals take the spellings data files take (civil::Spelling::kNatural).
    case TypeId::kDate: {
      if (!civil::ParseDate(text, civil::Spelling::kNatural, &l.i)) {
        return InvalidArgument("'{}' is not a date (YYYY-MM-DD)", text);
      }
      return l;
    }
    case TypeId::kTime: {
      int64_t nanos = 0;
      if (!civil::ParseTime(text, civil::Spelling::kNatural, &nanos)) {
        return InvalidArgument("'{}' is not a time (HH:MM:SS[.ffffff])", text);
      }
      l.i = nanos / 1000;
      return l;
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs: {
      // A zone is allowed for every timestamp type: the instant is compared in UTC.
      civil::TimestampParts parts;
      if (!civil::ParseTimestamp(text, civil::Spelling::kNatural, &parts)) {
        return InvalidArgument("'{}' is not a timestamp (YYYY-MM-DD[THH:MM:SS[.f]][Z|+HH:MM])", text);
      }
      // Fraction digits below the unit are dropped (floored: the time of day is >= 0).
      bool ns = IsNanosTimestamp(type.id);
      if (!civil::EpochUnits(parts, ns ? 9 : 6, &l.i)) {
        return InvalidArgument("timestamp '{}' is out of range for {}", text, type.ToString());
      }
      return l;
    }
    case TypeId::kUuid:
      if (!ParseUuid(text, &l.s)) return InvalidArgument("'{}' is not a UUID", text);
      return l;
    case TypeId::kBinary:
    case TypeId::kFixed: {
      if (text.size() % 2) return InvalidArgument("'{}' is not hex (odd length)", text);
      for (size_t i = 0; i < text.size(); i += 2) {
        int a = HexDigitValue(text[i]), b = HexDigitValue(text[i + 1]);
        if (a < 0 || b < 0) return InvalidArgument("'{}' is not hex", text);
        l.s.push_back(static_cast<char>(a * 16 + b));
      }
      if (type.id == TypeId::kFixed && static_cast<int32_t>(l.s.size()) != type.length) {
        return InvalidArgument("'{}' is not {} bytes", text, type.length);
      }
      return l;
    }
    case TypeId::kString: l.s = std::string(text); return l;
    default: return InvalidArgument("no text form for {}", type.ToString());
  }
}

namespace {

enum class Fit { kOk, kAboveMax, kBelowMin };

// Coerces a parsed literal to the column type. kAboveMax/kBelowMin report a
// value outside the type's range (the predicate is then folded).
Result<Fit> Coerce(const Literal& in, const Type& type, const std::string& col, Literal* out) {
  auto mismatch = [&]() {
    return InvalidArgument("filter: column '{}' of type {} cannot be compared with {}", col,
                           type.ToString(), in.ToString());
  };
  *out = Literal{};
  out->type = type.id;
  switch (type.id) {
    case TypeId::kBoolean:
      if (in.type != TypeId::kBoolean) return mismatch();
      out->i = in.i;
      return Fit::kOk;
    case TypeId::kInt:
    case TypeId::kLong: {
      int64_t lo = type.id == TypeId::kInt ? INT32_MIN : INT64_MIN;
      int64_t hi = type.id == TypeId::kInt ? INT32_MAX : INT64_MAX;
      if (in.type == TypeId::kLong) {
        out->i = in.i;
      } else if (in.type == TypeId::kDecimal) {
        // 12.0 is fine; 12.5 compares like a real number: fold via double bounds below.
        int128_t p = Pow10(in.scale);
        if (in.dec % p != 0) {
          // Non-integral: represent through the next integer and let the
          // caller adjust the operator (x < 12.5 <=> x <= 12 ...).
          return InvalidArgument("filter: column '{}' is {}, the value {} is not a whole number", col,
                                 type.ToString(), in.ToString());
        }
        int128_t v = in.dec / p;
        if (v > hi) return Fit::kAboveMax;
        if (v < lo) return Fit::kBelowMin;
        out->i = static_cast<int64_t>(v);
        return Fit::kOk;
      } else {
        return mismatch();
      }
      if (out->i > hi) return Fit::kAboveMax;
      if (out->i < lo) return Fit::kBelowMin;
      return Fit::kOk;
    }
    case TypeId::kFloat:
    case TypeId::kDouble:
      if (in.type == TypeId::kLong) out->d = static_cast<double>(in.i);
      else if (in.type == TypeId::kDouble) out->d = in.d;
      else if (in.type == TypeId::kDecimal) out->d = static_cast<double>(in.dec) / static_cast<double>(Pow10(in.scale));
      else if (in.type == TypeId::kString && (in.s == "NaN" || in.s == "Infinity" || in.s == "-Infinity")) {
        out->d = in.s == "NaN" ? std::nan("") : (in.s[0] == '-' ? -INFINITY : INFINITY);
      } else return mismatch();
      if (type.id == TypeId::kFloat) out->d = static_cast<float>(out->d);
      return Fit::kOk;
    case TypeId::kDecimal: {
      int128_t v;
      int32_t s;
      if (in.type == TypeId::kLong) { v = in.i; s = 0; }
      else if (in.type == TypeId::kDecimal) { v = in.dec; s = in.scale; }
      else return mismatch();
      if (s > type.scale) {
        return InvalidArgument("filter: the value {} has more than {} decimal places for column '{}' ({})",
                               in.ToString(), type.scale, col, type.ToString());
      }
      v *= Pow10(type.scale - s);
      int128_t limit = Pow10(type.precision);
      if (v >= limit) return Fit::kAboveMax;
      if (v <= -limit) return Fit::kBelowMin;
      out->dec = v;
      out->scale = type.scale;
      return Fit::kOk;
    }
    case TypeId::kDate:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      if (in.type == TypeId::kString) {
        auto parsed = LiteralFromText(in.s, type);
        if (!parsed) return Fail(parsed.error().WithContext(fmt::format("filter: column '{}'", col)));
        *out = std::move(*parsed);
        return Fit::kOk;
      }
      if (in.type == type.id) {
        out->i = in.i;
        return Fit::kOk;
      }
      if (type.id != TypeId::kDate && type.id != TypeId::kTime) {
        bool ns = IsNanosTimestamp(type.id);
        if (in.type == TypeId::kTimestamp || in.type == TypeId::kTimestampTz) {
          out->i = ns ? in.i * 1000 : in.i;
          return Fit::kOk;
        }
        if (in.type == TypeId::kDate) {  // midnight of that day
          out->i = in.i * 86400LL * (ns ? 1000000000LL : 1000000LL);
          return Fit::kOk;
        }
      }
      return mismatch();
    case TypeId::kString:
      if (in.type != TypeId::kString) return mismatch();
      out->s = in.s;
      return Fit::kOk;
    case TypeId::kUuid:
      if (in.type == TypeId::kUuid) out->s = in.s;
      else if (in.type == TypeId::kString) {
        FLOE_ASSIGN_OR_RETURN(*out, LiteralFromText(in.s, type));
      } else return mismatch();
      return Fit::kOk;
    case TypeId::kFixed:
    case TypeId::kBinary:
      if (in.type != TypeId::kBinary && in.type != TypeId::kString) return mismatch();
      out->s = in.s;
      if (type.id == TypeId::kFixed && static_cast<int32_t>(out->s.size()) != type.length) {
        return InvalidArgument("filter: column '{}' is {}, the value has {} bytes", col, type.ToString(),
                               out->s.size());
      }
      return Fit::kOk;
    default:
      return InvalidArgument("filter: column '{}' of type {} cannot be filtered", col, type.ToString());
  }
}

bool NamesEqual(std::string_view a, std::string_view b, bool cs) {
  if (cs) return a == b;
  return EqualsIgnoreCase(a, b);
}

Result<ExprPtr> BindPredicate(const Expr& e, const Schema& schema, bool cs) {
  // Resolve the dotted path through structs.
  const std::vector<NestedField>* fields = &schema.fields();
  std::vector<int> path;
  const NestedField* field = nullptr;
  std::string_view rest = e.column;
  // Try the whole name first at each level (names may contain dots).
  while (true) {
    int found = -1;
    size_t used = 0;
    for (size_t i = 0; i < fields->size(); ++i) {
      const auto& name = (*fields)[i].name;
      if (NamesEqual(name, rest, cs)) { found = static_cast<int>(i); used = rest.size(); break; }
      if (rest.size() > name.size() && rest[name.size()] == '.' && NamesEqual(name, rest.substr(0, name.size()), cs)) {
        if (found < 0 || name.size() > used) { found = static_cast<int>(i); used = name.size(); }
      }
    }
    if (found < 0) {
      std::string names;
      for (const auto& f : *fields) names += (names.empty() ? "" : ", ") + f.name;
      return NotFound("filter: column '{}' does not exist (columns: {})", e.column, names);
    }
    path.push_back(found);
    field = &(*fields)[found];
    if (used == rest.size()) break;
    rest = rest.substr(used + 1);
    if (field->type->id != TypeId::kStruct) {
      return InvalidArgument("filter: '{}' is not a struct, so '{}' cannot be resolved", field->name, e.column);
    }
    fields = &field->type->fields;
  }
  const Type& type = *field->type;
  if (type.is_nested()) {
    return InvalidArgument("filter: column '{}' is {}; only primitive columns can be filtered", e.column,
                           type.ToString());
  }
  if ((e.op == Op::kIsNan || e.op == Op::kNotNan) && type.id != TypeId::kFloat && type.id != TypeId::kDouble) {
    return InvalidArgument("filter: IS NAN needs a float or double column, '{}' is {}", e.column, type.ToString());
  }
  if ((e.op == Op::kStartsWith || e.op == Op::kNotStartsWith) && type.id != TypeId::kString) {
    return InvalidArgument("filter: LIKE needs a string column, '{}' is {}", e.column, type.ToString());
  }
  auto bound = std::make_shared<Expr>(e);
  bound->field_id = field->id;
  bound->field_type = field->type;
  bound->path = path;
  bound->literals.clear();
  // Coerce literals, folding out-of-range values (Iceberg binding rules).
  for (const auto& lit : e.literals) {
    Literal out;
    FLOE_ASSIGN_OR_RETURN(Fit fit, Coerce(lit, type, e.column, &out));
    if (fit == Fit::kOk) {
      bound->literals.push_back(std::move(out));
      continue;
    }
    bool above = fit == Fit::kAboveMax;
    auto not_null = std::make_shared<Expr>(*bound);
    not_null->op = Op::kNotNull;
    not_null->literals.clear();
    switch (e.op) {
      case Op::kLt:
      case Op::kLe: return above ? ExprPtr(not_null) : False();
      case Op::kGt:
      case Op::kGe: return above ? False() : ExprPtr(not_null);
      case Op::kEq: return False();
      case Op::kNe: return ExprPtr(not_null);
      case Op::kIn: continue;     // that value can never match
      case Op::kNotIn: continue;  // nor be excluded
      default: return InvalidArgument("filter: value out of range for column '{}'", e.column);
    }
  }
  if (e.op == Op::kIn && bound->literals.empty()) return False();
  if (e.op == Op::kNotIn && bound->literals.empty()) {
    auto nn = std::make_shared<Expr>(*bound);
    nn->op = Op::kNotNull;
    return ExprPtr(nn);
  }
  return ExprPtr(bound);
}

}  // namespace

Result<ExprPtr> Bind(const ExprPtr& e, const Schema& schema, bool case_sensitive) {
  switch (e->op) {
    case Op::kTrue:
    case Op::kFalse: return e;
    case Op::kAnd:
    case Op::kOr: {
      // Recursion per chain, not per term; the result is balanced.
      std::vector<ExprPtr> bound;
      for (const ExprPtr* t : internal::ChainTerms(*e)) {
        FLOE_ASSIGN_OR_RETURN(auto b, Bind(*t, schema, case_sensitive));
        bound.push_back(std::move(b));
      }
      return internal::Balanced(e->op, std::move(bound));
    }
    case Op::kNot: {
      // NOT NOT x is x in three-valued logic too, so only the parity matters.
      size_t nots = 0;
      const ExprPtr& inner = internal::SkipNots(e, &nots);
      FLOE_ASSIGN_OR_RETURN(auto a, Bind(inner, schema, case_sensitive));
      return nots % 2 ? Not(a) : a;
    }
    default: return BindPredicate(*e, schema, case_sensitive);
  }
}

}  // namespace floe::expr
