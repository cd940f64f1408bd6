#!/usr/bin/env node
// Reads the Parquet files floe's writer tests produced with three independent readers
// and prints their rows in the canonical JSON forms of shared/interop/lib/canonical.mjs.
//
//   node interop_write_read.mjs MANIFEST.json
//
// MANIFEST: [{"path": "...", "type": <Iceberg struct type as JSON>, "readers": ["duckdb",
// "hyparquet", "parquet-wasm"], "meta": true}]. Types are {"type":"struct","fields":
// [{"name","type"}]}, {"type":"list","element"}, {"type":"map","key","value"} or
// primitive names ("decimal(9,2)", "fixed[5]", "timestamptz_ns").
// Output, line based (rows are canonical JSON, one per line, in file order):
//   #ROWS <reader> <path>   then the rows, then  #END
//   #ERROR <reader> <path> <message>
//   #META <path> <JSON: {"schema":[...], "chunks":[...], "kv":[...]}> (DuckDB's parquet_schema,
//                           parquet_metadata and parquet_kv_metadata, values as text)
//   #PAGEINDEX <path> <JSON: [{"rg","col","ci":{null_pages,min_hex,max_hex,boundary_order,
//                           null_counts}|null,"oi":[{offset,size,first_row}]}]>  (hyparquet's
//                           footer and Thrift decoder; manifest "page_index": true)
//   #BLOOM <path> <JSON: [{"col","value","excludes":[bool per row group]}]>  (DuckDB's
//                           parquet_bloom_probe; manifest "bloom_probes": [{"col","value"}],
//                           value a SQL literal)
// hyparquet returns decimals as doubles: decimal values with precision > 15 print as "~".
import fs from 'node:fs'
import path from 'node:path'

const shared = process.env.FLOE_SHARED || path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../../shared')
const { importPkg } = await import(path.join(shared, 'interop/lib/modules.mjs'))
const { canonicalJson, exactParsers } = await import(path.join(shared, 'interop/lib/canonical.mjs'))

const manifest = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'))
const out = []
const emit = (s) => out.push(s)

const typeName = (t) => (typeof t === 'string' ? t : t.type)
const decimalPrecision = (t) => {
  const m = /^decimal\((\d+),\s*(\d+)\)$/.exec(typeName(t))
  return m ? Number(m[1]) : 0
}

// Replaces wide decimals by "~" (hyparquet decodes decimals into doubles).
function maskWideDecimals(v, t) {
  if (v === null || v === undefined) return v
  const n = typeName(t)
  if (n === 'struct') {
    const o = {}
    for (const f of t.fields) {
      const key = f.name in v ? f.name : Object.keys(v).find(k => k === sanitize(f.name)) ?? f.name
      o[f.name] = maskWideDecimals(v[key], f.type)
    }
    return o
  }
  if (n === 'list') return Array.from(v).map(e => maskWideDecimals(e, t.element))
  if (n === 'map') return mapEntries(v, t).map(({ key, value }) => ({ key: maskWideDecimals(key, t.key), value: maskWideDecimals(value, t.value) }))
  if (decimalPrecision(t) > 15) return '~'
  return v
}

function sanitize(name) {
  let o = ''
  for (let i = 0; i < name.length; i++) {
    const ch = name[i]
    if (/[A-Za-z_]/.test(ch) || (i > 0 && /[0-9]/.test(ch))) o += ch
    else if (i === 0 && /[0-9]/.test(ch)) o += '_' + ch
    else o += '_x' + ch.charCodeAt(0).toString(16).toUpperCase()
  }
  return o
}

// Map value of any reader -> [{key, value}], restoring non-string keys of object maps.
function mapEntries(v, t) {
  if (v instanceof Map) return [...v].map(([key, value]) => ({ key, value }))
  if (Array.isArray(v)) return v
  const kt = typeName(t.key)
  return Object.entries(v).map(([k, value]) => ({
    key: kt === 'long' ? BigInt(k) : kt === 'int' ? Number(k) : k, value,
  }))
}

function rowJson(obj, type) {
  // The top-level struct: keys are Iceberg names; readers return Parquet (sanitized) names.
  return canonicalJson(obj, type)
}

