import { pathToFileURL } from 'node:url';
import { resolveEntrypoint, type Handler } from './entrypoint.ts';
import { materializeSource, type FunctionSource, type MaterializeOptions } from './function-source.ts';
import { LoadError } from './load-error.ts';
import { importModule } from './module-import.ts';
import { registerTypeScriptLoader } from './typescript-loader.ts';
import { resolveGrpcExport, type GrpcMethods } from '../grpc/grpc-export.ts';
import { resolveWebSocketHandler, type WebSocketExport } from './websocket-export.ts';

export interface LoadedFunction {
  handler: Handler;
  /** The module's `websocket` export (websocket-export.ts), if any. */
  websocket?: WebSocketExport;
  /** The module's `grpc` export (grpc/grpc-export.ts), if any. */
  grpc?: GrpcMethods;
  /** The module file that was imported. */
  modulePath: string;
}

/**
 * Source → module file → import → handler. Shared by deploy mode (at start) and pool
 * mode (`/v1/specialize`), so both load code the same way and fail with the same codes.
 */
export async function loadFunction(
  spec: { source: FunctionSource; entrypoint?: string },
  opts: MaterializeOptions,
): Promise<LoadedFunction> {
  const modulePath = await materializeSource(spec.source, opts);
  let mod: Record<string, unknown>;
  const href = pathToFileURL(modulePath).href;
  try {
    // A file or URL may be TypeScript or import TypeScript next to it; inline code is one
    // JavaScript module with nothing beside it, so it never needs the (costly) loader.
    if (spec.source.inline === undefined) await registerTypeScriptLoader();
    mod = await importModule(href);
  } catch (err) {
    throw new LoadError('module_load_failed', `importing the function module failed: ${(err as Error).message ?? String(err)}`, { cause: err });
  }
  const where = spec.source.file ?? (spec.source.url ? 'the downloaded function module' : 'the inline function module');
  const websocket = resolveWebSocketHandler(mod, where);
  const grpc = resolveGrpcExport(mod, where);
  // A module that only speaks gRPC or WebSocket needs no fetch handler: plain requests get a 4xx that says how to call it.
  const onlyStreams = (grpc || websocket) && (spec.entrypoint ?? 'default') === 'default' && mod.default === undefined;
  const handler = onlyStreams ? plainRequestRefusal(grpc !== undefined, websocket !== undefined) : resolveEntrypoint(mod, spec.entrypoint, where);
  return { handler, websocket, grpc, modulePath };
}

/** The answer of a gRPC- or WebSocket-only function to a plain HTTP request: 415 not_grpc or 426 upgrade_required, naming the way in. */
export function plainRequestRefusal(grpc: boolean, websocket: boolean): Handler {
  const ways = [grpc && 'a gRPC client over h2c (docs/functions.md "gRPC functions")', websocket && 'a WebSocket handshake'].filter(Boolean).join(' or ');
  const [status, code] = grpc ? [415, 'not_grpc'] : [426, 'upgrade_required'];
  const body = JSON.stringify({ error: `this function exports no default (fetch) handler: call it with ${ways}`, code });
  return () => new Response(body, { status, headers: { 'content-type': 'application/json', ...(status === 426 ? { upgrade: 'websocket', connection: 'upgrade' } : {}) } });
}
