/**
 * Follows other regions' registries through their `/internal/v1/replication/watch` (the seed's
 * cross-region directory sync): one SSE stream per target and namespace, applied to a
 * RegionMirror, resumed with `sinceRevision` after a drop (a fresh snapshot when the other side
 * no longer has that revision). A target that cannot be reached keeps its last known set —
 * Prometheus sees those targets go down — and `status()` says since when it is not connected.
 */
import { request, type ClientRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { RegistryWatchEventSchema } from '@orrery/spec';
import type { Instance } from '../model/instance.ts';
import { RegionMirror } from './region-mirror.ts';
import type { ReplicationTarget } from './targets-file.ts';

const RETRY_MS = 1000;

export interface ReplicationStreamStatus {
  region: string;
  url: string;
  namespace: string;
  connected: boolean;
  synced: boolean;
  revision: number;
  instances: number;
  lastError?: string;
  /** RFC 3339: since when `connected` has its current value. */
  since: string;
}

interface Stream {
  target: ReplicationTarget;
  namespace: string;
  mirror: RegionMirror;
  connected: boolean;
  /** When `connected` last changed (start-up until the first connection). */
  since: Date;
  lastError?: string;
  req?: ClientRequest;
  timer?: NodeJS.Timeout;
}

export class Replicator {
  private readonly streams: Stream[] = [];
  private closed = false;

  constructor(targets: ReplicationTarget[], private readonly log: (line: string) => void = () => {}) {
    for (const target of targets) {
      for (const namespace of target.namespaces) this.streams.push({ target, namespace, mirror: new RegionMirror(), connected: false, since: new Date() });
    }
  }

  start(): void {
    for (const s of this.streams) this.connect(s);
  }

  /** Other regions' instances, each with the target it came from. */
  *instances(namespace?: string): IterableIterator<{ target: ReplicationTarget; instance: Instance }> {
    for (const s of this.streams) {
      if (namespace !== undefined && s.namespace !== namespace) continue;
      for (const instance of s.mirror.values()) yield { target: s.target, instance };
    }
  }

  namespaces(): string[] {
    return [...new Set(this.streams.map((s) => s.namespace))];
  }

  status(): ReplicationStreamStatus[] {
    return this.streams.map((s) => ({
      region: s.target.region,
      url: s.target.url,
      namespace: s.namespace,
      connected: s.connected,
      since: s.since.toISOString(),
      synced: s.mirror.synced,
      revision: s.mirror.revision,
      instances: s.mirror.size,
      ...(s.lastError ? { lastError: s.lastError } : {}),
    }));
  }

  close(): void {
    this.closed = true;
    for (const s of this.streams) {
      if (s.timer) clearTimeout(s.timer);
      s.req?.destroy();
    }
  }

  private retry(s: Stream, why: string): void {
    if (s.connected) s.since = new Date();
    s.connected = false;
    s.req = undefined;
    if (why !== s.lastError) this.log(`replication from ${s.target.region} (${s.namespace}): ${why}; retrying`);
    s.lastError = why;
    if (this.closed || s.timer) return;
    s.timer = setTimeout(() => {
      s.timer = undefined;
      this.connect(s);
    }, RETRY_MS);
    s.timer.unref();
  }

  private connect(s: Stream): void {
    if (this.closed) return;
    const url = new URL(`${s.target.url}/internal/v1/replication/watch`);
    url.searchParams.set('namespace', s.namespace);
    if (s.mirror.revision > 0) url.searchParams.set('sinceRevision', String(s.mirror.revision));
    const send = url.protocol === 'https:' ? httpsRequest : request;
    const req = send(url, { headers: { accept: 'text/event-stream', authorization: `Bearer ${s.target.token}` } }, (res) => {
      res.setEncoding('utf8');
      if (res.statusCode !== 200) {
        let body = '';
        res.on('data', (c: string) => (body += c.length + body.length < 4096 ? c : ''));
        res.on('end', () => {
          // The other side no longer has our resume point: start over from a snapshot.
          if (res.statusCode === 410) s.mirror.restart();
          this.retry(s, `answered ${res.statusCode}: ${body.slice(0, 200)}`);
        });
        return;
      }
      s.connected = true;
      s.since = new Date();
      s.lastError = undefined;
      let buf = '';
      res.on('data', (chunk: string) => {
        buf += chunk;
        let idx;
        while ((idx = buf.indexOf('\n\n')) >= 0) {
          const frame = buf.slice(0, idx);
          buf = buf.slice(idx + 2);
          const lines = frame.split('\n');
          const data = lines.find((l) => l.startsWith('data:'));
          if (!data) continue; // a keep-alive comment
          const id = lines.find((l) => l.startsWith('id:'))?.slice(3).trim();
          const position = id && /^\d+$/.test(id) ? Number(id) : undefined;
          let json: unknown;
          try {
            json = JSON.parse(data.slice(5));
          } catch {
            continue;
          }
          const ev = RegistryWatchEventSchema.safeParse(json);
          if (ev.success) s.mirror.apply(ev.data, position);
          else this.log(`replication from ${s.target.region} (${s.namespace}): skipped an event that is not a watch event: ${ev.error.issues[0]?.path.join('.')} ${ev.error.issues[0]?.message}`);
        }
      });
      // 'close' comes however the stream ends (end, reset, our own destroy on close()).
      res.on('close', () => this.retry(s, 'stream ended'));
    });
    req.on('error', (err) => this.retry(s, err.message));
    req.end();
    s.req = req;
  }
}
