import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseUpstreamResponseHead, type UpstreamResponseHead } from './response-head-parser.ts';

function parse(text: string): UpstreamResponseHead {
  const head = parseUpstreamResponseHead(text);
  if (typeof head === 'string') throw new Error(`refused: ${head}`);
  return head;
}

const NODE_HEAD = 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 13\r\nDate: Sun, 06 Dec 2026 19:10:00 GMT\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5';

describe('parseUpstreamResponseHead', () => {
  it("reads a node server's response: status, end-to-end headers as sent, the length, a kept connection", () => {
    expect(parse(NODE_HEAD)).toEqual({
      status: 200,
      statusText: 'OK',
      headers: ['Content-Type', 'text/plain', 'Content-Length', '13', 'Date', 'Sun, 06 Dec 2026 19:10:00 GMT'],
      contentLength: 13,
      chunked: false,
      close: false,
      upgrade: undefined,
    });
  });

  it('takes out every hop-by-hop header whatever its case, and the names Connection lists', () => {
    const head = parse(
      'HTTP/1.1 201 Created\r\nTE: trailers\r\nTRAILER: x\r\nkeep-alive: timeout=5\r\nProxy-Connection: keep-alive\r\nProxy-Authenticate: Basic\r\nPROXY-AUTHORIZATION: x\r\nConnection: Keep-Alive, X-Drop\r\nx-drop: 1\r\nX-Keep: 2\r\nTransfer-Encoding: chunked\r\nUpgrade: h2c',
    );
    expect(head.headers).toEqual(['X-Keep', '2']);
    expect(head).toMatchObject({ status: 201, statusText: 'Created', chunked: true, contentLength: -1, close: false, upgrade: 'h2c' });
  });

  it('trims spaces and tabs around values, keeps a reason phrase with spaces, and an empty one', () => {
    expect(parse('HTTP/1.1 404 Not Found\r\nX-A: \t padded \t\r\nX-B:\r\nX-C:tight')).toMatchObject({ status: 404, statusText: 'Not Found', headers: ['X-A', 'padded', 'X-B', '', 'X-C', 'tight'] });
    expect(parse('HTTP/1.1 204\r\nX-A: 1')).toMatchObject({ status: 204, statusText: '' });
  });

  it('skips lines without a name or a colon, as the split-based parser did', () => {
    expect(parse('HTTP/1.1 200 OK\r\n: no name\r\nno colon here\r\nX-A: 1').headers).toEqual(['X-A', '1']);
  });

  it('refuses what is not HTTP/1.x', () => {
    expect(parseUpstreamResponseHead('HTTP/2 200')).toBe('not_http1');
    expect(parseUpstreamResponseHead('SSH-2.0-OpenSSH_9.2')).toBe('not_http1');
  });

  it('Content-Length: digits only, repeats must agree (the first is kept), chunked framing wins over it', () => {
    expect(parse('HTTP/1.1 200 OK\r\nContent-Length: 5\r\ncontent-length: 5').headers).toEqual(['Content-Length', '5']);
    expect(parseUpstreamResponseHead('HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6')).toBe('content_length');
    for (const bad of ['', '-1', '+5', '5 5', '0x10', '1e3', '1234567890123456']) expect(parseUpstreamResponseHead(`HTTP/1.1 200 OK\r\nContent-Length: ${bad}`)).toBe('content_length');
    expect(parse('HTTP/1.1 200 OK\r\nContent-Length: 123456789012345').contentLength).toBe(123456789012345);
    const chunked = parse('HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: gzip, chunked');
    expect(chunked).toMatchObject({ chunked: true, contentLength: -1, headers: [] });
  });

  it('a name that only looks like a framing header is an ordinary one (no case folding beyond A–Z)', () => {
    // "\r" | 0x20 is "-": a folding shortcut would read this as Content-Length.
    const head = parse('HTTP/1.1 200 OK\r\nContent\rLength: 99\r\nContent-Length: 2');
    expect(head.contentLength).toBe(2);
    expect(head.headers).toEqual(['Content\rLength', '99', 'Content-Length', '2']);
  });

  it('the connection: close on Connection: close; HTTP/1.0 only kept with keep-alive (and without close)', () => {
    expect(parse('HTTP/1.1 200 OK\r\nConnection: close').close).toBe(true);
    expect(parse('HTTP/1.1 200 OK\r\nConnection: Upgrade, CLOSE').close).toBe(true);
    expect(parse('HTTP/1.1 200 OK').close).toBe(false);
    expect(parse('HTTP/1.0 200 OK').close).toBe(true);
    expect(parse('HTTP/1.0 200 OK\r\nConnection: keep-alive').close).toBe(false);
    expect(parse('HTTP/1.0 200 OK\r\nConnection: keep-alive, close').close).toBe(true);
  });
});

