#!/usr/bin/env node
// Prints the records of an Avro container file through avsc, one
// {"record":...} line each, in the same form as shared/interop/avro_dump.mjs.
//
//   node avsc_records.mjs SHARED_DIR FILE.avro
//
// Why this exists next to avro_dump.mjs: avro_dump's snappy codec passes the
// output buffer where hysnappy expects the output *length* and ignores the
// array hysnappy returns, so every snappy block comes out as zeros. This
// script decodes snappy blocks correctly and also checks the big-endian CRC32
// that the Avro spec appends to each snappy block (node:zlib crc32).
import zlib from 'node:zlib'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

const [shared, file] = process.argv.slice(2)
if (!shared || !file) {
  console.error('usage: node avsc_records.mjs SHARED_DIR FILE.avro')
  process.exit(2)
}
const lib = (name) => pathToFileURL(path.join(shared, 'interop', 'lib', name)).href
const { requirePkg, importPkg } = await import(lib('modules.mjs'))
const { genericJson } = await import(lib('canonical.mjs'))
const avsc = requirePkg('avsc')
const { decompressSnappy, decompressZstd } = await importPkg('hyparquet-compressors')

const BigLong = avsc.types.LongType.__with({
  fromBuffer: (buf) => buf.readBigInt64LE(),
  toBuffer: (n) => { const b = Buffer.alloc(8); b.writeBigInt64LE(BigInt(n)); return b },
  fromJSON: BigInt,
  toJSON: Number,
  isValid: (n) => typeof n === 'bigint',
  compare: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
})

function varintLength(buf) {
  let len = 0; let shift = 0; let i = 0
  for (;;) { const b = buf[i++]; len += (b & 0x7f) * 2 ** shift; if (!(b & 0x80)) return len; shift += 7 }
}

const codecs = {
  null: (buf, cb) => cb(null, buf),
  deflate: (buf, cb) => zlib.inflateRaw(buf, cb),
  snappy(buf, cb) {
    try {
      const data = buf.subarray(0, buf.length - 4)
      const out = Buffer.from(decompressSnappy(data, varintLength(data)))
      const want = buf.readUInt32BE(buf.length - 4)
      if (zlib.crc32(out) !== want) throw new Error(`snappy block CRC32 mismatch: ${zlib.crc32(out)} != ${want}`)
      cb(null, out)
    } catch (e) { cb(e) }
  },
  zstandard(buf, cb) {
    try { cb(null, Buffer.from(decompressZstd(buf))) } catch (e) { cb(e) }
  },
}

const decoder = avsc.createFileDecoder(file, {
  codecs,
  parseHook: (schema) => avsc.Type.forSchema(schema, { registry: { long: BigLong }, wrapUnions: false }),
})
decoder.on('data', (rec) => process.stdout.write(genericJson({ record: rec }) + '\n'))
decoder.on('error', (e) => { console.error(`avsc_records: ${file}: ${e.message}`); process.exit(1) })
