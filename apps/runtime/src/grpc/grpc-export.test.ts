import { describe, expect, it } from 'vitest';
import { resolveGrpcExport } from './grpc-export.ts';

describe('resolveGrpcExport', () => {
  it('maps method names to paths and kinds, bound to their object', async () => {
    const say = { prefix: '>', unary(this: { prefix: string }, m: unknown) { return `${this.prefix}${String(m)}`; } };
    const methods = resolveGrpcExport({ grpc: { 'echo.Echo/Say': say, '/echo.Echo/Chat': { bidiStream: () => undefined } } })!;
    expect([...methods.keys()]).toEqual(['/echo.Echo/Say', '/echo.Echo/Chat']);
    expect(methods.get('/echo.Echo/Say')!.kind).toBe('unary');
    expect(methods.get('/echo.Echo/Chat')!.kind).toBe('bidiStream');
    expect(await methods.get('/echo.Echo/Say')!.fn('x', {})).toBe('>x');
  });

  it('takes a grpc property of the default export object, and is absent without either', () => {
    expect(resolveGrpcExport({ default: { grpc: { 'a.B/C': { unary: () => 1 } } } })!.has('/a.B/C')).toBe(true);
    expect(resolveGrpcExport({ default: () => 1 })).toBeUndefined();
  });

  it('refuses malformed exports with grpc_export_invalid, saying what is wrong', () => {
    const fails = (grpc: unknown, text: string) => expect(() => resolveGrpcExport({ grpc }, 'f.mjs')).toThrow(expect.objectContaining({ code: 'grpc_export_invalid', message: expect.stringContaining(text) }));
    fails(null, 'is null');
    fails([], 'is an array');
    fails({ Say: { unary: () => 1 } }, '"Say"');
    fails({ 'a.B/C': 3 }, 'maps a.B/C to number');
    fails({ 'a.B/C': {} }, 'none of unary');
    fails({ 'a.B/C': { unary: () => 1, bidiStream: () => 1 } }, 'unary and bidiStream');
    fails({ 'a.B/C': { unary: 'x' } }, 'a.B/C.unary as string');
  });
});
