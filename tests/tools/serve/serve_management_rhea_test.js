// The management node `$management` of `sift serve` (docs/serve.md, "Management") with rhea (Node's
// AMQP 1.0 client) as the client: a second implementation besides Qpid Proton. Each client opens a
// sender to `$management` and a receiver with a dynamic source, learns the reply address
// (`$management/replies/N`) from the server's attach, and sends requests with application properties
// operation, type and name, a message-id and that reply-to. Shown: CREATE with attributes (201 and the
// stream's attributes), READ after publishing (200, the counts), UPDATE (200, the limit not named kept),
// a user without the `manage` permission refused with 403 for READ, UPDATE, DELETE and CREATE and
// changing nothing, DELETE (204), then READ (404). Every request is accepted, every response carries
// the request's message-id as its correlation-id and the reply address as its `to`.
//
// Environment: SIFT_SERVE (the sift-serve binary), SIFT_CLI (the sift binary: it writes the users
// file), NODE_PATH (where rhea is installed: CMake sets it from SIFT_NODE_MODULES; tools/setup-debian
// installs it). Exits 77 (skipped) only when rhea cannot be loaded; every wait is bounded, and the
// whole test runs within 90 s or fails.
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

const SERVE = process.env.SIFT_SERVE;
const CLI = process.env.SIFT_CLI;
if (!SERVE || !CLI) {
  console.error('FAILED: SIFT_SERVE and SIFT_CLI must name the sift-serve and sift binaries');
  process.exit(1);
}

const MANAGEMENT = '$management';
const WAIT_MS = 15000;  // the longest any one exchange may take
const PASSWORDS = {alice: 'alice-manages', bob: 'bob-publishes'};
const ATTRIBUTES = ['name', 'messages', 'first-offset', 'next-offset', 'chunks', 'stored-bytes', 'raw-bytes',
                    'first-timestamp-ms', 'last-timestamp-ms', 'retention-max-bytes', 'retention-max-age-ms',
                    'compression'].sort();
const STREAM = 'orders-rhea';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sift-serve-management-rhea-'));
let server = null;
let finished = false;
const connections = [];

function finish(error) {
  if (finished) return;
  finished = true;
  if (error) console.error('FAILED: ' + (error.stack || error));
  for (const c of connections) {
    c.closing = true;
    try {
      c.connection.close();
    } catch (e) {
      // already gone
    }
  }
  const cleanUp = (code) => {
    fs.rmSync(tmp, {recursive: true, force: true});
    if (!error && code !== 0) console.error('FAILED: sift-serve exited with ' + code);
    process.exit(error || code !== 0 ? 1 : 0);
  };
  if (!server || server.exitCode !== null) {
    cleanUp(server ? server.exitCode : 0);
    return;
  }
  setTimeout(() => {
    console.error('FAILED: sift-serve did not stop within 30 s of SIGTERM');
    server.kill('SIGKILL');
  }, 30000).unref();
  server.on('exit', (code) => cleanUp(code));
  server.kill('SIGTERM');
}

setTimeout(() => finish(new Error('not done within 90 s')), 90000).unref();
process.on('uncaughtException', (e) => finish(e));
process.on('unhandledRejection', (e) => finish(e));

