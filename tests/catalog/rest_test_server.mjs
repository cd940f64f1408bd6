// A small in-memory Iceberg REST catalog for floe's REST client tests
// (../shared/specs/rest-catalog-open-api.yaml): config handshake, namespaces
// with properties, tables (create, load, list with paging, exists, drop,
// rename, register) and commits that check the requirements and apply the
// updates, writing each metadata version as a file (the table files are
// local). An OAuth2 token endpoint hands out expiring tokens. Faults are
// switched on through POST /__control (not a spec route: tests send it
// straight to this server, not through the validating proxy):
//   {"commitFault": "409"|"500"|"502"|"504"|"drop"|"slow", "faultCount": N}
//       the next N commits: 409 refuses; the others apply the commit first,
//       then answer 5xx, drop the connection, or answer after "slowMs"
//   {"busy": N}            the next N GET/HEAD requests answer 503
//   {"slowMs": MS}         how long "slow" waits (default 3000)
//   {"tokenTtl": S}        lifetime of new tokens in seconds
//   {"config": {...}}      replaces the GET /v1/config answer's maps
// GET /__state returns counters and the requests seen (method, path, query,
// headers).
//   usage: node rest_test_server.mjs --warehouse DIR [--port 0]
//          [--credential ID:SECRET] [--token T] [--prefix P]
// Prints "listening PORT" when ready.
import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import crypto from 'node:crypto'

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => {
  if (a.startsWith('--')) acc.push([a.slice(2), all[i + 1] && !all[i + 1].startsWith('--') ? all[i + 1] : 'true'])
  return acc
}, []))
const warehouse = path.resolve(args.warehouse || fs.mkdtempSync('/tmp/rest-wh-'))
const prefix = args.prefix ?? 'floe'
const state = {
  namespaces: new Map(), // key (levels joined by 0x1F) -> {levels, props}
  tables: new Map(),     // key ns + 0x00 + name -> {ns, name, location, metadata}
  tokens: new Map(),     // token -> expiry (ms)
  tokensIssued: 0, unauthorized: 0, commits: 0, busy: 0,
  commitFault: null, faultCount: 0, slowMs: 3000, slowPending: 0, tokenTtl: 3600,
  requests: [],
  tokenScopes: [],
  config: {
    defaults: { 'clients': '2' },
    overrides: { prefix },
  },
}
const endpoints = [
  'GET /v1/{prefix}/namespaces', 'POST /v1/{prefix}/namespaces',
  'GET /v1/{prefix}/namespaces/{namespace}', 'HEAD /v1/{prefix}/namespaces/{namespace}',
  'DELETE /v1/{prefix}/namespaces/{namespace}', 'POST /v1/{prefix}/namespaces/{namespace}/properties',
  'GET /v1/{prefix}/namespaces/{namespace}/tables', 'POST /v1/{prefix}/namespaces/{namespace}/tables',
  'GET /v1/{prefix}/namespaces/{namespace}/tables/{table}', 'HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}',
  'POST /v1/{prefix}/namespaces/{namespace}/tables/{table}', 'DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}',
  'POST /v1/{prefix}/namespaces/{namespace}/register', 'POST /v1/{prefix}/tables/rename',
]
const authRequired = Boolean(args.credential || args.token)
if (args.token) state.tokens.set(args.token, Infinity)

// Snapshot ids are longs beyond 2^53: JSON.parse would round them. Integers
// of 16+ digits outside strings are carried as marked strings and written
// back as bare integers (PITFALLS 47).
const BIG = '\u0001big:'
function parseJson(text) {
  let out = '', inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (inString) {
      out += c
      if (c === '\\') { out += text[++i] } else if (c === '"') inString = false
      continue
    }
    if (c === '"') { inString = true; out += c; continue }
    if (c === '-' || (c >= '0' && c <= '9')) {
      let j = i + 1
      while (j < text.length && /[0-9.eE+-]/.test(text[j])) j++
      const num = text.slice(i, j)
      out += /^-?\d{16,}$/.test(num) ? JSON.stringify(BIG + num) : num
      i = j - 1
      continue
    }
    out += c
  }
  return JSON.parse(out)
}
const big = (v) => BigInt(typeof v === 'string' ? v.replace(BIG, '') : v)
const toJson = (v, indent) => JSON.stringify(v, null, indent).replace(/"\\u0001big:(-?\d+)"/g, '$1')

