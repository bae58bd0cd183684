import { LoadError } from './load-error.ts';

/** `(socket, request, ctx) => void` in the handler's own terms (function-context.ts types it for the runtime). */
export type WebSocketExport<Socket = unknown, Ctx = unknown> = (socket: Socket, request: Request, ctx: Ctx) => void | Promise<void>;

/**
 * The module's WebSocket handler, if it has one: a function exported as `websocket`, or a
 * `websocket` method of the default export object (`export default { fetch, websocket }`, the
 * Workers/Bun module style; bound to that object). undefined when the module has neither — its
 * WebSocket handshakes are then refused with 400 `websocket_not_supported`. Pure.
 */
export function resolveWebSocketHandler(mod: Record<string, unknown>, where = 'the function module'): WebSocketExport | undefined {
  let owner: object | undefined;
  let value: unknown;
  if (Object.hasOwn(mod, 'websocket')) {
    value = mod.websocket;
  } else if (mod.default !== null && typeof mod.default === 'object' && Object.hasOwn(mod.default, 'websocket')) {
    owner = mod.default;
    value = (mod.default as Record<string, unknown>).websocket;
  } else {
    return undefined;
  }
  if (typeof value !== 'function') {
    throw new LoadError(
      'websocket_not_function',
      `export "websocket" of ${where} is ${value === null ? 'null' : typeof value}, not a function; ` +
        'it must be a (socket, request, ctx) => void called for each WebSocket connection (or remove the export).',
    );
  }
  const fn = value as WebSocketExport;
  return owner === undefined ? fn : (socket, request, ctx) => fn.call(owner, socket, request, ctx);
}
