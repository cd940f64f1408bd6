#!/usr/bin/env node
// A small Confluent Schema Registry for the tests of the avro-confluent
// formats (node's own http module, no package):
//
//   node schema_registry.mjs [--user U --password P] [--port 0]
//
// prints "schema registry on http://127.0.0.1:PORT" once it listens. With
// --user, every request needs HTTP basic auth with those credentials (401
// otherwise, as the registry's basic-auth realm answers). Routes (the
// registry's REST API, the subset the tests use):
//
//   POST /subjects/{subject}/versions  {"schema": "...", "schemaType"?: "AVRO"}
//        -> {"id": N}; the same schema text (and type) again gets the same id
//   GET  /schemas/ids/{id}             -> {"schema": "..."} (+ "schemaType"
//        when it is not AVRO); 404 {"error_code": 40403, ...} when unknown
//   GET  /subjects                     -> ["subject", ...]
//   GET  /requests                     -> {"GET /schemas/ids/1": 2, ...}: how
//        often each route was asked (the tests check the client's cache)
import http from 'node:http'

const args = process.argv.slice(2)
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? args[i + 1] : dflt
}
const user = opt('user')
const password = opt('password', '')
const port = Number(opt('port', '0'))

const schemas = [] // index id-1: {schema, schemaType}
const subjects = new Map() // subject -> [ids]
const requests = {}

function send(res, status, body) {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'Content-Type': 'application/vnd.schemaregistry.v1+json', 'Content-Length': Buffer.byteLength(text) })
  res.end(text)
}

function authorized(req) {
  if (user === undefined) return true
  const h = req.headers.authorization || ''
  if (!h.startsWith('Basic ')) return false
  return Buffer.from(h.slice(6), 'base64').toString('utf8') === `${user}:${password}`
}

const server = http.createServer((req, res) => {
  let body = ''
  req.setEncoding('utf8')
  req.on('data', (c) => { body += c })
  req.on('end', () => {
    const url = new URL(req.url, 'http://x')
    const route = `${req.method} ${url.pathname}`
    if (url.pathname !== '/requests') requests[route] = (requests[route] || 0) + 1
    if (!authorized(req)) {
      res.setHeader('WWW-Authenticate', 'Basic realm="SchemaRegistry"')
      return send(res, 401, { error_code: 401, message: 'Unauthorized' })
    }
    let m
    if (req.method === 'GET' && url.pathname === '/requests') return send(res, 200, requests)
    if (req.method === 'GET' && url.pathname === '/subjects') return send(res, 200, [...subjects.keys()])
    if (req.method === 'GET' && (m = url.pathname.match(/^\/schemas\/ids\/(\d+)$/))) {
      const s = schemas[Number(m[1]) - 1]
      if (!s) return send(res, 404, { error_code: 40403, message: `Schema ${m[1]} not found` })
      const out = { schema: s.schema }
      if (s.schemaType !== 'AVRO') out.schemaType = s.schemaType
      return send(res, 200, out)
    }
    if (req.method === 'POST' && (m = url.pathname.match(/^\/subjects\/([^/]+)\/versions$/))) {
      let j
      try { j = JSON.parse(body) } catch { return send(res, 422, { error_code: 42201, message: 'Invalid JSON' }) }
      if (typeof j.schema !== 'string') return send(res, 422, { error_code: 42201, message: 'No schema' })
      const schemaType = j.schemaType || 'AVRO'
      if (schemaType === 'AVRO') {
        try { JSON.parse(j.schema) } catch { return send(res, 422, { error_code: 42201, message: 'Invalid Avro schema' }) }
      }
      let id = schemas.findIndex((s) => s.schema === j.schema && s.schemaType === schemaType) + 1
      if (id === 0) {
        schemas.push({ schema: j.schema, schemaType })
        id = schemas.length
      }
      const subject = decodeURIComponent(m[1])
      if (!subjects.has(subject)) subjects.set(subject, [])
      if (!subjects.get(subject).includes(id)) subjects.get(subject).push(id)
      return send(res, 200, { id })
    }
    return send(res, 404, { error_code: 404, message: `no route ${route}` })
  })
})

server.listen(port, '127.0.0.1', () => {
  console.log(`schema registry on http://127.0.0.1:${server.address().port}`)
})
process.on('SIGTERM', () => server.close(() => process.exit(0)))
