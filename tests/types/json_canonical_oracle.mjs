// Test oracle for floe's canonical JSON printer: reads JSON lines
// {"t": "<iceberg type>", "v": <value in a lossless text form>} and prints
// canonicalJson(value, type) from shared/interop/lib/canonical.mjs, one line each.
// Value forms: long/time/timestamp*/decimal as decimal strings (BigInt),
// float/double as strings for Number(), uuid/fixed/binary as hex.
import { readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import path from 'node:path'

const shared = process.env.FLOE_SHARED || path.resolve(process.argv[2] || '../shared')
const { canonicalJson } = await import(pathToFileURL(path.join(shared, 'interop/lib/canonical.mjs')).href)

const out = []
for (const line of readFileSync(0, 'utf8').split('\n')) {
  if (!line) continue
  const { t, v } = JSON.parse(line)
  let value = v
  if (v !== null) {
    if (t === 'long' || t === 'time' || /^timestamp/.test(t) || /^decimal/.test(t)) value = BigInt(v)
    else if (t === 'float' || t === 'double') value = Number(v)
    else if (t === 'uuid' || t === 'binary' || /^fixed/.test(t)) value = Uint8Array.from(Buffer.from(v, 'hex'))
  }
  out.push(canonicalJson(value, t))
}
process.stdout.write(out.join('\n') + '\n')
