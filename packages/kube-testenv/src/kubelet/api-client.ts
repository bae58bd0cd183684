import { Agent, request } from 'node:https';
import { KubeConfig } from '@kubernetes/client-node';

/** A refused or failed API request, with the API server's status code and reason. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

export const isNotFound = (e: unknown): boolean => e instanceof ApiError && e.status === 404;
export const isConflict = (e: unknown): boolean => e instanceof ApiError && e.status === 409;
export const isForbidden = (e: unknown): boolean => e instanceof ApiError && e.status === 403;

export interface RequestOptions {
  body?: unknown;
  /** For PATCH: merge (default), strategic or apply. */
  contentType?: string;
  timeoutMs?: number;
}

/**
 * The process kubelet's connection to the API server: plain JSON over HTTPS with the node's
 * client certificate from its kubeconfig (loaded by client-node). Raw JSON is what it reads and
 * writes, so wire formats (RFC 3339 times, MicroTime's six digits) stay exactly as the server
 * expects them.
 */
export class ApiClient {
  private constructor(
    readonly server: URL,
    private readonly agent: Agent,
  ) {}

  static async fromKubeconfig(file: string): Promise<ApiClient> {
    const kc = new KubeConfig();
    kc.loadFromFile(file);
    const cluster = kc.getCurrentCluster();
    if (!cluster) throw new Error(`${file} names no current cluster`);
    const opts: { ca?: Buffer; cert?: Buffer; key?: Buffer } = {};
    await kc.applyToHTTPSOptions(opts);
    const agent = new Agent({ ca: opts.ca, cert: opts.cert, key: opts.key, keepAlive: true, maxSockets: 16 });
    return new ApiClient(new URL(cluster.server), agent);
  }

  request<T>(method: string, path: string, o: RequestOptions = {}): Promise<T> {
    const body = o.body === undefined ? undefined : Buffer.from(JSON.stringify(o.body));
    const contentType = o.contentType ?? (method === 'PATCH' ? 'application/merge-patch+json' : 'application/json');
    return new Promise<T>((resolve, reject) => {
      const req = request(
        new URL(path, this.server),
        {
          method,
          agent: this.agent,
          headers: { accept: 'application/json', 'user-agent': 'process-kubelet', ...(body ? { 'content-type': contentType, 'content-length': body.length } : {}) },
          timeout: o.timeoutMs ?? 15_000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const status = res.statusCode ?? 0;
            let json: unknown;
            try {
              json = text ? JSON.parse(text) : undefined;
            } catch {
              json = undefined;
            }
            if (status >= 200 && status < 300) return resolve(json as T);
            const s = (json ?? {}) as { reason?: string; message?: string };
            reject(new ApiError(status, s.reason ?? '', `${method} ${path}: ${status} ${s.message ?? text.slice(0, 200)}`));
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: timed out`)));
      req.on('error', reject);
      req.end(body);
    });
  }

  get<T>(path: string): Promise<T> {
    return this.request<T>('GET', path);
  }

  /**
   * A streaming GET (a watch): calls `onLine` for each newline-terminated JSON line until the
   * server ends the response or `signal` aborts. Resolves on a clean end.
   */
  stream(path: string, onLine: (line: string) => void, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const req = request(new URL(path, this.server), { method: 'GET', agent: this.agent, headers: { accept: 'application/json', 'user-agent': 'process-kubelet' }, signal }, (res) => {
        if ((res.statusCode ?? 0) >= 300) {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => {
            let reason = '';
            try {
              reason = (JSON.parse(text) as { reason?: string }).reason ?? '';
            } catch {
              /* not JSON */
            }
            reject(new ApiError(res.statusCode ?? 0, reason, `watch ${path}: ${res.statusCode} ${text.slice(0, 200)}`));
          });
          return;
        }
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          buf += c;
          let nl: number;
          while ((nl = buf.indexOf('\n')) !== -1) {
            const line = buf.slice(0, nl);
            buf = buf.slice(nl + 1);
            if (line.trim()) onLine(line);
          }
        });
        res.on('end', () => resolve());
        res.on('error', reject);
        res.on('aborted', () => reject(new Error('watch aborted')));
      });
      req.on('error', reject);
      req.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
