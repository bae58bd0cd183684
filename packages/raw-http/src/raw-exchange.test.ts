import { setTimeout as nextTurn } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { handleRead } from './after-this-read.ts';
import { RawExchange, type RawExchangeConnection } from './raw-exchange.ts';
import type { ParsedHead } from './request-head-parser.ts';

/**
 * A connection that records what the exchange sends, one entry per send (one socket write), and
 * in `calls` the order of its sends (their first line) and response ends.
 */
function recordingConnection(closeAfter = false): RawExchangeConnection & { sends: string[]; calls: string[] } {
  const sends: string[] = [];
  const calls: string[] = [];
  return {
    sends,
    calls,
    remoteAddress: '127.0.0.1',
    keepAliveHintMs: 5_000,
    closeAfter,
    send(prefix, data, suffix) {
      const bytes = prefix + (data?.toString('latin1') ?? '') + suffix;
      sends.push(bytes);
      calls.push(`send ${bytes.split('\r\n')[0]}`);
      return true;
    },
    responseEnded: (_ex, close) => void calls.push(`ended close=${close}`),
    destroy: () => undefined,
  };
}

const head: ParsedHead = { kind: 'head', method: 'GET', target: '/ns/fn/', rawHeaders: ['Host', 't'], contentLength: 0, close: false, headBytes: 30 };

afterEach(() => vi.restoreAllMocks());

describe('RawExchange: end()', () => {
  it('a kept-alive response does the connection\'s bookkeeping first and writes last (work after a write delays the woken client)', () => {
    const conn = recordingConnection(false);
    const ex = new RawExchange(conn, head);
    ex.writeHead(200, undefined, ['content-length', '2']);
    ex.end(Buffer.from('ok'));
    expect(conn.calls).toEqual(['ended close=false', 'send HTTP/1.1 200 OK']);
  });

  it('a response after which the connection closes is written first, then ended (the close waits for the write)', () => {
    const conn = recordingConnection(true);
    const ex = new RawExchange(conn, head);
    ex.writeHead(200, undefined, ['content-length', '2']);
    ex.end(Buffer.from('ok'));
    expect(conn.calls).toEqual(['send HTTP/1.1 200 OK', 'ended close=true']);
  });
});

describe('RawExchange: when the response head leaves', () => {
  it('with its body in one write when the body comes in the same callback', async () => {
    const conn = recordingConnection();
    const ex = new RawExchange(conn, head);
    ex.writeHead(200, undefined, ['content-length', '2']);
    ex.end(Buffer.from('ok'));
    await nextTurn();
    expect(conn.sends).toHaveLength(1);
    expect(conn.sends[0]).toMatch(/^HTTP\/1\.1 200 OK\r\ncontent-length: 2\r\n[\s\S]*\r\n\r\nok$/);
  });

  it('written inside a socket read: with its body in one write when the body comes in the same read; alone, by the end of the turn, when it does not', async () => {
    const conn = recordingConnection();
    const withBody = new RawExchange(conn, head);
    const ticks = vi.spyOn(process, 'nextTick');
    handleRead(() => {
      withBody.writeHead(200, undefined, ['content-length', '2']);
      withBody.end(Buffer.from('ok'));
    }, Buffer.alloc(0));
    // The common response costs node no tick: the held-head check ran at the end of the read.
    expect(ticks).not.toHaveBeenCalled();
    ticks.mockRestore();
    expect(conn.sends).toHaveLength(1);
    expect(conn.sends[0]!.endsWith('\r\n\r\nok')).toBe(true);
    const streamed = new RawExchange(conn, head);
    handleRead(() => streamed.writeHead(200, undefined, ['content-type', 'text/event-stream']), Buffer.alloc(0));
    expect(conn.sends).toHaveLength(1);
    await nextTurn();
    expect(conn.sends).toHaveLength(2);
    expect(conn.sends[1]).toMatch(/^HTTP\/1\.1 200 OK\r\ncontent-type: text\/event-stream\r\n[\s\S]*\r\n\r\n$/);
  });

  it('with its body in one write when the body follows in a later microtask of the same turn', async () => {
    const conn = recordingConnection();
    const ex = new RawExchange(conn, head);
    ex.writeHead(200, undefined, ['content-length', '2']);
    await Promise.resolve();
    await Promise.resolve();
    ex.end(Buffer.from('ok'));
    await nextTurn();
    expect(conn.sends).toHaveLength(1);
    expect(conn.sends[0]!.endsWith('\r\n\r\nok')).toBe(true);
  });

  it('alone, by the end of the event-loop turn (before the next timers), when no body comes (a streamed response); the body follows in its own write', async () => {
    const conn = recordingConnection();
    const ex = new RawExchange(conn, head);
    ex.writeHead(200, undefined, ['content-type', 'text/event-stream']);
    expect(conn.sends).toHaveLength(0);
    await nextTurn();
    expect(conn.sends).toHaveLength(1);
    expect(conn.sends[0]).toMatch(/^HTTP\/1\.1 200 OK\r\ncontent-type: text\/event-stream\r\n[\s\S]*\r\n\r\n$/);
    ex.end(Buffer.from('data: x\n\n'));
    expect(conn.sends).toHaveLength(2);
    expect(conn.sends[1]).toBe('9\r\ndata: x\n\n\r\n0\r\n\r\n');
  });

  it('heads of several exchanges written in one callback: the ones with bodies go with them, the rest share one flush', async () => {
    const spy = vi.spyOn(globalThis, 'setImmediate');
    const conns = [recordingConnection(), recordingConnection(), recordingConnection()];
    const [a, b, c] = conns.map((conn) => new RawExchange(conn, head));
    a!.writeHead(200, undefined, ['content-length', '1']);
    b!.writeHead(200, undefined, ['content-type', 'text/event-stream']);
    c!.writeHead(200, undefined, ['content-type', 'text/event-stream']);
    a!.end(Buffer.from('a'));
    await nextTurn();
    expect(conns.map((conn) => conn.sends.length)).toEqual([1, 1, 1]);
    expect(spy.mock.calls.filter(([fn]) => fn.name === 'sendHeldHeads')).toHaveLength(1);
  });

  it('a head that left with its body costs no setImmediate (no extra turn of the event loop)', async () => {
    const spy = vi.spyOn(globalThis, 'setImmediate');
    const conn = recordingConnection();
    const ex = new RawExchange(conn, head);
    ex.writeHead(200, undefined, ['content-length', '2']);
    ex.end(Buffer.from('ok'));
    await new Promise((r) => process.nextTick(r));
    await nextTurn();
    expect(conn.sends).toHaveLength(1);
    expect(spy.mock.calls.filter(([fn]) => fn.name === 'sendHeldHeads')).toHaveLength(0);
  });
});
