import { describe, expect, it } from 'vitest';
import { checkRequestFraming } from './request-framing.ts';

const code = (raw: string[], version = '1.1') => checkRequestFraming(raw, version)?.code ?? 'ok';

describe('checkRequestFraming', () => {
  it('passes ordinary requests', () => {
    expect(code(['Host', 'a'])).toBe('ok');
    expect(code(['Host', 'a', 'Content-Length', '3'])).toBe('ok');
    expect(code(['Host', 'a', 'Transfer-Encoding', 'chunked'])).toBe('ok');
    expect(code(['host', 'a', 'X-Host', 'b', 'Hosts', 'c'])).toBe('ok');
    expect(code([], '1.0')).toBe('ok'); // HTTP/1.0 needs no Host (node checks HTTP/1.1)
  });

  it('more than one Host line: 400 duplicate_host, also when the values agree', () => {
    expect(code(['Host', 'a', 'Host', 'b'])).toBe('duplicate_host');
    expect(code(['Host', 'a', 'host', 'a'])).toBe('duplicate_host');
    expect(code(['HOST', 'a', 'X', 'y', 'hOsT', ''])).toBe('duplicate_host');
    expect(checkRequestFraming(['Host', 'a', 'Host', 'b'], '1.1')!.status).toBe(400);
  });

  it('Transfer-Encoding: the rules of transfer-coding.ts, by header name in any case', () => {
    expect(code(['Host', 'a', 'transfer-encoding', 'gzip, chunked'])).toBe('unsupported_transfer_encoding');
    expect(checkRequestFraming(['Host', 'a', 'Transfer-Encoding', 'gzip, chunked'], '1.1')!.status).toBe(501);
    expect(code(['Host', 'a', 'Transfer-Encoding', 'chunked, chunked'])).toBe('bad_transfer_encoding');
    expect(code(['Host', 'a', 'Transfer-Encoding', 'chunked', 'TRANSFER-ENCODING', 'chunked'])).toBe('bad_transfer_encoding');
    expect(code(['Host', 'a', 'Transfer-Encoding', 'chunked', 'Content-Length', '0'])).toBe('bad_transfer_encoding');
    expect(code(['Host', 'a', 'Transfer-Encoding', 'chunked'], '1.0')).toBe('bad_transfer_encoding');
    expect(code(['Host', 'a', 'Transfer-Encoding', ''])).toBe('bad_transfer_encoding');
  });

  it('a duplicate Host is reported before a Transfer-Encoding problem', () => {
    expect(code(['Host', 'a', 'Host', 'b', 'Transfer-Encoding', 'gzip, chunked'])).toBe('duplicate_host');
  });
});
