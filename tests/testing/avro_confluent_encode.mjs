#!/usr/bin/env node
// Encodes test messages the way Confluent's serializers do, with avsc (an
// Avro implementation independent of floe's): each value is the magic byte
// 0, the writer schema's id (4 bytes big-endian, the id the Schema Registry
// gave when the schema was registered) and the Avro binary datum. Each
// message goes to its own file (DIR/00000.bin, ...), so that `kcat -P -Z
// FILE...` sends each file as one message (a `null` line gives an empty file,
// which kcat does not send: tombstones are produced otherwise).
//
//   node avro_confluent_encode.mjs SHARED_DIR --registry URL [--user U --password P]
//        --subject S --out DIR
//        ( --schema FILE.avsc --rows FILE.jsonl
//        | --connect FILE.jsonl [--connect-schema FILE.json] )
//
// --rows: one value a line in JSON: unions as {"<branch>": v} (Avro's JSON
//   encoding) or null; longs as numbers or strings of digits; bytes and fixed
//   as hex strings; "NaN" / "Infinity" / "-Infinity" for floats; a line
//   `null` is a tombstone.
// --connect: Kafka Connect events as the JSON converter writes them, wrapped
//   {"schema":..., "payload":...} (or bare, with --connect-schema giving the
//   schema): each schema is turned into the Avro schema Confluent's
//   AvroConverter (AvroData.fromConnectSchema) makes of it (records named by
//   the Connect name, connect.name / connect.version / connect.parameters /
//   connect.type kept, optional fields as ["null", T] with default null,
//   Connect's Decimal / Date / Time / Timestamp with Avro's logical types),
//   and each payload into its datum (base64 bytes decoded).
//
// Prints the files written, one a line.
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

const argv = process.argv.slice(2)
const shared = argv[0]
const opt = (name) => {
  const i = argv.indexOf(`--${name}`)
  return i >= 0 ? argv[i + 1] : undefined
}
const { requirePkg } = await import(pathToFileURL(path.join(shared, 'interop', 'lib', 'modules.mjs')).href)
const avsc = requirePkg('avsc')

const BigLong = avsc.types.LongType.__with({
  fromBuffer: (buf) => buf.readBigInt64LE(),
  toBuffer: (n) => { const b = Buffer.alloc(8); b.writeBigInt64LE(BigInt(n)); return b },
  fromJSON: BigInt,
  toJSON: Number,
  isValid: (n) => typeof n === 'bigint',
  compare: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
})

const registry = opt('registry')
const subject = opt('subject')
const outDir = opt('out')
const auth = opt('user') !== undefined ? 'Basic ' + Buffer.from(`${opt('user')}:${opt('password') || ''}`).toString('base64') : undefined

async function register(schemaText) {
  const headers = { 'Content-Type': 'application/vnd.schemaregistry.v1+json' }
  if (auth) headers.Authorization = auth
  const r = await fetch(`${registry}/subjects/${encodeURIComponent(subject)}/versions`, {
    method: 'POST', headers, body: JSON.stringify({ schema: schemaText }),
  })
  const j = await r.json()
  if (r.status !== 200) throw new Error(`register: HTTP ${r.status}: ${JSON.stringify(j)}`)
  return j.id
}

// ------------------------------------------------------------ JSON -> avsc value

function fullName(s, ns) {
  const n = s.name
  if (n.includes('.')) return n
  const space = s.namespace !== undefined ? s.namespace : ns
  return space ? `${space}.${n}` : n
}

// The avsc value of `v` (the --rows JSON form) for schema `s`; `named` maps
// full names to their definitions (references).
function toAvsc(s, v, named, ns) {
  if (typeof s === 'string') {
    switch (s) {
      case 'null': return null
      case 'boolean': case 'string': return v
      case 'int': return v
      case 'long': return BigInt(v)
      case 'float': case 'double':
        if (v === 'NaN') return NaN
        if (v === 'Infinity') return Infinity
        if (v === '-Infinity') return -Infinity
        return v
      case 'bytes': return Buffer.from(v, 'hex')
      default: {
        const def = named.get(s) || named.get(ns ? `${ns}.${s}` : s)
        if (!def) throw new Error(`unknown type ${s}`)
        return toAvsc(def.schema, v, named, def.ns)
      }
    }
  }
  if (Array.isArray(s)) {
    if (v === null) return null
    const [branch] = Object.keys(v)
    const b = s.find((x) => branchName(x, ns) === branch)
    if (b === undefined) throw new Error(`no branch ${branch} in ${JSON.stringify(s)}`)
    return { [branch]: toAvsc(b, v[branch], named, ns) }
  }
  switch (s.type) {
    case 'record': {
      const name = fullName(s, ns)
      const space = name.includes('.') ? name.slice(0, name.lastIndexOf('.')) : ''
      named.set(name, { schema: s, ns: space })
      const out = {}
      for (const f of s.fields) out[f.name] = toAvsc(f.type, v[f.name] === undefined ? null : v[f.name], named, space)
      return out
    }
    case 'enum': named.set(fullName(s, ns), { schema: s, ns }); return v
    case 'fixed': named.set(fullName(s, ns), { schema: s, ns }); return Buffer.from(v, 'hex')
    case 'array': return v.map((x) => toAvsc(s.items, x, named, ns))
    case 'map': {
      const out = {}
      for (const [k, x] of Object.entries(v)) out[k] = toAvsc(s.values, x, named, ns)
      return out
    }
    default: return toAvsc(s.type, v, named, ns)
  }
}

