import { describe, expect, it } from 'vitest';
import { refuseHandshake, type HandshakeFacts } from './handshake-refusal.ts';

const ok: HandshakeFacts = { runtimePath: false, draining: false, specialized: true, hasWebSocketHandler: true, functionName: 'default/echo', upgrade: 'websocket' };

describe('refuseHandshake', () => {
  it('takes a websocket upgrade to a function with a handler, in any case of the token', () => {
    expect(refuseHandshake(ok)).toBeUndefined();
    expect(refuseHandshake({ ...ok, upgrade: 'WebSocket' })).toBeUndefined();
    expect(refuseHandshake({ ...ok, upgrade: ' websocket ' })).toBeUndefined();
  });

  it('answers each reason with its own status and code, in this order', () => {
    const cases: Array<[Partial<HandshakeFacts>, number, string]> = [
      [{ runtimePath: true, draining: true }, 404, 'not_found'],
      [{ draining: true, specialized: false }, 503, 'draining'],
      [{ specialized: false, upgrade: 'h2c' }, 503, 'not_specialized'],
      [{ upgrade: 'h2c', hasWebSocketHandler: false }, 400, 'upgrade_not_supported'],
      [{ upgrade: 'websocket, h2c' }, 400, 'upgrade_not_supported'],
      [{ upgrade: undefined }, 400, 'upgrade_not_supported'],
      [{ hasWebSocketHandler: false }, 400, 'websocket_not_supported'],
    ];
    for (const [facts, status, code] of cases) expect(refuseHandshake({ ...ok, ...facts }), JSON.stringify(facts)).toMatchObject({ status, code });
  });

  it('says what was asked and which function lacks a handler', () => {
    expect(refuseHandshake({ ...ok, upgrade: 'h2c' })?.error).toContain('asked for h2c');
    expect(refuseHandshake({ ...ok, hasWebSocketHandler: false })?.error).toContain('function default/echo does not take WebSocket connections');
  });
});
