import { describe, expect, it } from 'vitest';
import { HTTP2_PREFACE, sniffProtocol, startsWithHttp2Preface } from './http2-preface.ts';

describe('startsWithHttp2Preface', () => {
  it('takes the whole preface, alone or followed by frames', () => {
    expect(startsWithHttp2Preface(HTTP2_PREFACE)).toBe(true);
    expect(startsWithHttp2Preface(Buffer.concat([HTTP2_PREFACE, Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0])]))).toBe(true);
  });

  it('takes a start of the preface of at least "PRI "', () => {
    expect(startsWithHttp2Preface(HTTP2_PREFACE.subarray(0, 4))).toBe(true);
    expect(startsWithHttp2Preface(HTTP2_PREFACE.subarray(0, 17))).toBe(true);
  });

  it('refuses HTTP/1.1 requests and too-short starts', () => {
    expect(startsWithHttp2Preface(Buffer.from('GET / HTTP/1.1\r\nHost: a\r\n\r\n'))).toBe(false);
    expect(startsWithHttp2Preface(Buffer.from('PRIX'))).toBe(false);
    expect(startsWithHttp2Preface(Buffer.from('PRI * HTTP/1.1\r\n'))).toBe(false);
    expect(startsWithHttp2Preface(Buffer.from('PRI'))).toBe(false);
    expect(startsWithHttp2Preface(Buffer.alloc(0))).toBe(false);
  });
});

describe('sniffProtocol', () => {
  it('knows the preface, whole or from "PRI " on', () => {
    expect(sniffProtocol(HTTP2_PREFACE)).toBe('h2');
    expect(sniffProtocol(Buffer.concat([HTTP2_PREFACE, Buffer.from([0, 0, 0, 4])]))).toBe('h2');
    expect(sniffProtocol(HTTP2_PREFACE.subarray(0, 4))).toBe('h2');
  });

  it('asks for more while a start is too short to tell', () => {
    expect(sniffProtocol(Buffer.from('P'))).toBe('more');
    expect(sniffProtocol(Buffer.from('PRI'))).toBe('more');
    expect(sniffProtocol(Buffer.alloc(0))).toBe('more');
  });

  it('calls anything else HTTP/1.1', () => {
    expect(sniffProtocol(Buffer.from('GET / HTTP/1.1\r\n'))).toBe('http1');
    expect(sniffProtocol(Buffer.from('POST'))).toBe('http1');
    expect(sniffProtocol(Buffer.from('PRI * HTTP/1.1'))).toBe('http1');
  });
});