// Every named type of schema `s`, by full name (a reference may come before
// a value of its definition is walked: a null `before`, a non-null `after`).
function namedTypes(s, ns = '', named = new Map()) {
  if (Array.isArray(s)) { for (const b of s) namedTypes(b, ns, named); return named }
  if (typeof s !== 'object' || s === null) return named
  if (['record', 'enum', 'fixed'].includes(s.type)) {
    const name = fullName(s, ns)
    const space = name.includes('.') ? name.slice(0, name.lastIndexOf('.')) : ''
    named.set(name, { schema: s, ns: space })
    for (const f of s.fields || []) namedTypes(f.type, space, named)
    return named
  }
  if (s.items) namedTypes(s.items, ns, named)
  if (s.values) namedTypes(s.values, ns, named)
  if (typeof s.type === 'object') namedTypes(s.type, ns, named)
  return named
}

function branchName(s, ns) {
  if (typeof s === 'string') return ['null', 'boolean', 'int', 'long', 'float', 'double', 'bytes', 'string'].includes(s) || s.includes('.') || !ns ? s : `${ns}.${s}`
  if (['record', 'enum', 'fixed'].includes(s.type)) return fullName(s, ns)
  if (s.type === 'array' || s.type === 'map') return s.type
  return typeof s.type === 'string' ? branchName(s.type, ns) : s.type
}

// ------------------------------------------------------ Connect -> Avro (AvroData)

const CONNECT_PRIMITIVE = { int8: 'int', int16: 'int', int32: 'int', int64: 'long', float32: 'float', float64: 'double', boolean: 'boolean', string: 'string', bytes: 'bytes' }
const LOGICAL = {
  'org.apache.kafka.connect.data.Date': 'date',
  'org.apache.kafka.connect.data.Time': 'time-millis',
  'org.apache.kafka.connect.data.Timestamp': 'timestamp-millis',
}

function connectToAvro(cs, defined) {
  let s
  if (cs.type === 'struct') {
    const name = cs.name || 'io.confluent.connect.avro.ConnectDefault'
    if (defined.has(name)) return cs.optional ? ['null', name] : name // a reference to the record defined before
    defined.add(name)
    const dot = name.lastIndexOf('.')
    s = { type: 'record', name: name.slice(dot + 1) }
    if (dot > 0) s.namespace = name.slice(0, dot)
    s.fields = cs.fields.map((f) => {
      const t = connectToAvro(f, defined)
      const field = { name: f.field, type: t }
      if (f.optional) field.default = null
      return field
    })
  } else if (cs.type === 'array') {
    s = { type: 'array', items: connectToAvro(cs.items, defined) }
  } else if (cs.type === 'map') {
    s = { type: 'map', values: connectToAvro(cs.values, defined) }
  } else {
    s = { type: CONNECT_PRIMITIVE[cs.type] }
    if (cs.type === 'int8' || cs.type === 'int16') s['connect.type'] = cs.type
    if (cs.name === 'org.apache.kafka.connect.data.Decimal') {
      s.scale = Number(cs.parameters.scale)
      s.precision = Number((cs.parameters || {})['connect.decimal.precision'] || 64)
    }
  }
  if (typeof s === 'object' && cs.type !== 'struct') {
    if (cs.version !== undefined) s['connect.version'] = cs.version
    if (cs.parameters) s['connect.parameters'] = cs.parameters
    if (cs.name) s['connect.name'] = cs.name
    if (cs.name === 'org.apache.kafka.connect.data.Decimal') s.logicalType = 'decimal'
    else if (LOGICAL[cs.name]) s.logicalType = LOGICAL[cs.name]
    if (Object.keys(s).length === 1 && typeof s.type === 'string' && !['array', 'map'].includes(s.type)) s = s.type
  } else if (cs.type === 'struct' && cs.name) {
    if (cs.version !== undefined) s['connect.version'] = cs.version
    s['connect.name'] = cs.name
  }
  return cs.optional ? ['null', s] : s
}

