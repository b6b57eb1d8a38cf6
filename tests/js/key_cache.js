// A lookup cache keyed by a fresh request object per call: every lookup of the same city and
// day builds a new `{city, day}`, which a Map compares by identity, so `service.cache` (a
// property of the global object) grows with keys equal by value (10 cities × 3 days: 30
// distinct). Usage: node key_cache.js OUT_DIR ROUNDS PER_ROUND [flags…]
//   fixed   keys are strings `${city}|${day}`: the cache stops at 30 entries;
//   unique  every key is distinct by value (its day counts up), in one city;
//   plain   snapshots without numeric values (small integers are then no nodes);
//   stdin   no snapshots of its own: a round per line read from stdin, "round N" printed after
//           each, for `memcity record --inspect` to take them (OUT_DIR is not used).
// Otherwise a snapshot is written after each round (with numeric values) and its path printed.
'use strict';
const path = require('path');
const v8 = require('v8');

const CITIES = ['Linz', 'Graz', 'Wien', 'Salzburg', 'Innsbruck', 'Brno', 'Kosice', 'Krakow', 'Bratislava', 'Praha'];
const [out, rounds, perRound] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const flags = new Set(process.argv.slice(5));

// `hits`: a Map whose values are small integers, which V8's table writes no node for.
globalThis.service = { cache: new Map(), misses: 0, hits: new Map([[{ city: 'Linz' }, 3], ['total', 7]]) };

function locate(i) {
  const unique = flags.has('unique');
  const city = unique ? 'Linz' : CITIES[i % CITIES.length];
  const day = unique ? i : i % 3;
  const key = flags.has('fixed') ? `${city}|${day}` : { city, day };
  const service = globalThis.service;
  let found = service.cache.get(key);
  if (found === undefined) {
    service.misses++;
    found = `${city}#${day}`;
    service.cache.set(key, found);
  }
  return found;
}

let next = 0;
function round() {
  for (let k = 0; k < perRound; k++) locate(next++);
}

if (flags.has('stdin')) {
  let done = 0;
  require('readline').createInterface({ input: process.stdin }).on('line', () => {
    round();
    done++;
    console.log(`round ${done}`);
  });
} else {
  // Each round in a task of its own, so no frame of the module's code holds the cache when
  // the snapshot is taken (V8 would list what it holds among its roots).
  const step = (r) => {
    round();
    const file = path.join(out, `Heap.20260101.0000${String(r).padStart(2, '0')}.1.0.${String(r + 1).padStart(3, '0')}.heapsnapshot`);
    v8.writeHeapSnapshot(file, { exposeNumericValues: !flags.has('plain') });
    console.log(file);
    if (r + 1 < rounds) setImmediate(step, r + 1);
  };
  setImmediate(step, 0);
}
