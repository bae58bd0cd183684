import { describe, expect, it } from 'vitest';
import { resolveWebSocketHandler } from './websocket-export.ts';

const fetch = async () => new Response('ok');

describe('resolveWebSocketHandler', () => {
  it('takes a named websocket export', () => {
    const websocket = () => undefined;
    expect(resolveWebSocketHandler({ default: fetch, websocket })).toBe(websocket);
  });

  it('takes the websocket method of a default export object, bound to it', async () => {
    const mod = {
      default: {
        greeting: 'hi',
        fetch,
        websocket(this: { greeting: string }, socket: string[]) {
          socket.push(this.greeting);
        },
      },
    };
    const h = resolveWebSocketHandler(mod)!;
    const sent: string[] = [];
    await h(sent, new Request('http://x/'), {});
    expect(sent).toEqual(['hi']);
  });

  it('the named export wins over the default object', () => {
    const named = () => undefined;
    expect(resolveWebSocketHandler({ websocket: named, default: { websocket: () => 1 } })).toBe(named);
  });

  it('is undefined for a module without one (its handshakes are refused)', () => {
    expect(resolveWebSocketHandler({ default: fetch })).toBeUndefined();
    expect(resolveWebSocketHandler({ default: { fetch } })).toBeUndefined();
    expect(resolveWebSocketHandler({})).toBeUndefined();
  });

  it('refuses a websocket export that is not a function, naming its type', () => {
    expect(() => resolveWebSocketHandler({ default: fetch, websocket: { open() {} } }, 'ws.mjs')).toThrow(
      expect.objectContaining({ code: 'websocket_not_function', message: expect.stringContaining('export "websocket" of ws.mjs is object') }),
    );
    expect(() => resolveWebSocketHandler({ default: { websocket: null } })).toThrow(expect.objectContaining({ code: 'websocket_not_function', message: expect.stringContaining('is null') }));
  });

  it('does not follow inherited properties', () => {
    expect(resolveWebSocketHandler({ default: Object.create({ websocket: () => 1 }) as object })).toBeUndefined();
  });
});