// The --rows JSON form of Connect payload `v` for Connect schema `cs` (the
// Avro schema made of it: optional -> union).
function connectValue(cs, v, avroOf) {
  if (v === null || v === undefined) return null
  let x
  switch (cs.type) {
    case 'struct': {
      x = {}
      for (const f of cs.fields) x[f.field] = connectValue(f, v[f.field], avroOf)
      break
    }
    case 'array': x = v.map((e) => connectValue(cs.items, e, avroOf)); break
    case 'map': x = Object.fromEntries(Object.entries(v).map(([k, e]) => [k, connectValue(cs.values, e, avroOf)])); break
    case 'bytes': x = Buffer.from(v, 'base64').toString('hex'); break
    default: x = v
  }
  if (!cs.optional) return x
  const branch = cs.type === 'struct' ? (cs.name || 'io.confluent.connect.avro.ConnectDefault') : cs.type === 'array' || cs.type === 'map' ? cs.type : CONNECT_PRIMITIVE[cs.type]
  return { [branch]: x }
}

// ------------------------------------------------------------------ main

fs.mkdirSync(outDir, { recursive: true })
const lines = (file) => fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '')
// The schema with each annotated primitive ({"type":"long","logicalType":...})
// as its bare type: avsc encodes the underlying types (its custom long type
// applies to bare "long" only); the registry gets the schema as it is.
function bare(s) {
  if (Array.isArray(s)) return s.map(bare)
  if (typeof s !== 'object' || s === null) return s
  if (typeof s.type === 'string' && ['null', 'boolean', 'int', 'long', 'float', 'double', 'bytes', 'string'].includes(s.type)) return s.type
  const out = { ...s }
  if (s.fields) out.fields = s.fields.map((f) => ({ ...f, type: bare(f.type) }))
  if (s.items) out.items = bare(s.items)
  if (s.values) out.values = bare(s.values)
  if (typeof s.type === 'object') out.type = bare(s.type)
  delete out.logicalType
  return out
}
const typeCache = new Map() // schema text -> {id, type}
async function writerOf(schemaText) {
  if (!typeCache.has(schemaText)) {
    const type = avsc.Type.forSchema(bare(JSON.parse(schemaText)), { registry: { long: BigLong }, wrapUnions: true })
    typeCache.set(schemaText, { id: await register(schemaText), type })
  }
  return typeCache.get(schemaText)
}
function frame(id, datum) {
  const h = Buffer.alloc(5)
  h.writeUInt32BE(id, 1)
  return Buffer.concat([h, datum])
}

const files = []
let n = 0
const emit = (buf) => {
  const f = path.join(outDir, String(n++).padStart(5, '0') + '.bin')
  fs.writeFileSync(f, buf)
  files.push(f)
}

if (opt('rows')) {
  const schemaText = JSON.stringify(JSON.parse(fs.readFileSync(opt('schema'), 'utf8')))
  const w = await writerOf(schemaText)
  for (const line of lines(opt('rows'))) {
    const v = JSON.parse(line)
    if (v === null) { emit(Buffer.alloc(0)); continue }
    emit(frame(w.id, w.type.toBuffer(toAvsc(JSON.parse(schemaText), v, namedTypes(JSON.parse(schemaText)), ''))))
  }
} else {
  const fixedSchema = opt('connect-schema') ? JSON.parse(fs.readFileSync(opt('connect-schema'), 'utf8')) : undefined
  for (const line of lines(opt('connect'))) {
    const event = JSON.parse(line)
    const wrapped = event !== null && typeof event === 'object' && 'payload' in event && 'schema' in event
    const cs = wrapped ? event.schema : fixedSchema
    const payload = wrapped ? event.payload : event
    if (payload === null) { emit(Buffer.alloc(0)); continue }
    const avroSchema = connectToAvro(cs, new Set())
    const schemaText = JSON.stringify(avroSchema)
    const w = await writerOf(schemaText)
    const value = connectValue(cs, payload)
    emit(frame(w.id, w.type.toBuffer(toAvsc(avroSchema, value, namedTypes(avroSchema), ''))))
  }
}
console.log(files.join('\n'))