// ---- DuckDB ----
async function duckdbRead(files) {
  const duck = await importPkg('@duckdb/node-api')
  const instance = await duck.DuckDBInstance.create(':memory:', { autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' })
  const con = await instance.connect()
  const toJs = (v) => {
    if (v === null || v === undefined) return null
    if (typeof v !== 'object') return v
    if (v instanceof duck.DuckDBDecimalValue) return v.value
    if (v instanceof duck.DuckDBDateValue) return v.days
    if (v instanceof duck.DuckDBTimestampTZValue || v instanceof duck.DuckDBTimestampValue) return v.micros
    if (v instanceof duck.DuckDBTimestampNanosecondsValue) return v.nanos
    if (v instanceof duck.DuckDBTimeValue) return v.micros
    if (v instanceof duck.DuckDBBlobValue) return Uint8Array.from(v.bytes)
    if (v instanceof duck.DuckDBUUIDValue) return v.toString()
    if (v instanceof duck.DuckDBListValue || v instanceof duck.DuckDBArrayValue) return v.items.map(toJs)
    if (v instanceof duck.DuckDBStructValue) {
      const o = {}
      for (const [k, x] of Object.entries(v.entries)) o[k] = toJs(x)
      return o
    }
    if (v instanceof duck.DuckDBMapValue) return v.entries.map(e => ({ key: toJs(e.key), value: toJs(e.value) }))
    return String(v)
  }
  const text = (v) => (v === null || v === undefined ? null : typeof v === 'object' ? String(v) : v)
  for (const f of files) {
    const lit = `'${path.resolve(f.path).replaceAll("'", "''")}'`
    if (f.readers.includes('duckdb')) {
      try {
        const r = await con.runAndReadAll(`select * from read_parquet(${lit}, binary_as_string = false, hive_partitioning = false)`)
        const names = r.columnNames()
        emit(`#ROWS duckdb ${f.path}`)
        for (const row of r.getRows()) {
          const o = {}
          names.forEach((n, i) => { o[n] = toJs(row[i]) })
          emit(rowJson(o, f.type))
        }
        emit('#END')
      } catch (e) {
        emit(`#ERROR duckdb ${f.path} ${String(e.message).replaceAll('\n', ' ')}`)
      }
    }
    if (f.bloom_probes) {
      try {
        const res = []
        for (const p of f.bloom_probes) {
          const r = await con.runAndReadAll(`select row_group_id, bloom_filter_excludes from parquet_bloom_probe(${lit}, '${p.col}', ${p.value}) order by row_group_id`)
          res.push({ col: p.col, value: p.value, excludes: r.getRows().map(x => x[1]) })
        }
        emit(`#BLOOM ${f.path} ${JSON.stringify(res)}`)
      } catch (e) {
        emit(`#ERROR bloom ${f.path} ${String(e.message).replaceAll('\n', ' ')}`)
      }
    }
    if (f.meta) {
      try {
        const meta = {}
        for (const [key, sql] of [
          ['schema', `select * exclude (file_name) from parquet_schema(${lit})`],
          ['chunks', `select * exclude (file_name) from parquet_metadata(${lit}) order by row_group_id, column_id`],
          ['kv', `select decode(key) as key, decode(value) as value from parquet_kv_metadata(${lit})`],
          ['file', `select * exclude (file_name) from parquet_file_metadata(${lit})`],
        ]) {
          const r = await con.runAndReadAll(sql)
          const names = r.columnNames()
          meta[key] = r.getRows().map(row => Object.fromEntries(names.map((n, i) => [n, text(row[i])])))
        }
        emit(`#META ${f.path} ${JSON.stringify(meta, (k, v) => (typeof v === 'bigint' ? v.toString() : v))}`)
      } catch (e) {
        emit(`#ERROR meta ${f.path} ${String(e.message).replaceAll('\n', ' ')}`)
      }
    }
  }
}

// ---- hyparquet ----
async function hyparquetRead(files) {
  const hp = await importPkg('hyparquet')
  const { compressors } = await importPkg('hyparquet-compressors')
  for (const f of files) {
    if (!f.readers.includes('hyparquet')) continue
    try {
      const buf = fs.readFileSync(f.path)
      const file = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength)
      const rows = await hp.parquetReadObjects({ file, compressors, parsers: exactParsers, utf8: false })
      emit(`#ROWS hyparquet ${f.path}`)
      for (const r of rows) emit(rowJson(maskWideDecimals(r, f.type), f.type))
      emit('#END')
    } catch (e) {
      emit(`#ERROR hyparquet ${f.path} ${String(e.message).replaceAll('\n', ' ')}`)
    }
  }
}

// ---- page indexes through hyparquet's footer and Thrift decoder ----
async function pageIndexRead(files) {
  const hp = await importPkg('hyparquet')
  const { deserializeTCompactProtocol } = await importPkg('hyparquet', 'src/thrift.js')
  const hex = (b) => Buffer.from(b).toString('hex')
  for (const f of files) {
    if (!f.page_index) continue
    try {
      const buf = fs.readFileSync(f.path)
      const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength)
      const meta = hp.parquetMetadata(ab)
      const view = new DataView(ab)
      const res = []
      meta.row_groups.forEach((rg, g) => {
        for (const cc of rg.columns) {
          const e = { rg: g, col: cc.meta_data.path_in_schema.join('.'), ci: null, oi: null }
          if (cc.column_index_offset !== undefined) {
            const t = deserializeTCompactProtocol({ view, offset: Number(cc.column_index_offset) })
            e.ci = { null_pages: t.field_1, min_hex: t.field_2.map(hex), max_hex: t.field_3.map(hex),
              boundary_order: t.field_4, null_counts: (t.field_5 || []).map(Number) }
          }
          if (cc.offset_index_offset !== undefined) {
            const t = deserializeTCompactProtocol({ view, offset: Number(cc.offset_index_offset) })
            e.oi = t.field_1.map(l => ({ offset: Number(l.field_1), size: l.field_2, first_row: Number(l.field_3) }))
          }
          e.data_page_offset = Number(cc.meta_data.data_page_offset)
          e.dictionary_page_offset = cc.meta_data.dictionary_page_offset === undefined ? null : Number(cc.meta_data.dictionary_page_offset)
          e.total_compressed_size = Number(cc.meta_data.total_compressed_size)
          res.push(e)
        }
      })
      emit(`#PAGEINDEX ${f.path} ${JSON.stringify(res)}`)
    } catch (e) {
      emit(`#ERROR pageindex ${f.path} ${String(e.message ?? e).replaceAll('\n', ' ')}`)
    }
  }
}

