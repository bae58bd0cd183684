import { afterEach, describe, expect, it, vi } from 'vitest';
import { httpDate } from './http-date.ts';
import { buildResponseHead, InvalidResponseHeadError, type ResponseFraming, type ResponseHeadContext } from './response-head.ts';

const ctx: ResponseHeadContext = { headRequest: false, keepAlive: true, keepAliveTimeoutMs: 65_000, date: 'Tue, 01 Dec 2026 10:00:00 GMT' };
function build(status: number, headers: string[], over: Partial<ResponseHeadContext> = {}, statusText?: string): { head: string; framing: ResponseFraming } {
  const framing: ResponseFraming = { chunked: false, hasBody: false, close: false };
  return { head: buildResponseHead(status, statusText, headers, { ...ctx, ...over }, framing), framing };
}

describe('buildResponseHead (node-compatible framing)', () => {
  it('keeps a given Content-Length and adds Date and keep-alive', () => {
    expect(build(200, ['content-type', 'text/plain', 'content-length', '5'])).toEqual({
      head: 'HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 5\r\nDate: Tue, 01 Dec 2026 10:00:00 GMT\r\nConnection: keep-alive\r\nKeep-Alive: timeout=65\r\n\r\n',
      framing: { chunked: false, hasBody: true, close: false },
    });
  });

  it('chunks a body without a length; none for HEAD, 1xx, 204, 304', () => {
    expect(build(200, []).head).toContain('Transfer-Encoding: chunked\r\n');
    expect(build(200, []).framing).toEqual({ chunked: true, hasBody: true, close: false });
    for (const [status, over] of [[200, { headRequest: true }], [204, {}], [304, {}], [103, {}]] as const) {
      const r = build(status, [], over);
      expect(r.head).not.toContain('Transfer-Encoding');
      expect(r.framing).toEqual({ chunked: false, hasBody: false, close: false });
    }
    expect(build(200, ['content-length', '9'], { headRequest: true }).head).toContain('content-length: 9\r\n');
  });

  it('says Connection: close (no Keep-Alive) when the connection closes after the response', () => {
    const r = build(200, ['content-length', '0'], { keepAlive: false });
    expect(r.head).toContain('Connection: close\r\n');
    expect(r.head).not.toContain('Keep-Alive');
    expect(r.framing.close).toBe(true);
  });

  it('uses the given status text, else the standard one, else "unknown"', () => {
    expect(build(200, [], {}, 'Fine').head.startsWith('HTTP/1.1 200 Fine\r\n')).toBe(true);
    expect(build(503, []).head.startsWith('HTTP/1.1 503 Service Unavailable\r\n')).toBe(true);
    expect(build(599, []).head.startsWith('HTTP/1.1 599 unknown\r\n')).toBe(true);
  });

  it('does not add Date when one is given', () => {
    const r = build(200, ['Date', 'x', 'content-length', '0']);
    expect(r.head.match(/date:/gi)).toHaveLength(1);
  });

  it('throws, as node does, on names or values that are not valid HTTP (no response splitting)', () => {
    for (const headers of [['x-a', 'b\r\nX-Injected: 1'], ['x-a', 'b\nc'], ['x-a', 'b\x00'], ['x a', 'b'], ['x-a:', 'b'], ['', 'b'], ['x-a']]) {
      expect(() => build(200, headers)).toThrow(InvalidResponseHeadError);
    }
    expect(() => build(200, [], {}, 'OK\r\nX: y')).toThrow(InvalidResponseHeadError);
    expect(() => build(42, [])).toThrow(InvalidResponseHeadError);
    expect(build(200, ['x-a', 'tab\there, caf\xe9']).head).toContain('x-a: tab\there, caf\xe9\r\n');
  });
});

describe('httpDate', () => {
  it('formats as node does and changes once a second', () => {
    expect(httpDate(Date.UTC(2026, 11, 1, 10, 0, 0, 5))).toBe('Tue, 01 Dec 2026 10:00:00 GMT');
    expect(httpDate(Date.UTC(2026, 11, 1, 10, 0, 0, 999))).toBe('Tue, 01 Dec 2026 10:00:00 GMT');
    expect(httpDate(Date.UTC(2026, 11, 1, 10, 0, 1, 0))).toBe('Tue, 01 Dec 2026 10:00:01 GMT');
  });

  afterEach(() => vi.useRealTimers());

  it('without an argument keeps the value until the next whole second, then reads the clock again', () => {
    vi.useFakeTimers();
    vi.setSystemTime(Date.UTC(2026, 11, 1, 10, 0, 0, 500));
    expect(httpDate()).toBe('Tue, 01 Dec 2026 10:00:00 GMT');
    vi.advanceTimersByTime(499);
    expect(httpDate()).toBe('Tue, 01 Dec 2026 10:00:00 GMT');
    vi.advanceTimersByTime(1);
    expect(httpDate()).toBe('Tue, 01 Dec 2026 10:00:01 GMT');
    vi.advanceTimersByTime(61_000);
    expect(httpDate()).toBe('Tue, 01 Dec 2026 10:01:02 GMT');
  });
});
