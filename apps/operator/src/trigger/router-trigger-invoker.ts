/**
 * A trigger's call to a Function through the router (trigger-invoker.ts): one request with a
 * total deadline, redirects not followed (the operator must not be steered to another address by
 * a Function's answer), the answer's body read and dropped beyond what the caller keeps.
 * node:http rather than fetch: a deadline over the whole exchange, and header values checked
 * by node the same way whatever the Node version.
 */
import { request as requestHttp } from 'node:http';
import { request as requestHttps } from 'node:https';
import { TRIGGER_HEADER, type TriggerInvocation, type TriggerInvoker, type TriggerResult, invocationUrl } from './trigger-invoker.ts';

export interface RouterTriggerInvokerOptions {
  /** The router's base URL now (it may be learnt after start); undefined = no router known yet. */
  routerUrl: () => string | undefined;
  now?: () => Date;
}

/** Errors are one line and name no header or body: they land in status and Events. */
function errorLine(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const text = e?.code ? `${e.code}${e.message && !e.message.includes(e.code) ? `: ${e.message}` : ''}` : String(e?.message ?? err);
  return text.replace(/\s+/g, ' ').slice(0, 200);
}

export class RouterTriggerInvoker implements TriggerInvoker {
  private readonly now: () => Date;

  constructor(private readonly o: RouterTriggerInvokerOptions) {
    this.now = o.now ?? (() => new Date());
  }

  invoke(call: TriggerInvocation): Promise<TriggerResult> {
    const startedAt = this.now();
    const done = (r: { status?: number; error?: string; body?: Buffer }): TriggerResult => ({ ...r, startedAt, finishedAt: this.now() });
    const base = this.o.routerUrl();
    if (!base) return Promise.resolve(done({ error: 'no router URL is configured (operator flag --router-url)' }));
    let url: URL;
    try {
      url = new URL(invocationUrl(base, call));
    } catch (err) {
      return Promise.resolve(done({ error: `bad router URL: ${errorLine(err)}` }));
    }
    const body = call.body === undefined ? undefined : typeof call.body === 'string' ? Buffer.from(call.body) : Buffer.from(call.body);
    const headers: Record<string, string> = { 'user-agent': 'orrery-operator (trigger)' };
    for (const [name, value] of Object.entries(call.headers ?? {})) headers[name.toLowerCase()] = value;
    headers[TRIGGER_HEADER.toLowerCase()] = call.trigger;
    if (body) headers['content-length'] = String(body.length);
    const keep = Math.max(0, call.keepBodyBytes ?? 0);

    return new Promise<TriggerResult>((resolve) => {
      let settled = false;
      let deadline: NodeJS.Timeout | undefined = undefined; // set once the request exists; finish() may run before
      let req: ReturnType<typeof requestHttp> | undefined;
      const onAbort = () => {
        req?.destroy();
        finish({ error: 'aborted: the operator is stopping' });
      };
      const finish = (r: { status?: number; error?: string; body?: Buffer }) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        call.signal?.removeEventListener('abort', onAbort);
        resolve(done(r));
      };
      const send = url.protocol === 'https:' ? requestHttps : requestHttp;
      try {
        req = send(url, { method: call.method, headers }, (res) => {
          const chunks: Buffer[] = [];
          let kept = 0;
          res.on('data', (c: Buffer) => {
            if (kept >= keep) return;
            const part = c.subarray(0, keep - kept);
            chunks.push(part);
            kept += part.length;
          });
          res.once('error', (err) => finish({ status: res.statusCode, error: `answer cut off: ${errorLine(err)}` }));
          res.once('end', () => finish({ status: res.statusCode, ...(keep > 0 ? { body: Buffer.concat(chunks) } : {}) }));
        });
      } catch (err) {
        // node refuses a header value with CR/LF or a bad method before sending anything.
        finish({ error: `request refused: ${errorLine(err)}` });
        return;
      }
      const sent = req;
      deadline = setTimeout(() => {
        sent.destroy();
        finish({ error: `no complete answer within ${call.timeoutMs} ms` });
      }, call.timeoutMs);
      if (call.signal?.aborted) return onAbort();
      call.signal?.addEventListener('abort', onAbort, { once: true });
      sent.once('error', (err) => finish({ error: errorLine(err) }));
      sent.end(body);
    });
  }
}
