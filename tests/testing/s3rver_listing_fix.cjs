// A fix for s3rver's delimited listings, loaded by the test fixture before the
// server starts (tests/testing/s3_server.cc). s3rver's filesystem store does not
// walk into folders below a common prefix, so `prefix=db/&delimiter=/` misses
// `db/t/` when db/t holds only folders (a hadoop table: t/metadata/, t/data/),
// and with max-keys it drops entries and ends a page on a common prefix it
// cannot continue from. Here a delimited listing lists every key below the
// prefix (s3rver's own undelimited listing) and rolls them up into common
// prefixes, as S3 does, in one page (no pagination of delimited listings on the
// test server; undelimited listings keep s3rver's pagination).
// usage: node --openssl-legacy-provider s3rver_listing_fix.cjs --server S3_SERVER.cjs <its arguments>
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
function nodeModules() { // the search of shared/interop/s3_server.cjs
  const c = [];
  if (process.env.ICEBERG_INTEROP_NODE_MODULES) c.push(process.env.ICEBERG_INTEROP_NODE_MODULES);
  if (process.env.ICEBERG_INTEROP_HOME) c.push(path.join(process.env.ICEBERG_INTEROP_HOME, 'node_modules'));
  if (process.env.XDG_CACHE_HOME) c.push(path.join(process.env.XDG_CACHE_HOME, 'iceberg-interop', 'node_modules'));
  c.push(path.join(os.homedir(), '.cache', 'iceberg-interop', 'node_modules'));
  for (const d of c) if (fs.existsSync(path.join(d, '@20minutes', 's3rver', 'package.json'))) return d;
  throw new Error('@20minutes/s3rver not found: run shared/interop/install.sh first');
}
const Store = require(path.join(nodeModules(), '@20minutes/s3rver/lib/stores/filesystem'));
const listObjects = Store.prototype.listObjects;
Store.prototype.listObjects = async function (bucket, options) {
  if (!options.delimiter) return listObjects.call(this, bucket, options);
  const all = await listObjects.call(this, bucket, { ...options, delimiter: undefined, maxKeys: Infinity });
  const prefix = options.prefix || '';
  const objects = [];
  const prefixes = new Set();
  for (const o of all.objects) {
    const i = o.key.slice(prefix.length).indexOf(options.delimiter);
    if (i === -1) objects.push(o);
    else prefixes.add(o.key.slice(0, prefix.length + i + options.delimiter.length));
  }
  return { objects, commonPrefixes: [...prefixes].sort(), isTruncated: false };
};
const i = process.argv.indexOf('--server');
if (i < 0) throw new Error('usage: s3rver_listing_fix.cjs --server S3_SERVER.cjs ...');
require(path.resolve(process.argv[i + 1]));
