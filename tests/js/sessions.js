// A Node service whose session registry only grows: every login adds a Session to the Map at
// `registry.sessions` (a property of a global object) and nothing removes it, while 200 route
// handlers each keep a small Map of counters that never grows. Writes a heap snapshot after each
// round into the folder given. Usage: node sessions.js OUT_DIR ROUNDS PER_ROUND [fixed|leak]
// [object] (fixed: a session ends after 100 newer logins, so the registry stops growing;
// object: the registry is a plain object used as a dictionary, `Object.create(null)` keyed by
// session id, the most common map in JavaScript, instead of a Map).
'use strict';
const path = require('path');
const v8 = require('v8');

class Session {
  constructor(id) {
    this.id = id;
    this.user = 'user-' + id;
    this.started = Date.now();
    this.roles = ['reader'];
  }
}

class Handler {
  constructor(route) {
    this.route = route;
    this.counters = new Map([['hits', 0], ['errors', 0], ['bytes', 0]]);
  }
}

const dictionary = process.argv[6] === 'object';
const registry = { sessions: dictionary ? Object.create(null) : new Map(), handlers: [] };
globalThis.registry = registry;
for (let r = 0; r < 200; r++) registry.handlers.push(new Handler('/route/' + r));

const fixed = process.argv[5] === 'fixed';

function login(id) {
  if (dictionary) {
    registry.sessions['sid-' + id] = new Session(id);
    if (fixed) delete registry.sessions['sid-' + (id - 100)];
  } else {
    registry.sessions.set(id, new Session(id));
    if (fixed) registry.sessions.delete(id - 100);
  }
  // Each request touches one handler's counters: they change, but never grow.
  const handler = registry.handlers[id % registry.handlers.length];
  handler.counters.set('hits', handler.counters.get('hits') + 1);
}

const [out, rounds = '3', perRound = '5000'] = process.argv.slice(2);
let next = 0;
for (let round = 1; round <= Number(rounds); round++) {
  for (let i = 0; i < Number(perRound); i++) login(next++);
  const file = path.join(out, `round-${round}.heapsnapshot`);
  v8.writeHeapSnapshot(file);
  console.log(file);
}
