#!/usr/bin/env node
// Runs shared/interop/parquet_rows.mjs --rows on many files in one Node
// process (DuckDB starts once per file instead of Node + DuckDB), printing
//   ### <file>            then the file's rows as parquet_rows.mjs prints them, or
//   ### <file> ERROR <message>
//
//   node interop_read_rows.mjs FILE...
// The oracle script itself is used unchanged: it is imported once per file
// (a distinct query string makes Node evaluate it again) with its argv set,
// and its stdout captured.
import path from 'node:path'
import { pathToFileURL } from 'node:url'

const shared = process.env.FLOE_SHARED || '/work/shared'
const script = pathToFileURL(path.join(shared, 'interop', 'parquet_rows.mjs')).href
const files = process.argv.slice(2)
const realWrite = process.stdout.write.bind(process.stdout)
const chunks = []
for (const [i, file] of files.entries()) {
  let captured = ''
  process.stdout.write = (s) => { captured += s; return true }
  const saved = process.argv
  process.argv = [saved[0], 'parquet_rows.mjs', file, '--rows']
  let error
  try {
    await import(`${script}?run=${i}`)
  } catch (e) {
    error = String(e?.message ?? e).replace(/\n/g, ' ')
  }
  process.argv = saved
  process.stdout.write = realWrite
  chunks.push(error ? `### ${file} ERROR ${error}\n` : `### ${file}\n${captured}`)
}
realWrite(chunks.join(''))
