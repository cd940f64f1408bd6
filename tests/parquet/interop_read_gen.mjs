#!/usr/bin/env node
// Writes the Parquet files that the reader's interop test reads, with two
// independent writers:
//   DuckDB (every codec x data page V1/V2; all its types with nulls at every
//           level, decimals of each physical width, uuid, timestamptz, blobs,
//           maps, lists of structs, nested lists; several row groups)
//   parquet-wasm (arrow-rs: dictionary and plain, DELTA_* and BYTE_STREAM_SPLIT,
//           data page V1/V2, its codecs including the Hadoop-framed LZ4)
//
//   node interop_read_gen.mjs OUT_DIR
//
// The test then compares floe's rows with `parquet_rows.mjs --rows` (DuckDB).
import fs from 'node:fs'
import path from 'node:path'

const shared = process.env.FLOE_SHARED || '/work/shared'
const { importPkg } = await import(path.join(shared, 'interop', 'lib', 'modules.mjs'))

const out = process.argv[2]
if (!out) { console.error('usage: interop_read_gen.mjs OUT_DIR'); process.exit(2) }
fs.mkdirSync(out, { recursive: true })

// ------------------------------------------------------------------ DuckDB
const duck = await importPkg('@duckdb/node-api')
const inst = await duck.DuckDBInstance.create(':memory:', { autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' })
const con = await inst.connect()
await con.run(`CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')`)
await con.run(`CREATE TABLE t AS SELECT
  i::BIGINT AS id,
  CASE WHEN i % 7 = 0 THEN NULL ELSE i % 2 = 0 END AS b,
  CASE WHEN i % 5 = 0 THEN NULL ELSE (i % 256 - 128)::TINYINT END AS i8,
  (i * 7 % 65536 - 32768)::SMALLINT AS i16,
  CASE WHEN i % 3 = 0 THEN NULL ELSE (i * 2654435 % 4294967 - 2147483)::INTEGER END AS i32,
  (i * 1000000007 - 5000000000000)::BIGINT AS i64,
  (i % 200)::UTINYINT AS u8, (i * 3 % 60000)::USMALLINT AS u16, (i * 100003)::UINTEGER AS u32,
  CASE WHEN i % 11 = 0 THEN NULL WHEN i % 1000 = 1 THEN 'NaN'::FLOAT WHEN i % 1000 = 2 THEN '-inf'::FLOAT ELSE (i / 7.0)::FLOAT END AS f32,
  CASE WHEN i % 1000 = 3 THEN 'inf'::DOUBLE WHEN i % 1000 = 4 THEN -0.0::DOUBLE ELSE (i * 1.1 / 3)::DOUBLE END AS f64,
  ((i % 10000) / 100.0 - 50)::DECIMAL(4,2) AS d4,
  (i * 12345 / 1000.0 - 7000)::DECIMAL(9,3) AS d9,
  CASE WHEN i % 13 = 0 THEN NULL ELSE (i::DECIMAL(18,4) * 123456.7891 - 100000)::DECIMAL(18,4) END AS d18,
  (i::DECIMAL(38,10) * 12345678901234567.123 - 999999999999999)::DECIMAL(38,10) AS d38,
  DATE '1969-12-25' + (i % 1000)::INT AS dt,
  TIME '01:02:03.456789' + INTERVAL (i) SECOND AS tm,
  TIMESTAMP '1969-12-31 23:59:00' + INTERVAL (i * 1234567) MICROSECOND AS ts,
  CASE WHEN i % 4 = 1 THEN NULL ELSE TIMESTAMPTZ '2024-01-01 00:00:00+00' + INTERVAL (i) HOUR END AS tstz,
  (TIMESTAMP '2024-01-01' + INTERVAL (i) MILLISECOND)::TIMESTAMP_MS AS ts_ms,
  (TIMESTAMP '2024-01-01' + INTERVAL (i * 3) MICROSECOND)::TIMESTAMP_NS AS ts_ns,
  CASE WHEN i % 9 = 0 THEN NULL ELSE md5(i::VARCHAR)::UUID END AS u,
  CASE WHEN i % 4 = 0 THEN NULL ELSE 'str_' || (i % 300)::VARCHAR || repeat('é', i % 5) || repeat('x', i % 17) END AS s,
  CASE WHEN i % 6 = 0 THEN NULL ELSE ('blob' || i)::BLOB END AS bl,
  (['sad', 'ok', 'happy'])[i % 3 + 1]::mood AS en,
  CASE WHEN i % 8 = 0 THEN NULL ELSE [i, NULL, i + 1][1:(i % 4)] END AS li,
  CASE WHEN i % 10 = 0 THEN NULL WHEN i % 10 = 1 THEN [] ELSE ['a' || i, NULL] END AS ls,
  CASE WHEN i % 5 = 0 THEN NULL ELSE {'x': CASE WHEN i % 3 = 0 THEN NULL ELSE i END, 'y': 's' || i, 'z': [i, i * 2][1:(i % 3)]} END AS st,
  CASE WHEN i % 7 = 0 THEN NULL ELSE [{'a': i, 'b': CASE WHEN i % 2 = 0 THEN NULL ELSE 'q' || i END}, NULL, {'a': NULL, 'b': 'r'}][1:(i % 4)] END AS lst,
  CASE WHEN i % 6 = 0 THEN NULL ELSE MAP(['k' || i, 'j' || i][1:(i % 3)], [i, NULL][1:(i % 3)]) END AS m,
  CASE WHEN i % 9 = 0 THEN NULL ELSE [[i], [], NULL, [NULL, i]][1:(i % 5)] END AS ll,
  {'inner': CASE WHEN i % 11 = 0 THEN NULL ELSE {'v': CASE WHEN i % 4 = 0 THEN NULL ELSE i END, 'w': [i][1:(i % 2)]} END} AS deep,
  CASE WHEN i % 3 = 0 THEN NULL ELSE MAP([i], [{'p': [i, NULL]}]) END AS m2
FROM range(3000) r(i)`)

const codecs = ['uncompressed', 'snappy', 'gzip', 'zstd', 'brotli', 'lz4_raw']
for (const codec of codecs) {
  for (const v of ['V1', 'V2']) {
    const file = path.join(out, `duckdb_${codec}_${v}.parquet`)
    await con.run(`COPY t TO '${file}' (FORMAT parquet, COMPRESSION ${codec}, PARQUET_VERSION ${v}, ROW_GROUP_SIZE 2048)`)
  }
}
await con.run(`COPY t TO '${path.join(out, 'duckdb_field_ids.parquet')}' (FORMAT parquet, FIELD_IDS 'auto', ROW_GROUP_SIZE 100000)`)
await con.run(`COPY (SELECT * FROM t WHERE false) TO '${path.join(out, 'duckdb_empty.parquet')}' (FORMAT parquet)`)
await con.run(`COPY (SELECT NULL::INT AS a, NULL::VARCHAR AS b, NULL::INT[] AS c FROM range(3000)) TO '${path.join(out, 'duckdb_all_null.parquet')}' (FORMAT parquet)`)

// ------------------------------------------------------------------ parquet-wasm (arrow-rs)
const arrow = await importPkg('apache-arrow')
const pwMod = await importPkg('parquet-wasm', 'node/parquet_wasm.js')
const pw = pwMod.writeParquet ? pwMod : pwMod.default

const n = Number(process.env.FLOE_GEN_ARROW_ROWS || 3000)  // small values make fuzz seeds
const ids = BigInt64Array.from({ length: n }, (_, i) => BigInt(i) * 37n - 1000n)
const i32 = Array.from({ length: n }, (_, i) => (i % 5 === 0 ? null : (i * 7919) % 100000 - 50000))
const f32 = Float32Array.from({ length: n }, (_, i) => i / 3)
const f64 = Array.from({ length: n }, (_, i) => (i % 6 === 0 ? null : i * 1.5 - 7.25))
const str = Array.from({ length: n }, (_, i) => (i % 4 === 0 ? null : `name_${i % 97}_${'z'.repeat(i % 9)}`))
const bools = Array.from({ length: n }, (_, i) => (i % 7 === 0 ? null : i % 3 === 0))
const dates = Array.from({ length: n }, (_, i) => (i % 8 === 0 ? null : new Date(Date.UTC(2000, 0, 1) + i * 86400000)))
const lists = Array.from({ length: n }, (_, i) => (i % 10 === 0 ? null : Array.from({ length: i % 4 }, (_, k) => (k === 1 ? null : i + k))))
const structs = Array.from({ length: n }, (_, i) => (i % 9 === 0 ? null : { a: i % 2 ? null : i, b: `s${i % 13}` }))

const listType = new arrow.List(new arrow.Field('item', new arrow.Int32(), true))
const structType = new arrow.Struct([new arrow.Field('a', new arrow.Int32(), true), new arrow.Field('b', new arrow.Utf8(), true)])
const fieldId = (id) => new Map([['PARQUET:field_id', String(id)]])
const schema = new arrow.Schema([
  new arrow.Field('id', new arrow.Int64(), false, fieldId(1)),
  new arrow.Field('i32', new arrow.Int32(), true, fieldId(2)),
  new arrow.Field('f32', new arrow.Float32(), false, fieldId(3)),
  new arrow.Field('f64', new arrow.Float64(), true, fieldId(4)),
  new arrow.Field('s', new arrow.Utf8(), true, fieldId(5)),
  new arrow.Field('b', new arrow.Bool(), true, fieldId(6)),
  new arrow.Field('d', new arrow.DateDay(), true, fieldId(7)),
  new arrow.Field('l', listType, true, fieldId(8)),
  new arrow.Field('st', structType, true, fieldId(9)),
])
const vec = (type, values) => arrow.vectorFromArray(values, type)
const table = new arrow.Table(schema, {
  id: vec(new arrow.Int64(), Array.from(ids)),
  i32: vec(new arrow.Int32(), i32),
  f32: vec(new arrow.Float32(), Array.from(f32)),
  f64: vec(new arrow.Float64(), f64),
  s: vec(new arrow.Utf8(), str),
  b: vec(new arrow.Bool(), bools),
  d: vec(new arrow.DateDay(), dates),
  l: vec(listType, lists),
  st: vec(structType, structs),
})
const ipc = arrow.tableToIPC(table, 'stream')

function write(name, configure) {
  let b = new pw.WriterPropertiesBuilder().setMaxRowGroupSize(1000).setDataPageSizeLimit(4096)
  b = configure(b)
  const bytes = pw.writeParquet(pw.Table.fromIPCStream(ipc), b.build())
  fs.writeFileSync(path.join(out, `arrow_${name}.parquet`), bytes)
}
const C = pw.Compression
const E = pw.Encoding
const codecsRs = { uncompressed: C.UNCOMPRESSED, snappy: C.SNAPPY, gzip: C.GZIP, brotli: C.BROTLI, zstd: C.ZSTD, lz4raw: C.LZ4_RAW, lz4: C.LZ4 }
for (const [cname, c] of Object.entries(codecsRs)) {
  for (const [vname, v] of [['v1', pw.WriterVersion.V1], ['v2', pw.WriterVersion.V2]]) {
    write(`${cname}_${vname}_dict`, (b) => b.setCompression(c).setWriterVersion(v).setDictionaryEnabled(true))
  }
}
for (const [vname, v] of [['v1', pw.WriterVersion.V1], ['v2', pw.WriterVersion.V2]]) {
  write(`plain_${vname}`, (b) => b.setWriterVersion(v).setDictionaryEnabled(false).setCompression(C.SNAPPY))
  write(`delta_${vname}`, (b) => b.setWriterVersion(v).setDictionaryEnabled(false)
    .setColumnEncoding('id', E.DELTA_BINARY_PACKED).setColumnEncoding('i32', E.DELTA_BINARY_PACKED)
    .setColumnEncoding('d', E.DELTA_BINARY_PACKED).setColumnEncoding('s', E.DELTA_BYTE_ARRAY)
    .setColumnEncoding('st.b', E.DELTA_LENGTH_BYTE_ARRAY).setColumnEncoding('l.list.item', E.DELTA_BINARY_PACKED)
    .setColumnEncoding('f32', E.BYTE_STREAM_SPLIT).setColumnEncoding('f64', E.BYTE_STREAM_SPLIT)
    .setColumnEncoding('b', E.RLE))
}
console.log('ok')
