/**
 * Issue 25, WebSockets in the Python runtime, as a real process with a real `ws` client: the Node
 * runtime's contract (docs/functions.md "WebSockets") — echo of text, binary and fragmented
 * messages, ping/pong, the close codes (the function's, 1000 on return, 1011 on a raise, 1009 over
 * the size cap, 1002 for an unmasked frame, 1007 for bad UTF-8), the handshake refusals, one
 * in-flight slot per open socket (containerConcurrency 1 makes a second handshake wait; the
 * timeout bounds the time to the 101), and SIGTERM reaching the client as 1001.
 */
import { request } from 'node:http';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { eventually, stopRuntime, type RuntimeProcess } from '../../runtime/src/testing/runtime-process.ts';
import { PYTHON_PROBE, startPythonRuntime } from './testing/python-runtime-process.ts';

const WS_ECHO = fileURLToPath(new URL('../fixtures/ws_echo.py', import.meta.url));
const started: RuntimeProcess[] = [];
const clients: WebSocket[] = [];

const worker = async (extra: string[] = [], source = WS_ECHO) => {
  const rt = await startPythonRuntime(['--function', 'echo', '--revision', 'echo-00001', '--source-file', source, ...extra]);
  started.push(rt);
  return rt;
};
const wsUrl = (rt: RuntimeProcess, path = '/') => rt.url.replace(/^http/, 'ws') + path;
type Stats = { current: { inFlight: number; queued: number; webSockets: number } };
const stats = async (rt: RuntimeProcess) => (await (await fetch(`${rt.url}/v1/stats`)).json()) as Stats;

interface Client {
  ws: WebSocket;
  next(): Promise<{ data: string; binary: boolean }>;
  closed: Promise<{ code: number; reason: string }>;
}

/** Opens a socket; resolves once it is open, rejects with "<status> <body>" when the handshake is refused. */
function open(url: string, protocols?: string[]): Promise<Client> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocols);
    clients.push(ws);
    const inbox: Array<{ data: string; binary: boolean }> = [];
    const waiting: Array<(m: { data: string; binary: boolean }) => void> = [];
    const closed = new Promise<{ code: number; reason: string }>((r) => ws.once('close', (code, reason) => r({ code, reason: reason.toString() })));
    ws.on('message', (d: Buffer, binary) => {
      const m = { data: binary ? d.toString('hex') : d.toString(), binary };
      const w = waiting.shift();
      if (w) w(m);
      else inbox.push(m);
    });
    ws.on('error', () => undefined);
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => reject(new Error(`${res.statusCode} ${body}`)));
    });
    ws.once('open', () =>
      resolve({ ws, closed, next: () => new Promise((r) => (inbox.length > 0 ? r(inbox.shift()!) : waiting.push(r))) }),
    );
  });
}

/** A hand-written client on a raw TCP socket, for frames `ws` would never send; resolves with the server's close code. */
function rawCloseCode(rt: RuntimeProcess, frame: Buffer): Promise<number> {
  const { hostname, port } = new URL(rt.url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), hostname);
    let buf = Buffer.alloc(0);
    let switched = false;
    s.on('error', reject);
    s.on('close', () => reject(new Error(`closed without a close frame: ${buf.toString('latin1')}`)));
    s.write(`GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`);
    s.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      if (!switched) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        expect(buf.subarray(0, end).toString()).toContain('Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=');
        buf = buf.subarray(end + 4);
        switched = true;
        s.write(frame);
      }
      if (buf.length >= 4 && buf[0] === 0x88) {
        s.removeAllListeners('close');
        s.destroy();
        resolve(buf.readUInt16BE(2));
      }
    });
  });
}

/** [status, code] of a refused upgrade (fetch cannot send Connection: upgrade). */
function upgradeAnswer(rt: RuntimeProcess, headers: Record<string, string>): Promise<[number, string]> {
  return new Promise((resolve, reject) => {
    const req = request(rt.url, { headers: { connection: 'upgrade', ...headers } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve([res.statusCode ?? 0, (JSON.parse(body) as { code: string }).code]));
    });
    req.on('upgrade', () => reject(new Error('the worker switched protocols')));
    req.on('error', reject);
    req.end();
  });
}

/** A masked client frame (mask 0 keeps the payload readable in the test). */
const masked = (opcode: number, payload: Buffer) => Buffer.concat([Buffer.from([0x80 | opcode, 0x80 | payload.length, 0, 0, 0, 0]), payload]);

afterEach(() => {
  for (const c of clients.splice(0)) c.terminate();
});
afterAll(async () => {
  await Promise.all(started.map((rt) => stopRuntime(rt)));
});

