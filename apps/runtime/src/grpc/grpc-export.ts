/**
 * The module's `grpc` export (docs/functions.md "gRPC functions"): an object from method name
 * (`package.Service/Method`) to an object with exactly one of `unary`, `serverStream`,
 * `clientStream` or `bidiStream`. Also taken as a `grpc` property of the default export object.
 * Checked once at load, so a typo fails the deploy instead of every call. Pure.
 */
import { LoadError } from '../load/load-error.ts';

export const GRPC_KINDS = ['unary', 'serverStream', 'clientStream', 'bidiStream'] as const;
export type GrpcKind = (typeof GRPC_KINDS)[number];

export interface GrpcMethod {
  kind: GrpcKind;
  /** Called with (message or messages, call); bound to its method object. */
  fn: (input: unknown, call: unknown) => unknown;
}

/** Request path (`/package.Service/Method`) → method. */
export type GrpcMethods = ReadonlyMap<string, GrpcMethod>;

const NAME = /^\/?[A-Za-z_][\w.]*\/[A-Za-z_]\w*$/;

export function resolveGrpcExport(mod: Record<string, unknown>, where = 'the function module'): GrpcMethods | undefined {
  let value: unknown;
  if (Object.hasOwn(mod, 'grpc')) value = mod.grpc;
  else if (mod.default !== null && typeof mod.default === 'object' && Object.hasOwn(mod.default, 'grpc')) value = (mod.default as Record<string, unknown>).grpc;
  else return undefined;
  const bad = (why: string) =>
    new LoadError('grpc_export_invalid', `export "grpc" of ${where} ${why}; it must map 'package.Service/Method' to { unary | serverStream | clientStream | bidiStream: function } (docs/functions.md)`);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw bad(`is ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`);
  const out = new Map<string, GrpcMethod>();
  for (const [name, spec] of Object.entries(value as Record<string, unknown>)) {
    if (!NAME.test(name)) throw bad(`has the method name ${JSON.stringify(name)}, not package.Service/Method`);
    if (spec === null || typeof spec !== 'object') throw bad(`maps ${name} to ${spec === null ? 'null' : typeof spec}`);
    const kinds = GRPC_KINDS.filter((k) => Object.hasOwn(spec, k));
    if (kinds.length !== 1) throw bad(`gives ${name} ${kinds.length === 0 ? 'none' : kinds.join(' and ')} of unary, serverStream, clientStream, bidiStream (exactly one)`);
    const kind = kinds[0]!;
    const fn = (spec as Record<string, unknown>)[kind];
    if (typeof fn !== 'function') throw bad(`gives ${name}.${kind} as ${fn === null ? 'null' : typeof fn}, not a function`);
    out.set(name.startsWith('/') ? name : `/${name}`, { kind, fn: (input, call) => (fn as (a: unknown, b: unknown) => unknown).call(spec, input, call) });
  }
  return out;
}
