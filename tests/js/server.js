// An HTTP server with a per-request listener leak, for the leak gate's Node recipe
// (docs/ci.md): every request subscribes to the long-lived `config` bus so that it would hear of
// a configuration change while it runs, and never unsubscribes, so each request's context stays
// reachable through its listener. `fixed` unsubscribes when the response is finished.
// Usage: node --inspect=127.0.0.1:0 server.js [PORT] [fixed]; prints `listening on PORT`.
'use strict';
const http = require('http');
const { EventEmitter } = require('events');

const config = new EventEmitter();
config.setMaxListeners(0);

class RequestContext {
  constructor(id, url) {
    this.id = id;
    this.url = url;
    this.started = Date.now();
    this.headers = { accept: 'text/plain', user: 'user-' + (id % 97) };
    this.trace = new Array(16).fill(id);
    // What a request carries (a parsed body, say): about 1 kB, so a leak of a few MB a second.
    this.body = Buffer.alloc(1024, id % 256).toString('latin1');
  }
}

const [port = '0', mode] = process.argv.slice(2);
const fixed = mode === 'fixed';
let next = 0;

const server = http.createServer((req, res) => {
  const ctx = new RequestContext(next++, req.url);
  const onChange = (name) => { ctx.headers.config = name; };
  config.on('change', onChange);
  if (fixed) res.on('finish', () => config.off('change', onChange));
  res.end(`hello ${ctx.id}\n`);
});
server.keepAliveTimeout = 60000;
server.listen(Number(port), '127.0.0.1', () => {
  console.log(`listening on ${server.address().port}`);
});