/** The split-and-lower-case parser this one replaced, kept as the reference for the property below. */
function reference(text: string): UpstreamResponseHead | string {
  const lines = text.split('\r\n');
  const status = lines[0]!;
  if (!status.startsWith('HTTP/1.')) return 'not_http1';
  const http10 = status.charCodeAt(7) === 48;
  const headers: string[] = [];
  let contentLength = -1;
  let chunked = false;
  let close = false;
  let keepAlive = false;
  let upgrade: string | undefined;
  const listed: string[] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon);
    const value = line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '');
    switch (name.replace(/[A-Z]/g, (c) => c.toLowerCase())) {
      case 'content-length': {
        const n = /^\d{1,15}$/.test(value) ? Number(value) : NaN;
        if (Number.isNaN(n) || (contentLength >= 0 && n !== contentLength)) return 'content_length';
        if (contentLength < 0) headers.push(name, value);
        contentLength = n;
        continue;
      }
      case 'transfer-encoding':
        chunked = value.toLowerCase().includes('chunked');
        continue;
      case 'connection': {
        const v = value.toLowerCase();
        if (v.includes('close')) close = true;
        if (v.includes('keep-alive')) keepAlive = true;
        for (const t of v.split(',')) if (t.trim() && t.trim() !== 'close' && t.trim() !== 'keep-alive') listed.push(t.trim());
        continue;
      }
      case 'upgrade':
        upgrade = value;
        continue;
      case 'keep-alive':
      case 'proxy-connection':
      case 'te':
      case 'trailer':
      case 'proxy-authenticate':
      case 'proxy-authorization':
        continue;
      default:
        headers.push(name, value);
    }
  }
  let out = headers;
  if (chunked && contentLength >= 0) {
    out = out.filter((_, i, a) => (i % 2 === 0 ? a[i]!.toLowerCase() !== 'content-length' : a[i - 1]!.toLowerCase() !== 'content-length'));
    contentLength = -1;
  }
  out = out.filter((_, i, a) => !listed.includes((i % 2 === 0 ? a[i]! : a[i - 1]!).toLowerCase()));
  return { status: parseInt(status.slice(9, 12), 10), statusText: status.length > 13 ? status.slice(13) : '', headers: out, contentLength, chunked, close: close || (http10 && !keepAlive), upgrade };
}

describe('parseUpstreamResponseHead against the split-based reference', () => {
  const names = ['Content-Length', 'content-length', 'Transfer-Encoding', 'Connection', 'CONNECTION', 'Keep-Alive', 'Upgrade', 'TE', 'Trailer', 'Proxy-Connection', 'Proxy-Authenticate', 'Proxy-Authorization', 'Date', 'X-Drop', 'x-keep', 'Content-Type', 'Content\rLength', ''];
  const values = ['5', '6', '', ' 5 ', '-1', 'chunked', 'gzip, chunked', 'close', 'keep-alive', 'Keep-Alive', 'x-drop', 'close, x-drop', 'keep-alive, X-Keep', 'text/plain', '\tspaced\t', 'a:b'];
  const line = fc.oneof(
    fc.record({ name: fc.constantFrom(...names), value: fc.constantFrom(...values) }).map(({ name, value }) => `${name}:${value.startsWith(' ') ? '' : ' '}${value}`),
    fc.constantFrom('no colon', ':x', 'X-Odd;: y'),
  );
  const statusLine = fc.constantFrom('HTTP/1.1 200 OK', 'HTTP/1.0 200 OK', 'HTTP/1.1 101 Switching Protocols', 'HTTP/1.1 204', 'HTTP/2 200', 'HTTP/1.1 500 Internal Server Error');

  it('agrees on every head built from framing, hop-by-hop and ordinary lines', () => {
    fc.assert(
      fc.property(statusLine, fc.array(line, { maxLength: 8 }), (status, lines) => {
        const text = [status, ...lines].join('\r\n');
        expect(parseUpstreamResponseHead(text)).toEqual(reference(text));
      }),
      { numRuns: 3000 },
    );
  });
});