class HttpError extends Error {
  constructor(code, type, message) { super(message); this.code = code; this.type = type }
}
const fail = (code, type, message) => { throw new HttpError(code, type, message) }
const nsKey = (levels) => levels.join('\x1f')
const tableKey = (levels, name) => nsKey(levels) + '\x00' + name

function send(res, code, body) {
  if (body === undefined) { res.writeHead(code); return res.end() }
  const text = toJson(body)
  res.writeHead(code, { 'Content-Type': 'application/json' })
  res.end(text)
}

// ---- metadata

function freshIds(schema) {
  // Java's order: each struct's fields first, then their children.
  let next = 1
  const ids = new Map()
  const assignType = (t) => {
    if (typeof t !== 'object') return t
    if (t.type === 'struct') {
      const fields = t.fields.map((f) => { const id = next++; ids.set(f.id, id); return { ...f, id } })
      return { ...t, fields: fields.map((f) => ({ ...f, type: assignType(f.type) })) }
    }
    if (t.type === 'list') { const id = next++; ids.set(t['element-id'], id); return { ...t, 'element-id': id, element: assignType(t.element) } }
    if (t.type === 'map') {
      const k = next++, v = next++
      ids.set(t['key-id'], k); ids.set(t['value-id'], v)
      return { ...t, 'key-id': k, 'value-id': v, key: assignType(t.key), value: assignType(t.value) }
    }
    return t
  }
  const out = assignType({ ...schema, type: 'struct' })
  out['schema-id'] = 0
  if (schema['identifier-field-ids']) out['identifier-field-ids'] = schema['identifier-field-ids'].map((i) => ids.get(i))
  return { schema: out, ids, last: next - 1 }
}

function newMetadata(req, location) {
  const { schema, ids, last } = freshIds(req.schema)
  let pid = 999
  const specFields = (req['partition-spec']?.fields ?? []).map((f) => ({ ...f, 'source-id': ids.get(f['source-id']), 'field-id': ++pid }))
  const orderFields = (req['write-order']?.fields ?? []).map((f) => ({ ...f, 'source-id': ids.get(f['source-id']) }))
  return {
    'format-version': 2, 'table-uuid': crypto.randomUUID(), location,
    'last-sequence-number': 0, 'last-updated-ms': Date.now(), 'last-column-id': last,
    'current-schema-id': 0, schemas: [schema],
    'default-spec-id': 0, 'partition-specs': [{ 'spec-id': 0, fields: specFields }], 'last-partition-id': pid,
    'default-sort-order-id': orderFields.length ? 1 : 0,
    'sort-orders': orderFields.length ? [{ 'order-id': 0, fields: [] }, { 'order-id': 1, fields: orderFields }] : [{ 'order-id': 0, fields: [] }],
    properties: { ...(req.properties ?? {}) },
    refs: {}, snapshots: [], 'snapshot-log': [], 'metadata-log': [], statistics: [], 'partition-statistics': [],
  }
}

const localPath = (loc) => loc.replace(/^file:\/\/(?=\/)/, '').replace(/^file:(?=\/)/, '')

function writeMetadata(t) {
  const version = (t.version ?? -1) + 1
  const dir = path.join(localPath(t.metadata.location), 'metadata')
  fs.mkdirSync(dir, { recursive: true })
  const file = path.join(dir, `${String(version).padStart(5, '0')}-${crypto.randomUUID()}.metadata.json`)
  if (t.metadataLocation) {
    t.metadata['metadata-log'] = [...t.metadata['metadata-log'], { 'timestamp-ms': t.metadata['last-updated-ms'], 'metadata-file': t.metadataLocation }]
  }
  fs.writeFileSync(file, toJson(t.metadata, 2))
  t.version = version
  t.metadataLocation = 'file:' + file
}

