import { describe, expect, it } from 'vitest';
import { checkTransferEncoding, type TransferCodingCheck } from './transfer-coding.ts';

const plain = { http10: false, contentLength: false };
const verdict = (r: TransferCodingCheck): string => (r.ok ? (r.chunked ? 'chunked' : 'none') : `${r.status} ${r.code}`);
const check = (values: string[], opts = plain) => verdict(checkTransferEncoding(values, opts));

describe('checkTransferEncoding', () => {
  it('no header: no body framing of its own', () => {
    expect(check([])).toBe('none');
    expect(check([], { http10: true, contentLength: true })).toBe('none');
  });

  it('a single chunked, in any case, with OWS and empty list elements', () => {
    for (const v of ['chunked', 'Chunked', 'CHUNKED', ' chunked ', '\tchunked', ',chunked', 'chunked,', ', ,chunked, ,']) expect(check([v]), JSON.stringify(v)).toBe('chunked');
  });

  it('another coding before chunked: 501 unsupported_transfer_encoding', () => {
    for (const v of ['gzip, chunked', 'GZIP,chunked', 'deflate, chunked', 'compress, chunked', 'identity, chunked', 'x-custom, chunked', 'gzip;q=1, chunked', 'gzip, deflate, chunked']) {
      expect(check([v]), v).toBe('501 unsupported_transfer_encoding');
    }
    const r = checkTransferEncoding(['br, chunked'], plain);
    expect(r.ok === false && r.message).toContain('"br"');
  });

  it('malformed or ambiguous: 400 bad_transfer_encoding', () => {
    const cases: Array<[string[], typeof plain?]> = [
      [['chunked', 'chunked']], // two field lines
      [['gzip', 'chunked']], // two lines even if the list would make sense
      [['chunked, chunked']],
      [['chunked,chunked']],
      [['gzip, chunked, chunked']], // malformed wins over unsupported
      [['chunked, gzip']], // chunked not last
      [['gzip']], // no chunked: length cannot be determined
      [['identity']],
      [['']],
      [[' ']],
      [[',']],
      [['chunked;foo=bar']],
      [['chun ked']],
      [['chunked, "gzip"']],
      [['chunked/1']],
      [['@']],
      [['chunked'], { http10: true, contentLength: false }],
      [['chunked'], { http10: false, contentLength: true }],
    ];
    for (const [values, opts] of cases) expect(check(values, opts ?? plain), JSON.stringify([values, opts])).toBe('400 bad_transfer_encoding');
  });

  it('every answer is one of the three kinds, whatever the bytes', () => {
    const alphabet = ['chunked', 'gzip', ',', ' ', ';', 'a', '"', '\t', 'CHUNKED', '=', 'x'];
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    for (let i = 0; i < 2000; i++) {
      const lines = Array.from({ length: 1 + rand(2) }, () => Array.from({ length: rand(6) }, () => alphabet[rand(alphabet.length)]).join(''));
      const r = checkTransferEncoding(lines, { http10: rand(4) === 0, contentLength: rand(4) === 0 });
      if (r.ok) {
        expect(r.chunked).toBe(true);
        expect(lines).toHaveLength(1);
        expect(lines[0]!.toLowerCase().split(',').map((s) => s.trim()).filter(Boolean)).toEqual(['chunked']);
      } else {
        expect([400, 501]).toContain(r.status);
        expect(r.message.length).toBeGreaterThan(0);
      }
    }
  });
});
