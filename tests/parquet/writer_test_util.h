/// \file
/// Test helpers for the Parquet writer: a canonical JSON printer for ColumnVector values
/// (the forms of shared/interop/lib/canonical.mjs: exact longs, decimals with all scale
/// digits, ISO dates/times, hex binary, NaN/Infinity as strings, maps as keys/values),
/// the Iceberg type JSON the node helper takes, and a random batch generator with
/// extremes. Test-local: the ingest helper owns src/floe/types/json_*.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "floe/types/column_vector.h"
#include "floe/types/type.h"

namespace floe::parquet::testing {

/// `{"type":"struct","fields":[...]}` etc., as interop_write_read.mjs takes them.
std::string IcebergTypeJson(const Type& type);
std::string SchemaTypeJson(const Schema& schema);

/// Canonical JSON of value i of `col`. With `mask_wide_decimals`, decimals of
/// precision > 15 print as "~" (what the helper prints for hyparquet).
std::string CanonicalValue(const ColumnVector& col, int64_t i, bool mask_wide_decimals = false);
/// One canonical JSON object per row, keys are the Iceberg field names (or, with
/// `parquet_names`, the sanitized Parquet names of the top-level columns).
std::vector<std::string> CanonicalRows(const Batch& batch, bool mask_wide_decimals = false,
                                       bool parquet_names = false);

/// JavaScript's Number.prototype.toString for a double; float32 as canonical.mjs prints it.
std::string JsDouble(double v);
std::string JsFloat(float v);

/// Fills batches with random values, nulls (where allowed) and extremes.
class RandomFiller {
 public:
  explicit RandomFiller(uint64_t seed, double null_rate = 0.15) : rng_(seed), null_rate_(null_rate) {}
  /// Appends `n` rows to `batch`.
  void Fill(Batch* batch, int64_t n);
  /// Appends one value of field `f` to `col` (null allowed when !f.required).
  void AppendValue(ColumnVector* col, const NestedField& f, int depth);
  /// Long strings: make every `every`-th string value `big_size` bytes long.
  void SetBigStrings(int every, size_t big_size) { big_every_ = every, big_size_ = big_size; }

 private:
  bool Chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  void AppendPrimitive(ColumnVector* col, const Type& t);
  std::mt19937_64 rng_;
  double null_rate_;
  int big_every_ = 0;
  size_t big_size_ = 0;
  int64_t string_count_ = 0;
};

}  // namespace floe::parquet::testing