describe('WebSockets in the Python runtime (real process, ws client)', () => {
  it('echoes text, binary and a fragmented message, answers pings, counts one in-flight request while open, and echoes the client close code', { timeout: 30_000 }, async () => {
    const rt = await worker(['--container-concurrency', '4']);
    const c = await open(wsUrl(rt, '/room/7?who=ada'), ['chat.v2', 'chat.v1']);
    expect(c.ws.protocol).toBe('chat.v2');
    c.ws.send('whoami');
    expect(await c.next()).toEqual({ data: 'echo /room/7 ada', binary: false });
    c.ws.send('héllo ✓');
    expect(await c.next()).toEqual({ data: 'héllo ✓', binary: false });
    c.ws.send(Buffer.from([0, 1, 2, 255]));
    expect(await c.next()).toEqual({ data: '000102ff', binary: true });
    c.ws.send('frag', { fin: false });
    c.ws.send('men', { fin: false });
    c.ws.send('ted', { fin: true });
    expect(await c.next()).toEqual({ data: 'fragmented', binary: false });
    const big = 'x'.repeat(70_000); // a 64-bit length
    c.ws.send(big);
    expect((await c.next()).data).toBe(big);
    const pong = new Promise<string>((r) => c.ws.once('pong', (d: Buffer) => r(d.toString())));
    c.ws.ping('are you there');
    expect(await pong).toBe('are you there');
    expect(await stats(rt)).toMatchObject({ current: { inFlight: 1, webSockets: 1 } });
    c.ws.close(4001, 'done here');
    expect(await c.closed).toEqual({ code: 4001, reason: 'done here' });
    await eventually(async () => (await stats(rt)).current.inFlight === 0 && (await stats(rt)).current.webSockets === 0);
    await eventually(() => /"code":4001.*"msg":"closed"/.test(rt.stderr()));
  });

  it('close codes: the function closes with its code, returns (1000), raises (1011); 1009 over the size cap; 1002 unmasked; 1007 bad UTF-8', { timeout: 30_000 }, async () => {
    const rt = await worker(['--max-request-bytes', '1024']);
    const expectClose = async (send: (c: Client) => void, code: number, reason?: string) => {
      const c = await open(wsUrl(rt));
      send(c);
      const closed = await c.closed;
      expect(closed.code).toBe(code);
      if (reason !== undefined) expect(closed.reason).toBe(reason);
    };
    await expectClose((c) => c.ws.send('bye'), 4000, 'asked to leave');
    await expectClose((c) => c.ws.send('return'), 1000);
    await expectClose((c) => c.ws.send('fail'), 1011, 'the function failed');
    await eventually(() => /the function failed on purpose.*"msg":"websocket handler threw"/.test(rt.stderr()));
    await expectClose((c) => c.ws.send('y'.repeat(1025)), 1009);
    // Over the cap in fragments too: the sum counts.
    await expectClose((c) => {
      c.ws.send('z'.repeat(600), { fin: false });
      c.ws.send('z'.repeat(600), { fin: true });
    }, 1009);
    expect(await rawCloseCode(rt, Buffer.from([0x81, 0x02, 0x68, 0x69]))).toBe(1002); // unmasked "hi"
    expect(await rawCloseCode(rt, masked(0x1, Buffer.from([0xc3, 0x28])))).toBe(1007); // invalid UTF-8
    expect(await rawCloseCode(rt, masked(0x0, Buffer.from('lonely')))).toBe(1002); // continuation of nothing
    expect(await rawCloseCode(rt, masked(0x8, Buffer.from([0x03, 0xe8, 0xff])))).toBe(1007); // close reason not UTF-8
    await eventually(async () => (await stats(rt)).current.inFlight === 0);
  });

  it('refuses handshakes as the Node runtime does: no websocket export, other upgrades, runtime routes, a bad key', { timeout: 30_000 }, async () => {
    const probe = await worker([], PYTHON_PROBE);
    await expect(open(wsUrl(probe))).rejects.toThrow(/^400 .*"code":"websocket_not_supported"/);
    await expect(open(wsUrl(probe))).rejects.toThrow(/function default\/echo does not take WebSocket connections/);
    const rt = await worker();
    await expect(open(wsUrl(rt, '/v1/stats'))).rejects.toThrow(/^404 .*"code":"not_found"/);
    expect(await upgradeAnswer(rt, { upgrade: 'h2c' })).toEqual([400, 'upgrade_not_supported']);
    expect(await upgradeAnswer(rt, { upgrade: 'websocket', 'sec-websocket-key': 'short', 'sec-websocket-version': '13' })).toEqual([400, 'bad_handshake']);
    expect(await upgradeAnswer(rt, { upgrade: 'websocket', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-version': '7' })).toEqual([400, 'bad_handshake']);
    // Plain HTTP still reaches the handler.
    expect((await fetch(rt.url)).status).toBe(426);
  });

  it('containerConcurrency 1: a second handshake waits in the queue until the first socket closes; the timeout bounds the wait for the 101', { timeout: 30_000 }, async () => {
    const rt = await worker(['--container-concurrency', '1', '--timeout-seconds', '20']);
    const first = await open(wsUrl(rt));
    let secondOpen = false;
    const second = open(wsUrl(rt)).then((c) => ((secondOpen = true), c));
    await eventually(async () => (await stats(rt)).current.queued === 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(secondOpen).toBe(false);
    first.ws.send('slow');
    expect((await first.next()).data).toBe('slept');
    first.ws.close();
    const c2 = await second;
    c2.ws.send('after');
    expect((await c2.next()).data).toBe('after');
    expect(await stats(rt)).toMatchObject({ current: { inFlight: 1, queued: 0, webSockets: 1 } });

    const t = await worker(['--container-concurrency', '1', '--timeout-seconds', '1']);
    const held = await open(wsUrl(t));
    const started = Date.now();
    await expect(open(wsUrl(t))).rejects.toThrow(/^504 .*no slot for the WebSocket within the function's timeout \(1 s\).*"code":"timeout"/);
    expect(Date.now() - started).toBeGreaterThan(800);
    // An open socket outlives the timeout.
    held.ws.send('still here');
    expect((await held.next()).data).toBe('still here');
  });

  it('SIGTERM closes open sockets with 1001 "worker draining" and the worker exits 0', { timeout: 30_000 }, async () => {
    const rt = await worker(['--container-concurrency', '2']);
    const a = await open(wsUrl(rt));
    const b = await open(wsUrl(rt));
    rt.kill('SIGTERM');
    expect(await a.closed).toEqual({ code: 1001, reason: 'worker draining' });
    expect((await b.closed).code).toBe(1001);
    expect(await rt.exited).toBe(0);
    expect(rt.stderr()).toMatch(/"msg":"drained; exiting"/);
  });
});
