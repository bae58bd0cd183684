import { describe, expect, it } from 'vitest';
import { scanRequestHead } from './request-head.ts';

describe('headers only the router says', () => {
  it('a client-sent Orrery-Invocation-Id never reaches a worker, in any letter case, however often sent', () => {
    const head = scanRequestHead(
      ['Host', 'x', 'Orrery-Invocation-Id', '0123456789abcdef0123456789abcdef', 'content-type', 'text/plain', 'orrery-invocation-id', 'forged', 'ORRERY-INVOCATION-ID', 'again'],
      undefined,
    );
    expect(head.forward).toEqual(['content-type', 'text/plain']);
  });

  it('nor a client-sent X-Orrery-Key-Moved; other Orrery-* headers pass (the worker may want the tag)', () => {
    const head = scanRequestHead(['X-Orrery-Key-Moved', '1', 'Orrery-Tag', 'canary', 'Orrery-Invocation', 'not the header'], undefined);
    expect(head.forward).toEqual(['Orrery-Tag', 'canary', 'Orrery-Invocation', 'not the header']);
    expect(head.tag).toBe('canary');
  });

  it('nor a client-sent Orrery-Router-Cannot-Resend, in any letter case (it would make a draining worker run the request)', () => {
    const head = scanRequestHead(['Orrery-Router-Cannot-Resend', '1', 'content-length', '3', 'ORRERY-ROUTER-CANNOT-RESEND', '1'], undefined);
    expect(head.forward).toEqual(['content-length', '3']);
  });
});

describe('Connection', () => {
  it('is never forwarded; the names it lists are dropped, in any case, and keep-alive or close alone drops nothing else', () => {
    const raw = ['Host', 'x', 'Keep-Alive', 'timeout=5', 'X-Hop', '1', 'x-end', '2'];
    expect(scanRequestHead([...raw, 'Connection', 'keep-alive'], undefined).forward).toEqual(['X-Hop', '1', 'x-end', '2']);
    expect(scanRequestHead([...raw, 'Connection', 'Keep-Alive'], undefined).forward).toEqual(['X-Hop', '1', 'x-end', '2']);
    expect(scanRequestHead([...raw, 'Connection', 'close'], undefined).forward).toEqual(['X-Hop', '1', 'x-end', '2']);
    expect(scanRequestHead([...raw, 'Connection', 'keep-alive, x-hop'], undefined).forward).toEqual(['x-end', '2']);
    expect(scanRequestHead(['Connection', 'X-HOP', ...raw, 'connection', 'X-End'], undefined).forward).toEqual([]);
  });
});
