// A synthetic Node heap of about N orders (each with a customer, items, a note and a closure) in a
// few long-lived containers; writes its heap snapshot to PATH.
// Usage: node --max-old-space-size=8192 synthetic.js N PATH; with PATH `serve` it keeps running
// instead (for `memcity record --inspect`: node --inspect=127.0.0.1:9229 synthetic.js N serve).
'use strict';
const v8 = require('v8');

class Customer { constructor(id) { this.id = id; this.name = 'customer-' + (id % 5000); this.tags = ['a', 'b']; } }
class Item { constructor(sku, qty) { this.sku = sku; this.qty = qty; this.price = qty * 1.5; } }
class Order {
  constructor(id, customer) {
    this.id = id;
    this.customer = customer;
    this.items = [new Item('sku-' + (id % 977), id % 5), new Item('sku-' + (id % 131), 1)];
    this.note = 'order ' + id;
    this.onDone = () => this.id;
  }
}

const n = Number(process.argv[2] || 100000);
const path = process.argv[3] || 'synthetic.heapsnapshot';
const customers = [];
for (let i = 0; i < 5000; i++) customers.push(new Customer(i));
const byId = new Map();
const recent = [];
const index = {};
for (let i = 0; i < n; i++) {
  const order = new Order(i, customers[i % customers.length]);
  byId.set(i, order);
  if (i % 10 === 0) recent.push(order);
  if (i % 100 === 0) index['k' + i] = order;
}
globalThis.store = { byId, recent, index };
if (path === 'serve') {
  setInterval(() => {}, 1000);
} else {
  v8.writeHeapSnapshot(path);
  console.log(path);
}
