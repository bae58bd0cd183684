import { describe, expect, it } from 'vitest';
import { INCOMPLETE, MAX_HEAD_BYTES, MAX_HEADER_LINES, parseRequestHead, type HandoverReason, type ParsedHead } from './request-head-parser.ts';

const b = (s: string): Buffer => Buffer.from(s, 'latin1');

function head(s: string): ParsedHead {
  const r = parseRequestHead(b(s));
  if (r.kind !== 'head') throw new Error(`expected a head, got ${JSON.stringify(r)}`);
  return r;
}

describe('parseRequestHead: the common request', () => {
  it('parses a GET with its raw headers, in order and with their case', () => {
    const text = 'GET /default/fn/a/b?c=d&e=%20f HTTP/1.1\r\nHost: example.test\r\nX-Custom: yes\r\nx-custom: again\r\n\r\n';
    expect(head(text)).toEqual({
      kind: 'head',
      method: 'GET',
      target: '/default/fn/a/b?c=d&e=%20f',
      rawHeaders: ['Host', 'example.test', 'X-Custom', 'yes', 'x-custom', 'again'],
      contentLength: 0,
      close: false,
      headBytes: text.length,
    });
  });

  it('accepts every plain method', () => {
    for (const m of ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) expect(head(`${m} / HTTP/1.1\r\nhost: x\r\n\r\n`).method).toBe(m);
  });

  it('trims optional whitespace around values (as node does) and keeps inner whitespace, tabs, obs-text and empty values', () => {
    const r = head('GET / HTTP/1.1\r\nHost:x\r\nA:   padded  \t\r\nB:\tin  side\r\nC:\r\nD: caf\xe9\r\nE:  \r\n\r\n');
    expect(r.rawHeaders).toEqual(['Host', 'x', 'A', 'padded', 'B', 'in  side', 'C', '', 'D', 'caf\xe9', 'E', '']);
  });

  it('reads a Content-Length body size, leading zeros and padding included', () => {
    expect(head('POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\n').contentLength).toBe(11);
    expect(head('POST /x HTTP/1.1\r\nHost: x\r\ncontent-length:  007 \r\n\r\n').contentLength).toBe(7);
    expect(head('POST /x HTTP/1.1\r\nHost: x\r\nCONTENT-LENGTH: 0\r\n\r\n').contentLength).toBe(0);
    expect(head('GET /x HTTP/1.1\r\nHost: x\r\n\r\n').contentLength).toBe(0);
  });

  it('notes Connection: close, in any case and among other tokens', () => {
    expect(head('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n').close).toBe(true);
    expect(head('GET / HTTP/1.1\r\nHost: x\r\nconnection: x-secret, CLOSE\r\n\r\n').close).toBe(true);
    expect(head('GET / HTTP/1.1\r\nHost: x\r\nConnection: keep-alive, x-secret\r\n\r\n').close).toBe(false);
    expect(head('GET / HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\nConnection: close\r\n\r\n').close).toBe(true);
  });

  it('stops at the end of the head: a body or the next pipelined request follows', () => {
    const first = 'POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\n';
    const second = 'GET /b HTTP/1.1\r\nHost: x\r\n\r\n';
    const buf = b(`${first}abc${second}${second}`);
    const r1 = parseRequestHead(buf) as ParsedHead;
    expect(r1.headBytes).toBe(first.length);
    expect(r1.contentLength).toBe(3);
    const r2 = parseRequestHead(buf.subarray(first.length + 3)) as ParsedHead;
    expect(r2).toMatchObject({ kind: 'head', method: 'GET', target: '/b', headBytes: second.length });
    expect((parseRequestHead(buf.subarray(first.length + 3 + second.length)) as ParsedHead).target).toBe('/b');
  });
});

