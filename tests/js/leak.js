// A Node service that leaks: every request's context is remembered in a long-lived store and
// never removed. Writes a heap snapshot (Node's default file name, in the working directory)
// after each round, with short-lived garbage in between. Usage: node leak.js ROUNDS PER_ROUND;
// `node --inspect=127.0.0.1:0 leak.js serve` keeps handling requests (500 every 100 ms) instead.
'use strict';
const v8 = require('v8');

class RequestContext {
  constructor(id) {
    this.id = id;
    this.started = Date.now();
    this.route = id % 7;
    this.user = id % 13;
    this.a = 1; this.b = 2; this.c = 3; this.d = 4; this.e = 5; this.f = 6; this.g = 7; this.h = 8;
  }
}

class SessionStore {
  constructor() { this.contexts = new Map(); }
  remember(ctx) { this.contexts.set(ctx.id, ctx); }
}

const store = new SessionStore();
globalThis.sessionStore = store;

function handle(id) {
  const ctx = new RequestContext(id);
  store.remember(ctx);
  // Garbage: freed at once.
  return JSON.stringify({ id, items: [1, 2, 3].map((x) => x * id) }).length;
}

if (process.argv[2] === 'serve') {
  let id = 0;
  setInterval(() => { for (let i = 0; i < 500; i++) handle(id++); }, 100);
  return;
}

const rounds = Number(process.argv[2] || 4);
const perRound = Number(process.argv[3] || 2000);
let next = 0;
for (let round = 0; round < rounds; round++) {
  for (let i = 0; i < perRound; i++) handle(next++);
  console.log(v8.writeHeapSnapshot());
}