function checkRequirement(m, r) {
  const conflict = (msg) => fail(409, 'CommitFailedException', `Requirement failed: ${msg}`)
  switch (r.type) {
    case 'assert-create': return conflict('table already exists')
    case 'assert-table-uuid': if (r.uuid !== m['table-uuid']) conflict(`UUID does not match: expected ${r.uuid} != ${m['table-uuid']}`); return
    case 'assert-ref-snapshot-id': {
      const ref = m.refs[r.ref]
      if (r['snapshot-id'] === null || r['snapshot-id'] === undefined) { if (ref) conflict(`ref ${r.ref} already exists`); return }
      if (!ref) conflict(`ref ${r.ref} is missing, expected ${r['snapshot-id']}`)
      if (big(ref['snapshot-id']) !== big(r['snapshot-id'])) conflict(`ref ${r.ref} has changed: expected id ${r['snapshot-id']} != ${ref['snapshot-id']}`)
      return
    }
    case 'assert-last-assigned-field-id': if (r['last-assigned-field-id'] !== m['last-column-id']) conflict('last assigned field id changed'); return
    case 'assert-current-schema-id': if (r['current-schema-id'] !== m['current-schema-id']) conflict('current schema changed'); return
    case 'assert-last-assigned-partition-id': if (r['last-assigned-partition-id'] !== m['last-partition-id']) conflict('last assigned partition id changed'); return
    case 'assert-default-spec-id': if (r['default-spec-id'] !== m['default-spec-id']) conflict('default spec changed'); return
    case 'assert-default-sort-order-id': if (r['default-sort-order-id'] !== m['default-sort-order-id']) conflict('default sort order changed'); return
    default: fail(400, 'BadRequestException', `unknown requirement type ${r.type}`)
  }
}

function applyUpdate(m, u, added) {
  const bad = (msg) => fail(400, 'BadRequestException', `${u.action}: ${msg}`)
  switch (u.action) {
    case 'upgrade-format-version': m['format-version'] = u['format-version']; return
    case 'add-schema': {
      if (m.schemas.some((s) => s['schema-id'] === u.schema['schema-id'])) bad(`schema ${u.schema['schema-id']} exists`)
      m.schemas.push(u.schema); added.schema = u.schema['schema-id']
      const maxId = (t) => typeof t !== 'object' ? 0 : t.type === 'struct' ? Math.max(0, ...t.fields.map((f) => Math.max(f.id, maxId(f.type))))
        : t.type === 'list' ? Math.max(t['element-id'], maxId(t.element)) : t.type === 'map' ? Math.max(t['key-id'], t['value-id'], maxId(t.key), maxId(t.value)) : 0
      m['last-column-id'] = Math.max(m['last-column-id'], maxId(u.schema)); return
    }
    case 'set-current-schema': m['current-schema-id'] = u['schema-id'] === -1 ? added.schema : u['schema-id']; return
    case 'add-spec': {
      m['partition-specs'].push(u.spec); added.spec = u.spec['spec-id']
      m['last-partition-id'] = Math.max(m['last-partition-id'], ...u.spec.fields.map((f) => f['field-id'])); return
    }
    case 'set-default-spec': m['default-spec-id'] = u['spec-id'] === -1 ? added.spec : u['spec-id']; return
    case 'add-sort-order': m['sort-orders'].push(u['sort-order']); added.order = u['sort-order']['order-id']; return
    case 'set-default-sort-order': m['default-sort-order-id'] = u['sort-order-id'] === -1 ? added.order : u['sort-order-id']; return
    case 'add-snapshot': {
      const s = u.snapshot
      if (m.snapshots.some((x) => big(x['snapshot-id']) === big(s['snapshot-id']))) bad(`snapshot ${s['snapshot-id']} exists`)
      if (s['sequence-number'] <= m['last-sequence-number']) bad(`sequence number ${s['sequence-number']} is not above ${m['last-sequence-number']}`)
      m.snapshots.push(s); m['last-sequence-number'] = s['sequence-number']
      m['last-updated-ms'] = Math.max(m['last-updated-ms'], s['timestamp-ms']); return
    }
    case 'set-snapshot-ref': {
      const { action, 'ref-name': name, ...ref } = u
      if (!m.snapshots.some((x) => big(x['snapshot-id']) === big(ref['snapshot-id']))) bad(`unknown snapshot ${ref['snapshot-id']}`)
      m.refs[name] = ref
      if (name === 'main') {
        m['current-snapshot-id'] = ref['snapshot-id']
        const snap = m.snapshots.find((x) => big(x['snapshot-id']) === big(ref['snapshot-id']))
        m['snapshot-log'].push({ 'timestamp-ms': snap['timestamp-ms'], 'snapshot-id': ref['snapshot-id'] })
      }
      return
    }
    case 'remove-snapshot-ref': if (u['ref-name'] === 'main') bad('cannot remove main'); delete m.refs[u['ref-name']]; return
    case 'remove-snapshots': {
      const ids = new Set(u['snapshot-ids'].map((i) => big(i)))
      for (const [n, r] of Object.entries(m.refs)) if (ids.has(big(r['snapshot-id']))) bad(`snapshot ${r['snapshot-id']} is referenced by ${n}`)
      m.snapshots = m.snapshots.filter((s) => !ids.has(big(s['snapshot-id'])))
      m['snapshot-log'] = m['snapshot-log'].filter((e) => !ids.has(big(e['snapshot-id']))); return
    }
    case 'set-location': m.location = u.location; return
    case 'set-properties': Object.assign(m.properties, u.updates); return
    case 'remove-properties': for (const k of u.removals) delete m.properties[k]; return
    default: bad('unsupported update action')
  }
}

