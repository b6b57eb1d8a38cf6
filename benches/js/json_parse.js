// Node's own bare JSON.parse of a heap snapshot, best of RUNS (the file is read before timing).
// Usage: node --max-old-space-size=8192 json_parse.js FILE [RUNS]; prints the best wall time in
// ms, then the CPU time (user + system) of that run in ms.
'use strict';
const fs = require('fs');
const text = fs.readFileSync(process.argv[2], 'utf8');
const runs = Number(process.argv[3] || 3);
let best = [Infinity, 0];
for (let i = 0; i < runs; i++) {
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  JSON.parse(text);
  const wall = Number(process.hrtime.bigint() - start) / 1e6;
  const used = process.cpuUsage(cpu);
  if (wall < best[0]) best = [wall, (used.user + used.system) / 1e3];
}
console.log(best[0].toFixed(1), best[1].toFixed(1));
