// Deterministic CDC change stream for the CDC benchmark and the bounded-memory
// test: N changes over K keys, 30% inserts, 60% updates, 10% deletes, one JSON
// object a line: {"id", "region", "name", "amount", "op", "seq"}. Inserts and
// updates pick any key (the sink runs with upsert: the last change wins), so
// the mix stays exact whatever the key count.
//   node bench/cdc_data.mjs --changes N --keys K [--out FILE]   (stdout without --out)
import fs from 'node:fs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const changes = Number(opt('--changes', '10000000'));
const keys = Number(opt('--keys', '1000000'));
const out = opt('--out', null);

let state = 0x9e3779b9 >>> 0;
const rnd = () => {  // xorshift32
  state ^= state << 13; state >>>= 0;
  state ^= state >>> 17;
  state ^= state << 5; state >>>= 0;
  return state;
};
const regions = ['eu', 'us', 'ap', 'sa', 'af', 'me', 'oc', 'an'];
const fd = out ? fs.openSync(out, 'w') : 1;
let buf = '';
for (let i = 1; i <= changes; i++) {
  const r = rnd() % 100;
  const op = r < 30 ? 'INSERT' : r < 90 ? 'UPDATE_AFTER' : 'DELETE';
  const id = rnd() % keys;
  const v = rnd();
  buf += `{"id":${id},"region":"${regions[v & 7]}","name":"name-${v % 100000}","amount":${(v % 1000000) / 100},"op":"${op}","seq":${i}}\n`;
  if (buf.length > (1 << 20)) {
    fs.writeSync(fd, buf);
    buf = '';
  }
}
fs.writeSync(fd, buf);
if (out) fs.closeSync(fd);
