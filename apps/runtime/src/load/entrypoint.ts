import { LoadError } from './load-error.ts';

/** The Web-standard handler contract: `(request, ctx) => Response`. */
export type Handler<Ctx = unknown> = (request: Request, ctx: Ctx) => Response | Promise<Response>;

/**
 * Picks the handler named by `entrypoint` out of an imported module namespace.
 * Accepts a function export, or an object with a `fetch(request, ctx)` method (the
 * Workers/Bun module style). `a.b` walks nested objects. CommonJS modules expose
 * their exports under `default`, so a name missing at the top level is looked up there too.
 */
export function resolveEntrypoint(mod: Record<string, unknown>, entrypoint = 'default', where = 'the function module'): Handler {
  const path = entrypoint.split('.');
  if (path.some((p) => p === '')) {
    throw new LoadError('entrypoint_not_found', `entrypoint "${entrypoint}" is not a valid export name (use e.g. "default" or "handler")`);
  }
  const lookup = (root: unknown): unknown =>
    path.reduce<unknown>((obj, key) => (obj !== null && (typeof obj === 'object' || typeof obj === 'function') && Object.hasOwn(obj, key) ? (obj as Record<string, unknown>)[key] : undefined), root);

  let value = lookup(mod);
  if (value === undefined && entrypoint !== 'default' && mod.default !== null && typeof mod.default === 'object') value = lookup(mod.default);
  if (value === undefined) {
    const names = Object.keys(mod);
    throw new LoadError(
      'entrypoint_not_found',
      `${where} has no export named "${entrypoint}"; it exports ${names.length ? names.map((n) => `"${n}"`).join(', ') : 'nothing'}. ` +
        'Export an async (request, ctx) => Response under that name, or set entrypoint to one of the exports.',
    );
  }
  if (typeof value === 'function') return value as Handler;
  if (value !== null && typeof value === 'object' && typeof (value as { fetch?: unknown }).fetch === 'function') {
    const target = value as { fetch: Handler };
    return (request, ctx) => target.fetch(request, ctx);
  }
  throw new LoadError(
    'entrypoint_not_function',
    `export "${entrypoint}" of ${where} is ${value === null ? 'null' : typeof value}, not a function; ` +
      'it must be an async (request, ctx) => Response (or an object with a fetch(request, ctx) method).',
  );
}