// ---- parquet-wasm (arrow-rs) ----
async function wasmRead(files) {
  const pw = await importPkg('parquet-wasm', 'node/parquet_wasm.js')
  const arrow = await importPkg('apache-arrow')
  const T = arrow.Type
  const dec = new TextDecoder()
  const valueAt = (data, i) => {
    const j = data.offset + i
    if (data.nullCount !== 0 && data.nullBitmap && data.nullBitmap.length > 0 &&
        ((data.nullBitmap[j >> 3] >> (j & 7)) & 1) === 0) return null
    const t = data.type
    switch (t.typeId) {
      case T.Null: return null
      case T.Bool: return ((data.values[j >> 3] >> (j & 7)) & 1) === 1
      case T.Int: case T.Float: case T.Date: case T.Time: case T.Timestamp:
        if (t.typeId === T.Float && t.precision === 0) throw new Error('float16')
        if (t.typeId === T.Date && t.unit !== 0) return Number(data.values[j]) / 86400000
        return data.values[j]
      case T.Decimal: {
        const words = t.bitWidth / 32
        let v = 0n
        for (let w = words - 1; w >= 0; w--) v = (v << 32n) | BigInt(data.values[j * words + w])
        const bits = BigInt(t.bitWidth)
        if (v >= (1n << (bits - 1n))) v -= (1n << bits)
        return v
      }
      case T.Utf8: case T.LargeUtf8: {
        const b = data.values.subarray(Number(data.valueOffsets[j]), Number(data.valueOffsets[j + 1]))
        return dec.decode(b)
      }
      case T.Binary: case T.LargeBinary:
        return data.values.subarray(Number(data.valueOffsets[j]), Number(data.valueOffsets[j + 1]))
      case T.FixedSizeBinary: return data.values.subarray(j * t.byteWidth, (j + 1) * t.byteWidth)
      case T.Struct: {
        const o = {}
        t.children.forEach((c, k) => { o[c.name] = valueAt(data.children[k], j) })
        return o
      }
      case T.List: case T.LargeList: {
        const b = Number(data.valueOffsets[j]); const e = Number(data.valueOffsets[j + 1])
        const a = []
        for (let k = b; k < e; k++) a.push(valueAt(data.children[0], k))
        return a
      }
      case T.Map: {
        const b = Number(data.valueOffsets[j]); const e = Number(data.valueOffsets[j + 1])
        const entries = data.children[0]
        const a = []
        for (let k = b; k < e; k++) {
          a.push({ key: valueAt(entries.children[0], k), value: valueAt(entries.children[1], k) })
        }
        return a
      }
      default: throw new Error(`arrow type ${t} not handled`)
    }
  }
  for (const f of files) {
    if (!f.readers.includes('parquet-wasm')) continue
    try {
      const wt = pw.readParquet(new Uint8Array(fs.readFileSync(f.path)))
      const table = arrow.tableFromIPC(wt.intoIPCStream())
      emit(`#ROWS parquet-wasm ${f.path}`)
      const names = table.schema.fields.map(x => x.name)
      for (const batch of table.batches) {
        for (let i = 0; i < batch.numRows; i++) {
          const o = {}
          names.forEach((n, k) => { o[n] = valueAt(batch.data.children[k], i) })
          emit(rowJson(o, f.type))
        }
      }
      emit('#END')
    } catch (e) {
      emit(`#ERROR parquet-wasm ${f.path} ${String(e.message ?? e).replaceAll('\n', ' ')}`)
    }
  }
}

await duckdbRead(manifest)
await hyparquetRead(manifest)
await wasmRead(manifest)
await pageIndexRead(manifest)
process.stdout.write(out.join('\n') + '\n')
