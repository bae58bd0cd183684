import { Etcd3 } from 'etcd3';
import { noRetryClient } from '@orrery/etcdcluster';
import { backoffDelay } from '@orrery/spec';

/** Errors after which the request certainly never reached etcd, so sending it again is safe. */
const NOT_SENT = /No connection established|ECONNREFUSED|connect ECONN|Failed to connect|broken circuit|circuit is open/i;

/** True when the request certainly never reached etcd (so it certainly did not take effect). */
export function neverSent(err: unknown): boolean {
  return NOT_SENT.test(err instanceof Error ? err.message : String(err));
}

/** etcd3 ignores the policy's signal; one shared, never-aborted signal saves an allocation per call. */
const NEVER_ABORTED = new AbortController().signal;

/**
 * Retries only requests that were never sent. etcd3's default retries every "recoverable" error,
 * including a deadline that expired after etcd applied the request: a retried deregister then
 * answers not_found for a delete that did happen — a linearizability violation the WGL test catches.
 */
const retryUnsentOnly = {
  async execute<T>(fn: (ctx: { signal: AbortSignal; attempt: number }) => PromiseLike<T> | T): Promise<T> {
    let last: unknown;
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        return await fn({ signal: NEVER_ABORTED, attempt });
      } catch (err) {
        if (!neverSent(err)) throw err;
        last = err;
      }
    }
    throw last;
  },
  onSuccess: () => ({ dispose: () => undefined }),
  onFailure: () => ({ dispose: () => undefined }),
};

interface Backoff {
  duration: number;
  next(): Backoff;
}
/** Watch reconnects after 100 ms doubling to 2 s (etcd3's default can wait 30 s). */
function watchBackoff(attempt = 0): Backoff {
  return { duration: backoffDelay(attempt, { initialMs: 50, maxMs: 2000 }), next: () => watchBackoff(attempt + 1) };
}

/**
 * The client for the data path. gRPC keep-alives detect a member that stopped answering (paused,
 * partitioned) so the watch and lease streams move to another member; etcd accepts pings every
 * 5 s or slower.
 */
export function dataClient(endpoints: string[], dialTimeoutMs: number, requestTimeoutMs: number): Etcd3 {
  return new Etcd3({
    ...common(endpoints, dialTimeoutMs),
    defaultCallOptions: (ctx) => (ctx.isStream ? {} : { deadline: Date.now() + requestTimeoutMs }),
    faultHandling: { global: retryUnsentOnly as never, watchBackoff: watchBackoff() },
  });
}

/**
 * The client for idempotent reads (the barrier, the heartbeat's read, index loads): a read may
 * be retried on another member whatever went wrong, so each attempt gets a third of the budget
 * and a paused member costs one short attempt, not the whole request.
 */
export function readClient(endpoints: string[], dialTimeoutMs: number, requestTimeoutMs: number): Etcd3 {
  const attemptMs = Math.max(1000, Math.floor(requestTimeoutMs / 3));
  return new Etcd3({
    ...common(endpoints, dialTimeoutMs),
    defaultCallOptions: (ctx) => (ctx.isStream ? {} : { deadline: Date.now() + attemptMs }),
    faultHandling: { watchBackoff: watchBackoff() },
  });
}

/**
 * A fresh client per watch (re)connection, bound to the members that answer a status probe
 * right now: a paused or cut-off member would otherwise be picked again at random and hold the
 * stream hostage until gRPC keep-alive gives up on it.
 */
export async function watchClient(endpoints: string[], dialTimeoutMs: number, probeMs = 700): Promise<Etcd3> {
  const answers = await Promise.all(
    endpoints.map(async (ep) => {
      const probe = noRetryClient(ep, probeMs);
      try {
        await probe.maintenance.status();
        return ep;
      } catch {
        return undefined;
      } finally {
        probe.close();
      }
    }),
  );
  const live = answers.filter((x): x is string => x !== undefined);
  const hosts = (live.length > 0 ? live : endpoints).sort(() => Math.random() - 0.5);
  return new Etcd3({ ...common(hosts, dialTimeoutMs), faultHandling: { watchBackoff: watchBackoff() } });
}

function common(endpoints: string[], dialTimeoutMs: number) {
  return {
    hosts: endpoints,
    dialTimeout: dialTimeoutMs,
    grpcOptions: {
      'grpc.keepalive_time_ms': 6000,
      'grpc.keepalive_timeout_ms': 3000,
      'grpc.keepalive_permit_without_calls': 1,
      // Watch catch-up batches can be large; etcd's own limit on a request is 1.5 MiB per value.
      'grpc.max_receive_message_length': 64 * 1024 * 1024,
      // grpc-js keeps per-call channelz statistics by default, which nothing here reads: CPU on
      // every etcd call of the register and query paths.
      'grpc.enable_channelz': 0,
    },
  };
}
