import { pathToFileURL } from 'node:url';
import { resolveEntrypoint, type Handler } from './entrypoint.ts';
import { materializeSource, type FunctionSource, type MaterializeOptions } from './function-source.ts';
import { LoadError } from './load-error.ts';
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
    mod = (await import(href)) as Record<string, unknown>;
  } catch (err) {
    throw new LoadError('module_load_failed', `importing the function module failed: ${(err as Error).message ?? String(err)}`, { cause: err });
  }
  const where = spec.source.file ?? (spec.source.url ? 'the downloaded function module' : 'the inline function module');
  return { handler: resolveEntrypoint(mod, spec.entrypoint, where), websocket: resolveWebSocketHandler(mod, where), grpc: resolveGrpcExport(mod, where), modulePath };
}
