// A load driver for tests/js/server.js: CONNECTIONS keep-alive clients send GET requests one
// after the other until the process is stopped. Usage: node load.js PORT [CONNECTIONS]
'use strict';
const http = require('http');

const [port, connections = '8'] = process.argv.slice(2);
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(connections) });
let sent = 0;

function request() {
  const req = http.get({ host: '127.0.0.1', port: Number(port), path: `/item/${sent++}`, agent }, (res) => {
    res.resume();
    res.on('end', request);
  });
  req.on('error', () => setTimeout(request, 50));
}

for (let c = 0; c < Number(connections); c++) request();
