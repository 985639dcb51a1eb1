// `sift serve` with rhea (Node's AMQP 1.0 client) as the client: a second implementation besides
// Qpid Proton. rhea publishes 60 messages, then attaches three receivers from the first offset: a JMS
// selector (apache.org:selector-filter:string), an SQL filter (amqp:sql-filter) and a properties
// filter (amqp:properties-filter on subject). Each must receive exactly the messages its filter
// selects, in offset order, and see its filter echoed on the attach.
//
// Environment: SIFT_SERVE (the sift-serve binary), NODE_PATH (where rhea is installed: CMake sets it
// from SIFT_NODE_MODULES; tools/setup-debian installs it). Exits 77 (skipped) only when rhea cannot be
// loaded; everything runs within 60 s or fails.
'use strict';

const assert = require('assert');
const childProcess = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

let rhea;
try {
  rhea = require('rhea');
} catch (e) {
  console.log('SKIP: rhea is not installed under NODE_PATH=' + (process.env.NODE_PATH || '') +
              ' (tools/setup-debian installs it)');
  process.exit(77);
}

const COUNT = 60;
const COLORS = ['red', 'green', 'blue'];
const messages = [];
for (let i = 0; i < COUNT; ++i) {
  messages.push({
    subject: i % 5 === 0 ? 'urgent' : 'routine',
    application_properties: {n: i, color: COLORS[i % 3]},
    body: 'order ' + i,
  });
}

const described = (descriptor, value) => rhea.types.wrap_described(value, descriptor);
const consumers = [
  {
    name: 'jms',
    filter: {'jms-selector': described('apache.org:selector-filter:string', "color = 'red' AND n >= 30")},
    expected: (i) => i % 3 === 0 && i >= 30,
  },
  {
    name: 'sql',
    filter: {'sql-filter': described('amqp:sql-filter', "n % 7 = 0 OR color = 'blue'")},
    expected: (i) => i % 7 === 0 || i % 3 === 2,
  },
  {
    name: 'properties',
    filter: {
      'properties-filter': described('amqp:properties-filter', rhea.types.wrap_symbolic_map({subject: 'urgent'})),
    },
    expected: (i) => i % 5 === 0,
  },
];

const store = fs.mkdtempSync(path.join(os.tmpdir(), 'sift-serve-rhea-'));
const server = childProcess.spawn(process.env.SIFT_SERVE, ['--listen', '127.0.0.1:0', '--store', store],
                                  {stdio: ['ignore', 'pipe', 'inherit']});
let finished = false;

function finish(error) {
  if (finished) return;
  finished = true;
  if (error) console.error('FAILED: ' + (error.stack || error));
  server.kill('SIGTERM');
  server.on('exit', (code) => {
    fs.rmSync(store, {recursive: true, force: true});
    if (!error && code !== 0) console.error('FAILED: sift-serve exited with ' + code);
    process.exit(error || code !== 0 ? 1 : 0);
  });
}

setTimeout(() => finish(new Error('not done within 60 s')), 60000);
process.on('uncaughtException', (e) => finish(e));

let out = '';
server.stdout.on('data', (data) => {
  if (out === null) return;
  out += data.toString();
  const m = /listening on 127\.0\.0\.1:(\d+)/.exec(out);
  if (m) {
    out = null;
    run(Number(m[1]));
  }
});
server.on('exit', (code) => {
  if (!finished) finish(new Error('sift-serve exited early with ' + code));
});

function run(port) {
  const container = rhea.create_container({id: 'sift-rhea-test'});
  const connection = container.connect({host: '127.0.0.1', port: port, reconnect: false});
  connection.on('connection_error', (ctx) => finish(new Error('connection error: ' + ctx.connection.error)));
  connection.on('disconnected', (ctx) => finish(new Error('disconnected: ' + (ctx.error || ''))));

  let sent = 0;
  let accepted = 0;
  const sender = connection.open_sender('orders');
  sender.on('sendable', (ctx) => {
    while (ctx.sender.sendable() && sent < COUNT) ctx.sender.send(messages[sent++]);
  });
  sender.on('rejected', (ctx) => finish(new Error('publish rejected: ' + JSON.stringify(ctx.delivery.remote_state))));
  sender.on('accepted', () => {
    if (++accepted === COUNT) {
      sender.close();
      consume(connection);
    }
  });
}

function consume(connection) {
  let done = 0;
  for (const c of consumers) {
    const want = [];
    for (let i = 0; i < COUNT; ++i) {
      if (c.expected(i)) want.push(i);
    }
    const got = [];
    const offsets = [];
    const receiver = connection.open_receiver({source: {address: 'orders', filter: c.filter}, credit_window: 100});
    receiver.on('receiver_error', (ctx) => finish(new Error(c.name + ': refused: ' + ctx.receiver.error)));
    receiver.on('receiver_open', (ctx) => {
      const echoed = ctx.receiver.remote.attach.source.filter;
      try {
        assert.ok(echoed, c.name + ': the attach did not echo the filter-set');
        assert.deepStrictEqual(Object.keys(echoed), Object.keys(c.filter), c.name + ': echoed filter keys');
      } catch (e) {
        finish(e);
      }
    });
    receiver.on('message', (ctx) => {
      got.push(ctx.message.application_properties.n);
      offsets.push(Number(ctx.message.message_annotations['x-stream-offset']));
      if (got.length === want.length) {
        // Anything beyond the expected messages would arrive now: look again a little later.
        setTimeout(() => {
          try {
            assert.deepStrictEqual(got, want, c.name + ': messages received');
            assert.deepStrictEqual(offsets, want, c.name + ': x-stream-offset of each (one message per offset)');
          } catch (e) {
            finish(e);
            return;
          }
          console.log(c.name + ': ' + got.length + ' messages, as expected');
          receiver.close();
          if (++done === consumers.length) {
            connection.close();
            finish(null);
          }
        }, 500);
      }
    });
  }
}
