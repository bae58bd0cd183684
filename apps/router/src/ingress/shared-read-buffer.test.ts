/**
 * Reads through the process's shared buffer, on real loopback sockets: every chunk handed on is
 * the receiver's own (later reads of any socket never change it), order and end of stream are
 * kept, pause() stops reading, release() gives the socket back to its stream (as a handover to
 * node needs), and sockets this cannot serve (TLS, a Unix socket) are left to 'data'.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect, createServer as createTlsServer } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../testing/processes.ts';
import { makeTestCa } from '../testing/test-certificates.ts';
import { readThroughSharedBuffer, SharedBufferReads } from '@orrery/raw-http';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The router tests' `eventually`, for a plain condition. */
const until = (check: () => boolean, what: string): Promise<true> => eventually(() => check() || undefined, what, 5_000);

/** A server whose accepted sockets are handed to `onSocket`; resolves with its port. */
async function listen(onSocket: (s: Socket) => void): Promise<number> {
  const server = createServer(onSocket);
  cleanups.push(() => server.close());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

async function dial(port: number): Promise<Socket> {
  const s = connect({ port, host: '127.0.0.1', noDelay: true });
  cleanups.push(() => s.destroy());
  await new Promise<void>((r, j) => s.once('connect', r).once('error', j));
  return s;
}

describe('accepted sockets', () => {
  it('hands on each read as a Buffer of its own: two connections read in turn keep their bytes', async () => {
    const chunks: { conn: number; chunk: Buffer }[] = [];
    const enabled: boolean[] = [];
    let next = 0;
    const port = await listen((s) => {
      const conn = next++;
      enabled.push(readThroughSharedBuffer(s, (chunk) => chunks.push({ conn, chunk })) !== undefined);
    });
    const a = await dial(port);
    const b = await dial(port);
    const sent: string[][] = [[], []];
    for (let i = 0; i < 40; i++) {
      // Each write is read on its own (the peer waits for it), so the shared buffer is reused 80 times.
      const [c, n] = i % 2 === 0 ? [a, 0] : [b, 1];
      const text = `${n === 0 ? 'alpha' : 'beta'}-${i}-${'x'.repeat(i * 37)}`;
      sent[n]!.push(text);
      c.write(text);
      await until(() => chunks.reduce((k, x) => k + x.chunk.length, 0) === sent.flat().join('').length, `write ${i}`);
    }
    expect(enabled).toEqual([true, true]);
    for (const conn of [0, 1]) {
      const got = Buffer.concat(chunks.filter((x) => x.conn === conn).map((x) => x.chunk)).toString();
      expect(got).toBe(sent[conn]!.join(''));
    }
    // No chunk is a view of the shared 64 KiB block (the contents above would be overwritten if one were).
    expect(chunks.some((x) => x.chunk.buffer.byteLength === 64 * 1024)).toBe(false);
  });

  it('keeps the end of the stream: a half-close still emits end', async () => {
    let ended = false;
    let got = '';
    const port = await listen((s) => {
      readThroughSharedBuffer(s, (chunk) => (got += chunk.toString()));
      s.on('end', () => (ended = true));
    });
    const c = await dial(port);
    c.end('last words');
    await until(() => ended, "the server socket's end");
    expect(got).toBe('last words');
  });

  it('pause() stops the reads and resume() brings the rest, in order', async () => {
    let got = '';
    let server: Socket | undefined;
    const port = await listen((s) => {
      server = s;
      readThroughSharedBuffer(s, (chunk) => {
        got += chunk.toString();
        if (got.includes('|')) s.pause();
      });
    });
    const c = await dial(port);
    c.write('one|');
    await until(() => got === 'one|', 'the first write');
    c.write('two');
    await sleep(100);
    expect(got).toBe('one|'); // paused: the bytes wait in the kernel
    server!.resume();
    await until(() => got === 'one|two', 'the second write after resume');
  });

  it('release() gives the socket back to its stream: unshifted bytes first, then every later read through data', async () => {
    let reads: SharedBufferReads | undefined;
    let direct = '';
    let viaStream = '';
    let server: Socket | undefined;
    const port = await listen((s) => {
      server = s;
      reads = readThroughSharedBuffer(s, (chunk) => {
        direct += chunk.toString();
        // As a handover does: stop taking reads, give back what was read, let a stream reader on.
        reads!.release();
        s.unshift(chunk);
        s.on('data', (d: Buffer) => (viaStream += d.toString()));
      });
    });
    const c = await dial(port);
    c.write('GET / HTTP/1.0\r\n');
    await until(() => viaStream === 'GET / HTTP/1.0\r\n', 'the unshifted bytes');
    c.write('Host: x\r\n\r\n');
    await until(() => viaStream === 'GET / HTTP/1.0\r\nHost: x\r\n\r\n', 'a later read through data');
    expect(direct).toBe('GET / HTTP/1.0\r\n');
    expect(reads!.released).toBe(true);
    // Backpressure is the stream's again: a reader that stops reading stops the socket at its high-water mark.
    server!.pause();
    const big = Buffer.alloc(4 * 1024 * 1024, 0x61);
    c.write(big);
    await sleep(200);
    expect(server!.readableLength).toBeLessThanOrEqual(server!.readableHighWaterMark + 64 * 1024);
    expect(c.writableLength).toBeGreaterThan(0); // the rest waits at the writer
  });

  it('leaves a Unix socket and a TLS socket to data (nothing changed)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orrery-shared-read-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const results: (SharedBufferReads | undefined)[] = [];
    const unix: Server = createServer((s) => {
      results.push(readThroughSharedBuffer(s, () => {}));
      s.on('data', (d) => s.end(d));
    });
    cleanups.push(() => unix.close());
    const path = join(dir, 's.sock');
    await new Promise<void>((r) => unix.listen(path, r));
    const u = connect(path);
    cleanups.push(() => u.destroy());
    const echoed = await new Promise<string>((r) => {
      u.on('data', (d) => r(d.toString()));
      u.write('over unix');
    });
    expect(echoed).toBe('over unix');

    const ca = makeTestCa(dir);
    const leaf = ca.issue(['localhost']);
    const tls = createTlsServer({ cert: leaf.certPem, key: leaf.keyPem }, (s) => {
      results.push(readThroughSharedBuffer(s, () => {}));
      s.on('data', (d) => s.end(d));
    });
    cleanups.push(() => tls.close());
    await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
    const t = tlsConnect({ port: (tls.address() as AddressInfo).port, host: '127.0.0.1', servername: 'localhost', ca: ca.certPem });
    cleanups.push(() => t.destroy());
    const tlsEchoed = await new Promise<string>((r, j) => {
      t.on('data', (d) => r(d.toString()));
      t.on('error', j);
      t.write('over tls');
    });
    expect(tlsEchoed).toBe('over tls');
    expect(results).toEqual([undefined, undefined]);
  });
});

describe('connect() with onread', () => {
  it('reads a client socket through the shared buffer until released, then through its stream', async () => {
    let server: Socket | undefined;
    const port = await listen((s) => (server = s));
    let direct = '';
    const reads = new SharedBufferReads((chunk) => (direct += chunk.toString()));
    const c = connect({ port, host: '127.0.0.1', onread: reads.onread });
    reads.socket = c;
    cleanups.push(() => c.destroy());
    await new Promise<void>((r) => c.once('connect', r));
    await until(() => server !== undefined, 'the accept');
    server!.write('HTTP/1.1 101 Switching Protocols\r\n\r\n');
    await until(() => direct.length === 36, 'the head');
    reads.release();
    let viaStream = '';
    c.on('data', (d: Buffer) => (viaStream += d.toString()));
    server!.write('frame');
    await until(() => viaStream === 'frame', 'a read after release');
    expect(direct).toBe('HTTP/1.1 101 Switching Protocols\r\n\r\n');
  });
});
