// Plain s3rver without the conditional writes of shared/interop/s3_server.cjs:
// If-None-Match and If-Match are ignored, as on a store that does not support
// them. Tests start it to check that floe refuses such a store for the hadoop
// catalog. Same arguments and ready line as s3_server.cjs.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
function nodeModules() {
  const c = [];
  if (process.env.ICEBERG_INTEROP_NODE_MODULES) c.push(process.env.ICEBERG_INTEROP_NODE_MODULES);
  if (process.env.ICEBERG_INTEROP_HOME) c.push(path.join(process.env.ICEBERG_INTEROP_HOME, 'node_modules'));
  if (process.env.XDG_CACHE_HOME) c.push(path.join(process.env.XDG_CACHE_HOME, 'iceberg-interop', 'node_modules'));
  c.push(path.join(os.homedir(), '.cache', 'iceberg-interop', 'node_modules'));
  for (const d of c) if (fs.existsSync(path.join(d, '@20minutes', 's3rver', 'package.json'))) return d;
  throw new Error('@20minutes/s3rver not found: run shared/interop/install.sh first');
}
const base = path.join(nodeModules(), '@20minutes/s3rver/lib');
const S3rver = require(path.join(base, 's3rver'));
const AWSAccount = require(path.join(base, 'models/account'));
const arg = (n, d) => { const i = process.argv.indexOf('--' + n); return i > 0 ? process.argv[i + 1] : d; };
if (arg('key')) AWSAccount.DUMMY_ACCOUNT.createKeyPair(arg('key'), arg('secret'));
const server = new S3rver({
  address: '127.0.0.1', port: Number(arg('port', 0)), directory: arg('dir'), silent: true,
  configureBuckets: [{ name: arg('bucket', 'warehouse'), configs: [] }],
});
server.run().then(({ address, port }) => console.log(`S3 test server on http://${address}:${port} bucket=${arg('bucket', 'warehouse')}`));
for (const s of ['SIGTERM', 'SIGINT']) process.on(s, () => server.close().then(() => process.exit(0)));
