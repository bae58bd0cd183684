import type { Resource, ResourceKind } from '@orrery/spec';
import { type ListResult, type ResourceStore, StoreError, type StoreErrorCode, type WatchEvent } from '../types.ts';
import { STORE_PREFIX } from './routes.ts';

export interface HttpStoreOptions {
  token?: string;
  /** Delay before a dropped watch reconnects (resuming from the last event). */
  reconnectMs?: number;
}

/**
 * The ResourceStore interface over another process's store HTTP surface. Watches resume after a
 * dropped connection from the last resourceVersion they delivered, so consumers see no gap.
 */
export function createHttpStore(baseUrl: string, opts: HttpStoreOptions = {}): ResourceStore {
  const base = baseUrl.replace(/\/$/, '') + STORE_PREFIX;
  const headers = (extra: Record<string, string> = {}) => ({
    ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
    ...extra,
  });
  const path = (...parts: string[]) => base + parts.map(encodeURIComponent).join('/');

  async function call<T>(url: string, init: RequestInit = {}): Promise<T> {
    let res: Response;
    try {
      res = await fetch(url, { ...init, headers: headers(init.headers as Record<string, string>) });
    } catch (err) {
      throw new StoreError('unavailable', `store at ${baseUrl} unreachable: ${(err as Error).message}`);
    }
    const body = (await res.json().catch(() => ({}))) as { code?: StoreErrorCode; error?: string; details?: never };
    if (!res.ok) throw new StoreError(body.code ?? 'unavailable', body.error ?? `store answered ${res.status}`, body.details);
    return body as T;
  }

  const rvHeader = (rv?: string): Record<string, string> => (rv ? { 'if-match': rv } : {});

  const list: ResourceStore['list'] = (kind, o = {}) => {
    const q = new URLSearchParams();
    if (o.namespace) q.set('namespace', o.namespace);
    for (const [k, v] of Object.entries(o.labels ?? {})) q.append('label', `${k}=${v}`);
    return call<ListResult>(`${path(kind)}?${q}`);
  };

  return {
    list,
    get: async (kind, namespace, name) => {
      try {
        return await call<Resource>(path(kind, namespace, name));
      } catch (err) {
        if (err instanceof StoreError && err.code === 'not_found') return undefined;
        throw err;
      }
    },
    apply: (obj, o = {}) =>
      call<Resource>(`${path('apply')}${o.force ? '?force=true' : ''}`, { method: 'POST', body: JSON.stringify(obj), headers: { 'content-type': 'application/json', ...rvHeader(o.resourceVersion) } }),
    updateStatus: (kind, namespace, name, status, o = {}) =>
      call<Resource>(path(kind, namespace, name, 'status'), { method: 'PUT', body: JSON.stringify(status), headers: { 'content-type': 'application/json', ...rvHeader(o.resourceVersion) } }),
    delete: async (kind, namespace, name, o = {}) =>
      (await call<{ deleted: boolean }>(path(kind, namespace, name), { method: 'DELETE', headers: rvHeader(o.resourceVersion) })).deleted,
    watch(kind: ResourceKind, o, onEvent: (e: WatchEvent) => void) {
      let cursor = o.sinceResourceVersion;
      let stopped = false;
      let controller = new AbortController();
      let finish!: () => void;
      let fail!: (e: unknown) => void;
      const done = new Promise<void>((res, rej) => {
        finish = res;
        fail = rej;
      });
      done.catch(() => {});

      const run = async () => {
        while (!stopped) {
          try {
            // Without a cursor, start from "now" as reported by a list, so reconnects can resume.
            if (cursor === undefined) cursor = (await list(kind, { namespace: o.namespace })).resourceVersion;
            const q = new URLSearchParams({ sinceResourceVersion: String(cursor) });
            if (o.namespace) q.set('namespace', o.namespace);
            controller = new AbortController();
            const res = await fetch(`${path(kind, 'watch')}?${q}`, { headers: headers(), signal: controller.signal });
            if (!res.ok || !res.body) throw new StoreError('unavailable', `watch answered ${res.status}`);
            let buf = '';
            for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
              buf += Buffer.from(chunk).toString('utf8');
              let nl: number;
              while ((nl = buf.indexOf('\n')) >= 0) {
                const line = buf.slice(0, nl).trim();
                buf = buf.slice(nl + 1);
                if (!line) continue;
                const msg = JSON.parse(line) as WatchEvent | { type: 'error'; code: StoreErrorCode; error: string };
                if (msg.type === 'error') throw new StoreError(msg.code, msg.error);
                cursor = msg.resourceVersion;
                onEvent(msg);
              }
            }
          } catch (err) {
            if (stopped) break;
            if (err instanceof StoreError && err.code === 'expired') {
              stopped = true;
              fail(err);
              return;
            }
          }
          if (!stopped) await new Promise((r) => setTimeout(r, opts.reconnectMs ?? 500));
        }
        finish();
      };
      void run();
      return {
        close() {
          stopped = true;
          controller.abort();
        },
        done,
      };
    },
    async close() {},
  };
}
