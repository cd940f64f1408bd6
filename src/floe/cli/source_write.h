/// \file
/// `floe write --config` with a `source:` block: rows from a source other
/// than --input (PostgreSQL: pgsrc/pg_source.h), run until SIGINT / SIGTERM,
/// one JSON line per commit on stdout.
#pragma once

#include "floe/catalog/catalog.h"
#include "floe/sink/change_sink.h"
#include "floe/sink/write_config.h"
#include "floe/util/status.h"

namespace floe::cli {

/// `config.source` is not empty. Usage errors (a bad block, a refused input) exit 2.
Status RunSourceWrite(const sink::WriteConfig& config, catalog::Catalog* catalog, sink::ChangeSinkOptions sink_options,
                      bool progress, const std::string& origin);

}  // namespace floe::cli
