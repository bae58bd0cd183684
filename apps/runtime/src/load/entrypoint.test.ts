import { describe, expect, it } from 'vitest';
import { resolveEntrypoint } from './entrypoint.ts';

const ok = async () => new Response('ok');

describe('resolveEntrypoint', () => {
  it('takes the default export unless told otherwise', () => {
    expect(resolveEntrypoint({ default: ok })).toBe(ok);
    const other = async () => new Response('other');
    expect(resolveEntrypoint({ default: ok, handler: other }, 'handler')).toBe(other);
  });

  it('names the available exports when the entrypoint is missing', () => {
    expect(() => resolveEntrypoint({ a: ok, b: 1 }, 'handler', 'counter.mjs')).toThrow(
      expect.objectContaining({ code: 'entrypoint_not_found', message: expect.stringMatching(/counter\.mjs has no export named "handler"; it exports "a", "b"/) }),
    );
    expect(() => resolveEntrypoint({})).toThrow(expect.objectContaining({ code: 'entrypoint_not_found', message: expect.stringContaining('exports nothing') }));
  });

  it('refuses a non-function export with its type', () => {
    expect(() => resolveEntrypoint({ default: 42 })).toThrow(expect.objectContaining({ code: 'entrypoint_not_function', message: expect.stringContaining('is number') }));
    expect(() => resolveEntrypoint({ default: null })).toThrow(expect.objectContaining({ code: 'entrypoint_not_function', message: expect.stringContaining('is null') }));
  });

  it('accepts an object with a fetch method, bound to the object', async () => {
    const mod = { default: { greeting: 'hi', async fetch(this: { greeting: string }) { return new Response(this.greeting); } } };
    const h = resolveEntrypoint(mod);
    expect(await (await h(new Request('http://x/'), {})).text()).toBe('hi');
  });

  it('walks dotted paths and CommonJS default objects', () => {
    expect(resolveEntrypoint({ handlers: { counter: ok } }, 'handlers.counter')).toBe(ok);
    expect(resolveEntrypoint({ default: { handler: ok } }, 'handler')).toBe(ok);
    expect(() => resolveEntrypoint({ default: ok }, 'a..b')).toThrow(expect.objectContaining({ code: 'entrypoint_not_found' }));
  });

  it('does not follow inherited properties', () => {
    expect(() => resolveEntrypoint({ default: ok }, 'toString')).toThrow(expect.objectContaining({ code: 'entrypoint_not_found' }));
  });
});
