// The Parquet writer tests' canonical row printer and random batch filler
// (tests/parquet/writer_test_util.*), compiled into table_test as well so the
// data writer's interop test can print the rows it expects DuckDB to read.
#include "parquet/writer_test_util.cc"
