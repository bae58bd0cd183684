/**
 * /metrics: counters and histograms are read from RouterStats at scrape time (the request path
 * only bumps plain numbers and FastHistogram buckets).
 */
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { registerHistogram } from './fast-histogram.ts';
import type { RouterStats } from './router-stats.ts';

export interface RouterMetrics {
  registry: Registry;
}

export function createRouterMetrics(
  stats: RouterStats,
  /** Waiting requests per revision key (activator/revision-queues.ts). */
  queueDepths: () => Iterable<[revKey: string, depth: number]>,
  stickyOwners?: () => { entries: number; capacity: number; evictions: number },
): RouterMetrics {
  const registry = new Registry();
  // Standard process_* and nodejs_* names, so stock Node.js dashboards work unchanged.
  collectDefaultMetrics({ register: registry });
  new Counter({
    name: 'orrery_router_requests_total',
    help: 'Requests answered, by revision and status code.',
    labelNames: ['namespace', 'function', 'revision', 'code'],
    registers: [registry],
    collect() {
      this.reset();
      for (const s of stats.revisions.values()) for (const [code, n] of s.codes) this.inc({ namespace: s.namespace, function: s.functionName, revision: s.revision, code: String(code) }, n);
    },
  });
  const perFunction = (name: string, help: string, pick: (f: { stickyRequests: number; stickyKeyMissing: number; teleports: number }) => number): void => {
    new Counter({
      name,
      help,
      labelNames: ['namespace', 'function'],
      registers: [registry],
      collect() {
        this.reset();
        for (const f of stats.functions.values()) this.inc({ namespace: f.namespace, function: f.name }, pick(f));
      },
    });
  };
  perFunction('orrery_router_sticky_requests_total', 'Requests of sticky functions that carried their sticky key.', (f) => f.stickyRequests);
  perFunction('orrery_router_sticky_key_missing_total', 'Requests of sticky functions without their declared key (default pick).', (f) => f.stickyKeyMissing);
  perFunction('orrery_router_sticky_teleports_total', 'Sticky admissions of a key last admitted to a different endpoint.', (f) => f.teleports);
  if (stickyOwners) {
    new Gauge({
      name: 'orrery_router_sticky_owner_entries',
      help: 'Sticky keys the owner table remembers (teleport detection), and its bound (--sticky-owner-entries).',
      labelNames: ['kind'],
      registers: [registry],
      collect() {
        const u = stickyOwners();
        this.set({ kind: 'entries' }, u.entries);
        this.set({ kind: 'capacity' }, u.capacity);
      },
    });
    new Counter({
      name: 'orrery_router_sticky_owner_evictions_total',
      help: 'Sticky keys forgotten because the owner table was full: a forgotten key that moves is not counted as a teleport.',
      registers: [registry],
      collect() {
        this.reset();
        this.inc(stickyOwners().evictions);
      },
    });
  }
  new Gauge({
    name: 'orrery_router_queue_depth',
    help: 'Requests waiting in the activator queue per revision.',
    labelNames: ['namespace', 'function', 'revision'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [key, depth] of queueDepths()) {
        const s = stats.revisions.get(key);
        if (s) this.set({ namespace: s.namespace, function: s.functionName, revision: s.revision }, depth);
      }
    },
  });
  new Counter({
    name: 'orrery_router_admit_results_total',
    help: 'Admit outcomes (a queued request that is admitted later counts twice).',
    labelNames: ['result'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [result, n] of Object.entries(stats.admitResults)) this.inc({ result }, n);
    },
  });
  registerHistogram(registry, 'orrery_router_request_duration_seconds', 'Time from request arrival to the end of the response, including queueing.', () =>
    [...stats.functions.values()].map((f) => ({ labels: { namespace: f.namespace, function: f.name }, histogram: f.duration })),
  );
  registerHistogram(registry, 'orrery_router_overhead_seconds', "The router's own time per request: arrival to upstream dispatch plus upstream headers to client headers (excludes queueing).", () => [{ labels: {}, histogram: stats.overhead }]);
  return { registry };
}
