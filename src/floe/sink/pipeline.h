/// \file
/// The write pipeline's threads (ARCHITECTURE "Threads"): a decoder stage
/// (decode + project) on its own thread feeds batches through a bounded queue
/// (back-pressure, at most `queue_depth` batches in flight) to the writer
/// stage (Parquet encoding and compression) on the caller's thread, so that
/// parsing and encoding overlap on two cores. With one worker both stages run
/// on the caller's thread. The first error on either side stops both: the
/// decoder is told to stop, the queue is drained, and the error is returned
/// (the caller then aborts the data writer). The Parquet writer adds its own
/// `write-parallelism` - 1 threads that compress pages (parquet::WriterOptions::
/// parallelism), so with two workers decoding, encoding and compression overlap.
#pragma once

#include <cstdint>
#include <functional>

#include "floe/sink/projection.h"
#include "floe/types/column_vector.h"
#include "floe/util/status.h"

namespace floe::sink {

/// How the stages run.
struct PipelineOptions {
  /// Threads: 1 runs decode and write on the caller's thread; 2 or more put
  /// decoding on its own thread (`write-parallelism`).
  int workers = 2;
  /// Batches queued between the stages at most.
  int queue_depth = 4;
};

/// What a pipeline run did.
struct PipelineStats {
  int64_t rows = 0;
  int64_t batches = 0;
};

/// Fills a batch of the input schema; false at the end of the input.
using DecodeFn = std::function<Result<bool>(Batch*)>;
/// Consumes one projected batch (the table schema).
using WriteFn = std::function<Status(const Batch&)>;

/// Runs decode -> project -> write until the input ends or an error.
Result<PipelineStats> RunPipeline(const DecodeFn& decode, SchemaPtr input_schema, const Projector& projector,
                                  const WriteFn& write, const PipelineOptions& options = {});

}  // namespace floe::sink