// ---- auth

function checkAuth(req) {
  if (!authRequired) return
  const h = req.headers.authorization ?? ''
  const token = h.startsWith('Bearer ') ? h.slice(7) : null
  const expiry = token && state.tokens.get(token)
  if (!expiry || expiry < Date.now()) {
    state.unauthorized++
    fail(401, 'NotAuthorizedException', token ? 'the token is unknown or expired' : 'no bearer token')
  }
}

function issueToken(body, res) {
  const form = new URLSearchParams(body)
  state.tokenScopes.push(form.get('scope'))
  const [id, secret] = (args.credential ?? ':').split(':')
  if (form.get('grant_type') !== 'client_credentials' || form.get('client_id') !== id || form.get('client_secret') !== secret) {
    res.writeHead(401, { 'Content-Type': 'application/json' })
    return res.end(JSON.stringify({ error: 'invalid_client', error_description: 'unknown client or wrong secret' }))
  }
  const token = `tok-${++state.tokensIssued}-${crypto.randomBytes(6).toString('hex')}`
  state.tokens.set(token, Date.now() + state.tokenTtl * 1000)
  send(res, 200, { access_token: token, token_type: 'bearer', expires_in: state.tokenTtl, issued_token_type: 'urn:ietf:params:oauth:token-type:access_token' })
}

// ---- routes

function page(items, query) {
  if (!query.has('pageToken')) return { items, next: null }
  const start = Number(query.get('pageToken') || 0)
  const size = Number(query.get('pageSize') || items.length || 1)
  const end = start + size
  return { items: items.slice(start, end), next: end < items.length ? String(end) : null }
}

function requireNamespace(levels) {
  const ns = state.namespaces.get(nsKey(levels))
  if (!ns) fail(404, 'NoSuchNamespaceException', `Namespace does not exist: ${levels.join('.')}`)
  return ns
}
function requireTable(levels, name) {
  const t = state.tables.get(tableKey(levels, name))
  if (!t) fail(404, 'NoSuchTableException', `Table does not exist: ${[...levels, name].join('.')}`)
  return t
}
const loadResult = (t) => ({ 'metadata-location': t.metadataLocation, metadata: t.metadata, config: { 'floe.test.table-config': 'yes' } })

async function commit(req, res, t, body) {
  if (state.commitFault === '409' && state.faultCount > 0) {
    state.faultCount--
    fail(409, 'CommitFailedException', 'injected conflict')
  }
  for (const r of body.requirements) checkRequirement(t.metadata, r)
  const next = structuredClone(t.metadata)
  const added = {}
  for (const u of body.updates) applyUpdate(next, u, added)
  next['last-updated-ms'] = Math.max(Date.now(), next['last-updated-ms'])
  t.metadata = next
  writeMetadata(t)
  state.commits++
  const fault = state.faultCount > 0 ? state.commitFault : null
  if (fault) state.faultCount--
  if (fault === 'drop') { req.socket.destroy(); return }
  if (fault === '500' || fault === '502' || fault === '504') {
    return send(res, Number(fault), { error: { message: `injected ${fault} after applying the commit`, type: 'ServerError', code: Number(fault) } })
  }
  if (fault === 'slow') {
    state.slowPending++
    await new Promise((r) => setTimeout(r, state.slowMs))
    state.slowPending--
  }
  send(res, 200, { 'metadata-location': t.metadataLocation, metadata: t.metadata })
}