function withTimeout(promise, what) {
  let timer;
  const timeout = new Promise((resolve, reject) => {
    timer = setTimeout(() => reject(new Error('no ' + what + ' within ' + WAIT_MS + ' ms')), WAIT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function siftUsers(args, input) {
  try {
    childProcess.execFileSync(CLI, ['users'].concat(args), {input: input, timeout: 30000, stdio: 'pipe'});
  } catch (e) {
    throw new Error('sift users ' + args.join(' ') + ': ' + (e.stderr ? e.stderr.toString() : e.message));
  }
}

// One connection of `user`: a request link to $management and a dynamic reply link.
class Management {
  constructor(port, user) {
    this.user = user;
    this.closing = false;
    this.pending = new Map();  // correlation key -> {resolve, reject, response, outcome}
    const container = rhea.create_container({id: 'sift-management-rhea-' + user});
    this.connection = container.connect({host: '127.0.0.1', port: port, username: user, password: PASSWORDS[user],
                                         reconnect: false});
    connections.push(this);
    this.connection.on('connection_error', (ctx) => finish(new Error(user + ': connection error: ' +
                                                                     JSON.stringify(ctx.connection.error))));
    this.connection.on('disconnected', (ctx) => {
      if (!this.closing) finish(new Error(user + ': disconnected: ' + (ctx.error || '')));
    });
    this.sender = this.connection.open_sender({target: {address: MANAGEMENT}});
    this.receiver = this.connection.open_receiver({source: {dynamic: true}, credit_window: 10});
    this.sender.on('sender_error', (ctx) => finish(new Error(user + ': request link refused: ' +
                                                             JSON.stringify(ctx.sender.error))));
    this.receiver.on('receiver_error', (ctx) => finish(new Error(user + ': reply link refused: ' +
                                                                 JSON.stringify(ctx.receiver.error))));
    this.ready = withTimeout(Promise.all([
      new Promise((resolve) => this.receiver.once('receiver_open', (ctx) => {
        this.address = ctx.receiver.remote.attach.source.address;
        resolve();
      })),
      new Promise((resolve) => this.sender.once('sendable', resolve)),
    ]), user + ': attach of the management links and credit to send requests');
    this.sender.on('accepted', (ctx) => this.settled(ctx.delivery, 'accepted'));
    for (const outcome of ['rejected', 'released', 'modified']) {
      this.sender.on(outcome, (ctx) => this.settled(ctx.delivery, outcome + ' ' +
                                                    JSON.stringify(ctx.delivery.remote_state)));
    }
    this.receiver.on('message', (ctx) => {
      const key = JSON.stringify(ctx.message.correlation_id);
      const p = this.pending.get(key);
      if (!p) {
        finish(new Error(user + ': a response with the correlation-id ' + key + ' answers no request'));
        return;
      }
      p.response = ctx.message;
      this.complete(key);
    });
  }

  settled(delivery, outcome) {
    for (const [key, p] of this.pending) {
      if (p.delivery === delivery) {
        p.outcome = outcome;
        this.complete(key);
      }
    }
  }

  complete(key) {
    const p = this.pending.get(key);
    if (p.outcome === undefined || p.response === undefined) return;
    this.pending.delete(key);
    if (p.outcome !== 'accepted') p.reject(new Error(this.user + ': request ' + key + ' was ' + p.outcome));
    else p.resolve(p.response);
  }

  // Sends one request and resolves to its response, once the request is accepted.
  request(id, operation, name, body, type) {
    const key = JSON.stringify(id);
    const message = {
      message_id: id,
      reply_to: this.address,
      application_properties: {operation: operation, type: type || 'sift:stream', name: name},
    };
    if (body !== undefined) message.body = body;
    return withTimeout(new Promise((resolve, reject) => {
      const p = {resolve: resolve, reject: reject};
      this.pending.set(key, p);
      p.delivery = this.sender.send(message);
    }), this.user + ': response to ' + operation + ' ' + name + ' (message-id ' + key + ')');
  }
}

function checkResponse(m, response, id, code) {
  const what = m.user + ': response to message-id ' + JSON.stringify(id);
  const props = response.application_properties || {};
  assert.strictEqual(typeof props.statusDescription, 'string', what + ': statusDescription');
  assert.strictEqual(props.statusCode, code, what + ': statusCode (description: ' + props.statusDescription + ')');
  assert.strictEqual(response.correlation_id, id, what + ': correlation-id');
  assert.strictEqual(response.to, m.address, what + ': to');
  return props.statusDescription;
}

function checkAttributes(m, response, id, code, expected) {
  checkResponse(m, response, id, code);
  const body = response.body;
  const what = m.user + ': attributes in the response to message-id ' + JSON.stringify(id);
  assert.ok(body && typeof body === 'object', what + ': the body is no map: ' + JSON.stringify(body));
  assert.deepStrictEqual(Object.keys(body).sort(), ATTRIBUTES, what + ': attribute names');
  for (const key of ATTRIBUTES) {
    assert.strictEqual(typeof body[key], key === 'name' || key === 'compression' ? 'string' : 'number',
                       what + ': ' + key + ' = ' + JSON.stringify(body[key]));
  }
  assert.strictEqual(body.messages, body['next-offset'] - body['first-offset'], what + ': messages and offsets');
  for (const [key, value] of Object.entries(expected)) {
    assert.strictEqual(body[key], value, what + ': ' + key + ' in ' + JSON.stringify(body));
  }
  return body;
}

function checkNoBody(m, response, id, code) {
  const description = checkResponse(m, response, id, code);
  assert.strictEqual(response.body, null, m.user + ': the body of a ' + code + ' must be null: ' +
                     JSON.stringify(response.body));
  return description;
}

function publish(m, stream, count) {
  return withTimeout(new Promise((resolve, reject) => {
    const sender = m.connection.open_sender(stream);
    let sent = 0;
    let accepted = 0;
    sender.on('sendable', (ctx) => {
      while (ctx.sender.sendable() && sent < count) ctx.sender.send({body: 'message ' + sent++});
    });
    sender.on('accepted', () => {
      if (++accepted === count) {
        sender.close();
        resolve();
      }
    });
    for (const outcome of ['rejected', 'released', 'modified']) {
      sender.on(outcome, (ctx) => reject(new Error('publish to ' + stream + ': ' + outcome + ' ' +
                                                   JSON.stringify(ctx.delivery.remote_state))));
    }
    sender.on('sender_error', (ctx) => reject(new Error('publish to ' + stream + ': ' +
                                                        JSON.stringify(ctx.sender.error))));
  }), count + ' messages accepted on ' + stream);
}

async function run(port) {
  const alice = new Management(port, 'alice');
  await alice.ready;
  assert.match(alice.address, /^\$management\/replies\/\d+$/, 'the dynamic reply address');

  const created = await alice.request(1, 'CREATE', STREAM, {
    'retention-max-bytes': rhea.types.wrap_ulong(1048576),
    'retention-max-age-ms': rhea.types.wrap_long(3600000),
    'compression': 'zstd',
  });
  checkAttributes(alice, created, 1, 201, {
    'name': STREAM, 'messages': 0, 'first-offset': 0, 'next-offset': 0, 'chunks': 0, 'stored-bytes': 0,
    'raw-bytes': 0, 'first-timestamp-ms': 0, 'last-timestamp-ms': 0, 'retention-max-bytes': 1048576,
    'retention-max-age-ms': 3600000, 'compression': 'zstd:-2',
  });
  console.log('CREATE: 201 with the attributes');

  checkNoBody(alice, await alice.request(2, 'CREATE', STREAM), 2, 409);

  const before = Date.now();
  await publish(alice, STREAM, 5);
  const after = Date.now();
  const read = checkAttributes(alice, await alice.request('read-1', 'READ', STREAM), 'read-1', 200, {
    'name': STREAM, 'messages': 5, 'first-offset': 0, 'next-offset': 5, 'retention-max-bytes': 1048576,
    'retention-max-age-ms': 3600000, 'compression': 'zstd:-2',
  });
  assert.ok(read.chunks >= 1 && read['stored-bytes'] > 0 && read['raw-bytes'] > 0, 'READ: ' + JSON.stringify(read));
  assert.ok(read['first-timestamp-ms'] >= before - 1000 && read['first-timestamp-ms'] <= read['last-timestamp-ms'] &&
            read['last-timestamp-ms'] <= after + 1000, 'READ: append times ' + JSON.stringify(read));
  console.log('READ: 200, 5 messages');

  const updated = await alice.request(3, 'UPDATE', STREAM, {
    'retention-max-age-ms': rhea.types.wrap_uint(7200000),
    'compression': 'none',
  });
  checkAttributes(alice, updated, 3, 200, {
    'name': STREAM, 'messages': 5, 'next-offset': 5, 'retention-max-bytes': 1048576,
    'retention-max-age-ms': 7200000, 'compression': 'none',
  });
  console.log('UPDATE: 200, the byte limit kept');

  const bob = new Management(port, 'bob');
  await bob.ready;
  assert.notStrictEqual(bob.address, alice.address, 'dynamic reply addresses are unique');
  const refusal = (name) => "user 'bob' may not manage stream '" + name + "' (no 'manage' permission on it)";
  assert.strictEqual(checkNoBody(bob, await bob.request(10, 'READ', STREAM), 10, 403), refusal(STREAM));
  assert.strictEqual(checkNoBody(bob, await bob.request(11, 'UPDATE', STREAM,
                                                        {'retention-max-bytes': rhea.types.wrap_ulong(1)}), 11, 403),
                     refusal(STREAM));
  assert.strictEqual(checkNoBody(bob, await bob.request(12, 'DELETE', STREAM), 12, 403), refusal(STREAM));
  assert.strictEqual(checkNoBody(bob, await bob.request(13, 'CREATE', 'orders-bob'), 13, 403), refusal('orders-bob'));
  checkAttributes(alice, await alice.request(4, 'READ', STREAM), 4, 200, {
    'messages': 5, 'retention-max-bytes': 1048576, 'retention-max-age-ms': 7200000,
  });
  checkNoBody(alice, await alice.request(5, 'READ', 'orders-bob'), 5, 404);
  console.log('bob without manage: 403 for READ, UPDATE, DELETE and CREATE; nothing changed');

  checkNoBody(alice, await alice.request(6, 'DELETE', STREAM), 6, 204);
  checkNoBody(alice, await alice.request(7, 'READ', STREAM), 7, 404);
  console.log('DELETE: 204, then READ: 404');
  finish(null);
}

function start() {
  const users = path.join(tmp, 'users');
  for (const [user, password] of Object.entries(PASSWORDS)) siftUsers(['add', '--file', users, user], password + '\n');
  siftUsers(['grant', '--file', users, 'alice', 'all', 'orders-*']);
  siftUsers(['grant', '--file', users, 'alice', 'manage', 'orders-*']);
  siftUsers(['grant', '--file', users, 'bob', 'all', 'orders-*']);

  server = childProcess.spawn(SERVE, ['--listen', '127.0.0.1:0', '--store', path.join(tmp, 'store'), '--users', users],
                              {stdio: ['ignore', 'pipe', 'inherit']});
  server.on('exit', (code) => {
    if (!finished) finish(new Error('sift-serve exited early with ' + code));
  });
  let out = '';
  server.stdout.on('data', (data) => {
    if (out === null) return;
    out += data.toString();
    const m = /listening on 127\.0\.0\.1:(\d+)/.exec(out);
    if (m) {
      out = null;
      run(Number(m[1])).catch((e) => finish(e));
    }
  });
}

try {
  start();
} catch (e) {
  finish(e);
}
