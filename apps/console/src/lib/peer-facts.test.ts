import { describe, expect, it } from 'vitest';
import { peerFacts } from './peer-facts.ts';

const NONCE = 'c0ffee'.repeat(5);

describe('peerFacts', () => {
  it("reads the console server's header", () => {
    expect(peerFacts(`${NONCE} 10.0.0.5 0`, NONCE)).toEqual({ address: '10.0.0.5', tls: false });
    expect(peerFacts(`${NONCE} ::1 1`, NONCE)).toEqual({ address: '::1', tls: true });
  });
  it.each([
    ['a wrong nonce (a client writing the header itself)', `${'0'.repeat(30)} 10.0.0.5 0`, NONCE],
    ['no nonce configured (next start without the console server)', `${NONCE} 10.0.0.5 0`, undefined],
    ['no header', null, NONCE],
    ['a bad tls field', `${NONCE} 10.0.0.5 yes`, NONCE],
    ['extra fields', `${NONCE} 10.0.0.5 0 x`, NONCE],
    ['no address', `${NONCE}  0`, NONCE],
  ])('ignores %s', (_what, value, nonce) => {
    expect(peerFacts(value, nonce)).toBeUndefined();
  });
});