describe('parseRequestHead: everything else is handed over to node', () => {
  const cases: Array<[HandoverReason, string]> = [
    ['method', 'get / HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['method', 'FOO / HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['method', 'CONNECT example.test:443 HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['method', 'TRACE / HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['method', 'PROPFIND / HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['method', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'],
    ['method', '\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['method', ' GET / HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['method', '\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03'],
    ['target', 'GET http://example.test/ HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['target', 'OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['target', 'GET  / HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['target', 'GET /a#frag HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['target', 'GET /a|b HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['target', 'GET /a\tb HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['target', 'GET /caf\xe9 HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['target', 'GET /a\r\nHost: x\r\n\r\n'],
    ['version', 'GET / HTTP/1.0\r\nHost: x\r\n\r\n'],
    ['version', 'GET / HTTP/2.0\r\nHost: x\r\n\r\n'],
    ['version', 'GET / http/1.1\r\nHost: x\r\n\r\n'],
    ['version', 'GET / HTTP/1.1 \r\nHost: x\r\n\r\n'],
    ['version', 'GET / HTTP/1.10\r\nHost: x\r\n\r\n'],
    ['line_ending', 'GET / HTTP/1.1\nHost: x\n\n'],
    ['line_ending', 'GET / HTTP/1.1\r\nHost: x\n\r\n'],
    ['line_ending', 'GET / HTTP/1.1\r\nHost: x\r\n\n'],
    ['line_ending', 'GET / HTTP/1.1\r\nHost: x\r\n\rX'],
    ['line_ending', 'GET / HTTP/1.1\r\nHost: x\rY: z\r\n\r\n'],
    ['line_ending', 'GET / HTTP/1.1\r\nHost: x\r\nBroken\r\n\r\n'],
    ['line_ending', 'GET / HTTP/1.1\r\nHost: x\r\nA: b\nc\r\n\r\n'],
    ['header_name', 'GET / HTTP/1.1\r\nHost: x\r\nA B: c\r\n\r\n'],
    ['header_name', 'GET / HTTP/1.1\r\nHost : x\r\n\r\n'],
    ['header_name', 'GET / HTTP/1.1\r\nHost: x\r\n: empty\r\n\r\n'],
    ['header_name', 'GET / HTTP/1.1\r\nHost: x\r\nA(b): c\r\n\r\n'],
    ['header_name', 'GET / HTTP/1.1\r\nHost: x\r\nA\xe9: c\r\n\r\n'],
    ['header_value', 'GET / HTTP/1.1\r\nHost: x\r\nA: b\x00c\r\n\r\n'],
    ['header_value', 'GET / HTTP/1.1\r\nHost: x\r\nA: b\x7fc\r\n\r\n'],
    ['header_value', 'GET / HTTP/1.1\r\nHost: x\r\nA: b\x1bc\r\n\r\n'],
    ['obs_fold', 'GET / HTTP/1.1\r\nHost: x\r\nA: b\r\n c\r\n\r\n'],
    ['obs_fold', 'GET / HTTP/1.1\r\nHost: x\r\nA: b\r\n\tc\r\n\r\n'],
    ['obs_fold', 'GET / HTTP/1.1\r\n Host: x\r\n\r\n'],
    ['host', 'GET / HTTP/1.1\r\n\r\n'],
    ['host', 'GET / HTTP/1.1\r\nX-Host: x\r\n\r\n'],
    ['host', 'GET / HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n'],
    ['content_length', 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc'],
    ['content_length', 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd'],
    ['content_length', 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3, 3\r\n\r\nabc'],
    ['content_length', 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n'],
    ['content_length', 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: +3\r\n\r\nabc'],
    ['content_length', 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0x10\r\n\r\n'],
    ['content_length', 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3 3\r\n\r\n'],
    ['content_length', 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length:\r\n\r\n'],
    ['content_length', 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1234567890123456\r\n\r\n'],
    ['transfer_encoding', 'POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n'],
    ['transfer_encoding', 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\ntransfer-encoding: chunked\r\n\r\n'],
    ['transfer_encoding', 'POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: identity\r\n\r\n'],
    ['upgrade', 'GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n'.replace('Connection: Upgrade\r\n', '')],
    ['connection', 'GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n'],
    ['connection', 'GET / HTTP/1.1\r\nHost: x\r\nConnection: keep alive\r\n\r\n'],
    ['connection', 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close;x\r\n\r\n'],
    ['expect', 'POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n'],
  ];
  for (const [reason, text] of cases) {
    it(`${reason}: ${JSON.stringify(text.slice(0, 60))}`, () => {
      expect(parseRequestHead(b(text))).toEqual({ kind: 'handover', reason });
    });
  }

  it('too_large: a head of 16 KiB or more, complete or not', () => {
    const start = 'GET / HTTP/1.1\r\nHost: x\r\nX-Pad: ';
    const fits = start + 'a'.repeat(MAX_HEAD_BYTES - 1 - start.length - 4) + '\r\n\r\n';
    expect(fits.length).toBe(MAX_HEAD_BYTES - 1);
    expect(parseRequestHead(b(fits)).kind).toBe('head');
    const over = start + 'a'.repeat(MAX_HEAD_BYTES - start.length - 4) + '\r\n\r\n';
    expect(parseRequestHead(b(over))).toEqual({ kind: 'handover', reason: 'too_large' });
    // No end in sight within the limit: node's to judge (it answers 431).
    expect(parseRequestHead(b(start + 'a'.repeat(MAX_HEAD_BYTES)))).toEqual({ kind: 'handover', reason: 'too_large' });
    expect(parseRequestHead(b('GET /' + 'a'.repeat(MAX_HEAD_BYTES)))).toEqual({ kind: 'handover', reason: 'too_large' });
    expect(parseRequestHead(b(start + 'a'.repeat(MAX_HEAD_BYTES - 100)))).toBe(INCOMPLETE);
  });

  it('too_many_headers', () => {
    const lines = Array.from({ length: MAX_HEADER_LINES }, (_, i) => `X-${i}: v\r\n`).join('');
    expect(parseRequestHead(b(`GET / HTTP/1.1\r\nHost: x\r\n${lines}\r\n`))).toEqual({ kind: 'handover', reason: 'too_many_headers' });
    expect(parseRequestHead(b(`GET / HTTP/1.1\r\n${lines.slice(lines.indexOf('\n') + 1)}Host: x\r\n\r\n`)).kind).toBe('head');
  });
});

describe('parseRequestHead: split across packets', () => {
  const valid = [
    'GET /default/fn/ HTTP/1.1\r\nHost: example.test\r\n\r\n',
    'POST /default/fn/x?y=1 HTTP/1.1\r\nHost: example.test\r\nContent-Length: 5\r\nX-A:  b \r\nConnection: close\r\n\r\nhello',
    'OPTIONS /a HTTP/1.1\r\nhost:x\r\nE:\r\n\r\nGET /next HTTP/1.1\r\nHost: y\r\n\r\n',
  ];
  it('is incomplete at every byte offset before the blank line, and the same head from there on', () => {
    for (const text of valid) {
      const full = b(text);
      const whole = parseRequestHead(full) as ParsedHead;
      expect(whole.kind).toBe('head');
      for (let cut = 0; cut < full.length; cut++) {
        const r = parseRequestHead(full.subarray(0, cut));
        if (cut < whole.headBytes) expect(r, `cut at ${cut}`).toBe(INCOMPLETE);
        else expect(r, `cut at ${cut}`).toEqual(whole);
      }
    }
  });

  it('an invalid head is incomplete until its bad byte arrives, then handed over for the same reason', () => {
    const invalid = ['GET / HTTP/1.1\r\nHost: x\r\nA: b\r\n c\r\n\r\n', 'GET / HTTP/1.1\nHost: x\n\n', 'GET / HTTP/1.1\r\nHost: x\r\nA: b\x00\r\n\r\n', 'get / HTTP/1.1\r\n\r\n', 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\ncontent-length: 1\r\n\r\nab'];
    for (const text of invalid) {
      const full = b(text);
      const final = parseRequestHead(full);
      expect(final.kind).toBe('handover');
      let seen = false;
      for (let cut = 0; cut <= full.length; cut++) {
        const r = parseRequestHead(full.subarray(0, cut));
        if (r.kind === 'handover') {
          expect(r, `cut at ${cut}`).toEqual(final);
          seen = true;
        } else {
          expect(seen, `cut at ${cut} went back to ${r.kind}`).toBe(false);
          expect(r).toBe(INCOMPLETE);
        }
      }
    }
  });
});
