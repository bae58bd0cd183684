/**
 * Endpoint source over the registry's SSE watch (StellMap contract):
 * `GET /api/v1/registry/watch?namespace=…&servicePrefix=orrery.functions`, events `snapshot`,
 * `upsert`, `delete`, each carrying `revision`. On disconnect the last snapshot stays in force
 * and the client resumes with `sinceRevision`; a 410 (revision expired) means a full resync.
 */
import { EventStreamParser } from '@orrery/sdk';
import { backoffDelay } from '@orrery/spec';
import type { EndpointRecord } from '../admit/endpoint-index.ts';
import type { EndpointSource } from './endpoint-source.ts';
import { openEventStream, readText } from './open-event-stream.ts';
import { checkWorkerInstance, instanceId, WORKER_SERVICE_PREFIX, type RegistryInstance } from './registry-instances.ts';

export interface RegistryWatchOptions {
  url: string;
  namespaces: string[];
  onRecords: (records: EndpointRecord[]) => void;
  onError?: (err: unknown) => void;
  /** An instance under `orrery.functions.` that is not used, and why (labels that do not match its service, …). */
  onIgnored?: (instance: string, reason: string) => void;
  /** Reconnect backoff bounds. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  token?: string;
}

export interface RegistryWatchStatus {
  namespace: string;
  connected: boolean;
  revision: number | undefined;
  resyncs: number;
  reconnects: number;
}

/** Payload shapes tolerated: `{revision, instances}` / `{revision, instance}` / a bare instance with `revision`. */
interface WatchPayload {
  revision?: number | string;
  instances?: RegistryInstance[];
  items?: RegistryInstance[];
  instance?: RegistryInstance;
}

function payloadInstances(p: WatchPayload): RegistryInstance[] {
  if (Array.isArray(p)) return p as RegistryInstance[];
  if (Array.isArray(p.instances)) return p.instances;
  if (Array.isArray(p.items)) return p.items;
  if (p.instance) return [p.instance];
  return [p as RegistryInstance];
}

class NamespaceWatch {
  readonly instances = new Map<string, RegistryInstance>();
  revision: number | undefined;
  connected = false;
  resyncs = 0;
  reconnects = 0;
  private abort: AbortController | undefined;
  private stopped = false;
  private loop: Promise<void> | undefined;

  constructor(
    readonly namespace: string,
    private readonly opts: RegistryWatchOptions,
    private readonly changed: () => void,
  ) {}

  start(): void {
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abort?.abort();
    await this.loop;
  }

  private async run(): Promise<void> {
    const steps = { initialMs: this.opts.minBackoffMs ?? 200, maxMs: this.opts.maxBackoffMs ?? 5000 };
    let failures = 0;
    while (!this.stopped) {
      try {
        const gotEvents = await this.connectOnce();
        if (gotEvents) failures = 0;
      } catch (err) {
        if (this.stopped) break;
        this.opts.onError?.(err);
      }
      this.connected = false;
      if (this.stopped) break;
      this.reconnects++;
      const backoff = backoffDelay(failures++, steps);
      await new Promise((r) => setTimeout(r, backoff + Math.random() * backoff * 0.5));
    }
  }

  /** One SSE connection; resolves when it ends. True when at least one event arrived. */
  private async connectOnce(): Promise<boolean> {
    const u = new URL('/api/v1/registry/watch', this.opts.url);
    u.searchParams.set('namespace', this.namespace);
    u.searchParams.set('servicePrefix', WORKER_SERVICE_PREFIX);
    if (this.revision !== undefined) {
      u.searchParams.set('sinceRevision', String(this.revision));
      u.searchParams.set('includeSnapshot', 'false');
    } else {
      u.searchParams.set('includeSnapshot', 'true');
    }
    this.abort = new AbortController();
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (this.opts.token) headers.authorization = `Bearer ${this.opts.token}`;
    const res = await openEventStream(u, headers, this.abort.signal, 10_000);
    if (res.statusCode === 410) {
      // The cursor fell out of the registry's window: forget it and take a fresh snapshot.
      await readText(res).catch(() => '');
      this.revision = undefined;
      this.resyncs++;
      return true;
    }
    if (res.statusCode !== 200) {
      const text = await readText(res).catch(() => '');
      throw new Error(`registry watch ${this.namespace}: HTTP ${res.statusCode} ${text.slice(0, 200)}`);
    }
    this.connected = true;
    const parser = new EventStreamParser();
    let got = false;
    res.setEncoding('utf8');
    for await (const chunk of res as AsyncIterable<string>) {
      for (const item of parser.feed(chunk)) {
        if (item.kind !== 'event') continue; // a position (an id alone) carries no change
        got = true;
        this.apply(item);
      }
    }
    return got;
  }

  private apply(ev: { event: string; data: string; id: string | undefined }): void {
    if (ev.event !== 'snapshot' && ev.event !== 'upsert' && ev.event !== 'delete') return;
    let payload: WatchPayload;
    try {
      payload = JSON.parse(ev.data) as WatchPayload;
    } catch (err) {
      this.opts.onError?.(new Error(`registry watch ${this.namespace}: bad ${ev.event} data: ${String(err)}`));
      return;
    }
    const list = payloadInstances(payload);
    if (ev.event === 'snapshot') {
      this.instances.clear();
      for (const i of list) this.instances.set(instanceId(i), i);
    } else if (ev.event === 'upsert') {
      for (const i of list) this.instances.set(instanceId(i), i);
    } else {
      for (const i of list) this.instances.delete(instanceId(i));
    }
    // The SSE id is the resume position: it may stand before the event's own revision when
    // another change of that revision follows (the registry's watch-session event positions).
    const rev = Number(ev.id ?? payload.revision);
    if (Number.isFinite(rev)) this.revision = rev;
    this.changed();
  }
}

export class RegistryWatch implements EndpointSource {
  private readonly watches = new Map<string, NamespaceWatch>();

  constructor(private readonly opts: RegistryWatchOptions) {
    this.setNamespaces(opts.namespaces);
  }

  /** Watches exactly these namespaces (the router follows the namespaces its routes mention). */
  setNamespaces(namespaces: readonly string[]): void {
    const want = new Set(namespaces);
    for (const [ns, w] of this.watches) {
      if (!want.has(ns)) {
        this.watches.delete(ns);
        void w.stop();
      }
    }
    for (const ns of want) {
      if (this.watches.has(ns)) continue;
      const w = new NamespaceWatch(ns, this.opts, () => this.emit());
      this.watches.set(ns, w);
      w.start();
    }
    this.emit();
  }

  status(): RegistryWatchStatus[] {
    return [...this.watches.values()].map((w) => ({ namespace: w.namespace, connected: w.connected, revision: w.revision, resyncs: w.resyncs, reconnects: w.reconnects }));
  }

  private emit(): void {
    const out: EndpointRecord[] = [];
    for (const w of this.watches.values()) {
      for (const i of w.instances.values()) {
        const c = checkWorkerInstance(i);
        if (c.ok) out.push(c.record);
        else if (i.service?.startsWith(`${WORKER_SERVICE_PREFIX}.`)) this.opts.onIgnored?.(instanceId(i), c.reason);
      }
    }
    this.opts.onRecords(out);
  }

  async stop(): Promise<void> {
    await Promise.all([...this.watches.values()].map((w) => w.stop()));
    this.watches.clear();
  }
}