async function route(req, res, url, body) {
  const q = url.searchParams
  if (url.pathname === '/__state') {
    return send(res, 200, { tokensIssued: state.tokensIssued, unauthorized: state.unauthorized, commits: state.commits, requests: state.requests, tokenScopes: state.tokenScopes, slowPending: state.slowPending })
  }
  if (url.pathname === '/__control' && req.method === 'POST') {
    const c = JSON.parse(body || '{}')
    for (const k of ['commitFault', 'faultCount', 'busy', 'slowMs', 'tokenTtl']) if (k in c) state[k] = c[k]
    if (c.config) state.config = c.config
    return send(res, 200, { ok: true })
  }
  state.requests.push({ method: req.method, path: url.pathname, query: url.search, headers: req.headers })
  if (url.pathname === '/v1/oauth/tokens' && req.method === 'POST') return issueToken(body, res)
  checkAuth(req)
  if ((req.method === 'GET' || req.method === 'HEAD') && state.busy > 0) {
    state.busy--
    fail(503, 'ServiceUnavailableException', 'injected: busy, try again')
  }
  if (url.pathname === '/v1/config' && req.method === 'GET') {
    return send(res, 200, { defaults: state.config.defaults ?? {}, overrides: state.config.overrides ?? {}, endpoints: state.config.endpoints ?? endpoints })
  }
  const m = url.pathname.match(/^\/v1\/([^/]+)\/(.*)$/)
  if (!m || m[1] !== prefix) fail(404, 'NoSuchPathException', `no route ${req.method} ${url.pathname} (prefix must be ${prefix})`)
  const parts = m[2].split('/').map(decodeURIComponent)
  const json = () => { try { return parseJson(body) } catch { fail(400, 'BadRequestException', 'malformed JSON body') } }
  const R = `${req.method} ${parts[0]}/${parts.length}`
  // namespaces
  if (R === 'GET namespaces/1') {
    const parent = q.has('parent') ? q.get('parent').split('\x1f') : []
    if (parent.length) requireNamespace(parent)
    const children = [...state.namespaces.values()].filter((n) => n.levels.length === parent.length + 1 && parent.every((l, i) => n.levels[i] === l))
      .map((n) => n.levels).sort((a, b) => nsKey(a) < nsKey(b) ? -1 : 1)
    const p = page(children, q)
    return send(res, 200, { namespaces: p.items, 'next-page-token': p.next })
  }
  if (R === 'POST namespaces/1') {
    const b = json()
    if (state.namespaces.has(nsKey(b.namespace))) fail(409, 'AlreadyExistsException', `Namespace already exists: ${b.namespace.join('.')}`)
    state.namespaces.set(nsKey(b.namespace), { levels: b.namespace, props: { ...(b.properties ?? {}) } })
    return send(res, 200, { namespace: b.namespace, properties: b.properties ?? {} })
  }
  if (parts[0] === 'namespaces' && parts.length >= 2) {
    const levels = parts[1].split('\x1f')
    if (parts.length === 2) {
      const ns = requireNamespace(levels)
      if (req.method === 'HEAD') return send(res, 204)
      if (req.method === 'GET') return send(res, 200, { namespace: levels, properties: ns.props })
      if (req.method === 'DELETE') {
        const busy = [...state.tables.values()].some((t) => nsKey(t.ns) === nsKey(levels)) ||
          [...state.namespaces.values()].some((n) => n.levels.length > levels.length && levels.every((l, i) => n.levels[i] === l))
        if (busy) fail(409, 'NamespaceNotEmptyException', `Namespace is not empty: ${levels.join('.')}`)
        state.namespaces.delete(nsKey(levels))
        return send(res, 204)
      }
    }
    if (parts.length === 3 && parts[2] === 'properties' && req.method === 'POST') {
      const ns = requireNamespace(levels)
      const b = json()
      const removals = b.removals ?? [], updates = b.updates ?? {}
      const both = removals.filter((k) => k in updates)
      if (both.length) fail(422, 'UnprocessableEntityException', `set and removed: ${both.join(', ')}`)
      const removed = removals.filter((k) => k in ns.props), missing = removals.filter((k) => !(k in ns.props))
      for (const k of removed) delete ns.props[k]
      Object.assign(ns.props, updates)
      return send(res, 200, { updated: Object.keys(updates), removed, missing })
    }
    if (parts.length === 3 && parts[2] === 'tables') {
      requireNamespace(levels)
      if (req.method === 'GET') {
        const ids = [...state.tables.values()].filter((t) => nsKey(t.ns) === nsKey(levels)).map((t) => ({ namespace: t.ns, name: t.name }))
          .sort((a, b) => a.name < b.name ? -1 : 1)
        const p = page(ids, q)
        return send(res, 200, { identifiers: p.items, 'next-page-token': p.next })
      }
      if (req.method === 'POST') {
        const b = json()
        if (state.tables.has(tableKey(levels, b.name))) fail(409, 'AlreadyExistsException', `Table already exists: ${[...levels, b.name].join('.')}`)
        const location = b.location ?? 'file:' + path.join(warehouse, ...levels, b.name)
        const t = { ns: levels, name: b.name, metadata: newMetadata(b, location) }
        writeMetadata(t)
        state.tables.set(tableKey(levels, b.name), t)
        return send(res, 200, loadResult(t))
      }
    }
    if (parts.length === 3 && parts[2] === 'register' && req.method === 'POST') {
      requireNamespace(levels)
      const b = json()
      if (state.tables.has(tableKey(levels, b.name))) fail(409, 'AlreadyExistsException', `Table already exists: ${[...levels, b.name].join('.')}`)
      let metadata
      try { metadata = parseJson(fs.readFileSync(localPath(b['metadata-location']), 'utf8')) } catch (e) { fail(400, 'BadRequestException', `cannot read ${b['metadata-location']}: ${e.message}`) }
      const t = { ns: levels, name: b.name, metadata, metadataLocation: b['metadata-location'], version: 1000 }
      state.tables.set(tableKey(levels, b.name), t)
      return send(res, 200, loadResult(t))
    }
    if (parts.length === 4 && parts[2] === 'tables') {
      const t = requireTable(levels, parts[3])
      if (req.method === 'HEAD') return send(res, 204)
      if (req.method === 'GET') return send(res, 200, loadResult(t))
      if (req.method === 'DELETE') { state.tables.delete(tableKey(levels, parts[3])); return send(res, 204) }
      if (req.method === 'POST') return commit(req, res, t, json())
    }
  }
  if (R === 'POST tables/2' && parts[1] === 'rename') {
    const b = json()
    const t = requireTable(b.source.namespace, b.source.name)
    requireNamespace(b.destination.namespace)
    if (state.tables.has(tableKey(b.destination.namespace, b.destination.name))) fail(409, 'AlreadyExistsException', 'Table already exists: ' + [...b.destination.namespace, b.destination.name].join('.'))
    state.tables.delete(tableKey(b.source.namespace, b.source.name))
    t.ns = b.destination.namespace; t.name = b.destination.name
    state.tables.set(tableKey(t.ns, t.name), t)
    return send(res, 204)
  }
  fail(404, 'NoSuchPathException', `no route ${req.method} ${url.pathname}`)
}

const server = http.createServer(async (req, res) => {
  const chunks = []
  for await (const c of req) chunks.push(c)
  const body = Buffer.concat(chunks).toString()
  const url = new URL(req.url, 'http://x')
  try {
    await route(req, res, url, body)
  } catch (e) {
    if (!(e instanceof HttpError)) { console.error(e); e = new HttpError(500, 'ServerError', String(e.message)) }
    if (req.method === 'HEAD') { res.writeHead(e.code); return res.end() }
    send(res, e.code, { error: { message: e.message, type: e.type, code: e.code } })
  }
})
server.listen(Number(args.port ?? 0), '127.0.0.1', () => {
  console.log(`listening ${server.address().port}`)
})
