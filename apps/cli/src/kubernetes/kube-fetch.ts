/**
 * A fetch that authenticates to the Kubernetes API server as the kubeconfig says — client
 * certificate, bearer token or exec plugin, the cluster's CA — through client-node's
 * applyToHTTPSOptions over node:https (global fetch ignores the agent those options carry).
 * For tRPC's httpLink, which only needs method, headers, body and a Response back.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

export interface KubeFetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal | null;
}

const TIMEOUT_MS = 60_000;

function responseHeaders(h: IncomingHttpHeaders): Headers {
  const out = new Headers();
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) out.append(k, one);
  }
  return out;
}

export function kubeFetch(kc: KubeConfig): (url: string | URL, init?: KubeFetchInit) => Promise<Response> {
  return async (input, init = {}) => {
    const url = new URL(String(input));
    const opts: RequestOptions = { method: init.method ?? 'GET', headers: { ...init.headers } };
    // Adds the CA, client certificate and key, and the user's Authorization (token or exec plugin).
    await kc.applyToHTTPSOptions(opts);
    const plain = url.protocol === 'http:';
    // The agent applyToHTTPSOptions makes speaks TLS only.
    if (plain) delete opts.agent;
    return new Promise<Response>((resolve, reject) => {
      const req = (plain ? httpRequest : httpsRequest)(url, { ...opts, timeout: TIMEOUT_MS, signal: init.signal ?? undefined }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const status = res.statusCode ?? 502;
          const body = status === 204 || status === 304 ? null : Buffer.concat(chunks);
          resolve(new Response(body, { status, statusText: res.statusMessage, headers: responseHeaders(res.headers) }));
        });
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000} s`)));
      req.on('error', reject);
      req.end(init.body);
    });
  };
}
