import { describe, expect, it } from 'vitest';
import { checkUpgradeRequest, upgradeProtocols } from './upgrade-request.ts';

const ws = ['Host', 'x', 'Connection', 'Upgrade', 'Upgrade', 'websocket', 'Sec-WebSocket-Key', 'dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Version', '13'];

describe('upgradeProtocols', () => {
  it('reads every Upgrade line as a lower-cased token list, in any case of the name', () => {
    expect(upgradeProtocols(['upgrade', 'WebSocket'])).toEqual(['websocket']);
    expect(upgradeProtocols(['UPGRADE', 'h2c, TLS/1.0 ,', 'X', 'y', 'Upgrade', 'websocket'])).toEqual(['h2c', 'tls/1.0', 'websocket']);
    expect(upgradeProtocols(['Upgrade-Insecure-Requests', '1'])).toEqual([]);
  });
});

describe('checkUpgradeRequest', () => {
  it('proxies a websocket handshake: GET, HTTP/1.1, no body (a zero Content-Length is no body)', () => {
    expect(checkUpgradeRequest('GET', '1.1', ws)).toBeUndefined();
    expect(checkUpgradeRequest('GET', '1.1', [...ws, 'Content-Length', '0'])).toBeUndefined();
    // A client offering several protocols gets websocket.
    expect(checkUpgradeRequest('GET', '1.1', ['Upgrade', 'h2c, WebSocket'])).toBeUndefined();
  });

  it('refuses other protocols with 400 upgrade_not_supported, naming what was asked', () => {
    for (const value of ['h2c', 'TLS/1.0', 'websocket2', 'web socket']) {
      const r = checkUpgradeRequest('GET', '1.1', ['Upgrade', value]);
      expect(r, value).toMatchObject({ status: 400, code: 'upgrade_not_supported' });
      expect(r!.message).toContain(value.toLowerCase());
    }
    expect(checkUpgradeRequest('GET', '1.1', ['Upgrade', ''])).toMatchObject({ code: 'upgrade_not_supported', message: expect.stringContaining('asked for nothing') });
  });

  it('points an h2c upgrade to prior knowledge, which the router serves', () => {
    expect(checkUpgradeRequest('GET', '1.1', ['Upgrade', 'h2c'])!.message).toContain('prior knowledge');
    expect(checkUpgradeRequest('GET', '1.1', ['Upgrade', 'TLS/1.0'])!.message).not.toContain('prior knowledge');
  });

  it('refuses a websocket handshake that is not a bodiless HTTP/1.1 GET with 400 bad_websocket_handshake', () => {
    expect(checkUpgradeRequest('POST', '1.1', ws)).toMatchObject({ status: 400, code: 'bad_websocket_handshake', message: expect.stringContaining('not POST') });
    expect(checkUpgradeRequest('GET', '1.0', ws)).toMatchObject({ code: 'bad_websocket_handshake', message: expect.stringContaining('HTTP/1.0') });
    expect(checkUpgradeRequest('GET', '1.1', [...ws, 'Content-Length', '5'])).toMatchObject({ code: 'bad_websocket_handshake', message: expect.stringContaining('no body') });
    expect(checkUpgradeRequest('GET', '1.1', [...ws, 'transfer-encoding', 'chunked'])).toMatchObject({ code: 'bad_websocket_handshake' });
  });
});
