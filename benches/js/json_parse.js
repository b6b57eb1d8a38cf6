// Node's own bare JSON.parse of a heap snapshot, best of RUNS (the file is read before timing).
// Usage: node --max-old-space-size=8192 json_parse.js FILE [RUNS]; prints the best time in ms.
'use strict';
const fs = require('fs');
const text = fs.readFileSync(process.argv[2], 'utf8');
const runs = Number(process.argv[3] || 3);
let best = Infinity;
for (let i = 0; i < runs; i++) {
  const start = process.hrtime.bigint();
  JSON.parse(text);
  best = Math.min(best, Number(process.hrtime.bigint() - start) / 1e6);
}
console.log(best.toFixed(1));
