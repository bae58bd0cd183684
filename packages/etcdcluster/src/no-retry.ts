import { Etcd3, type IOptions } from 'etcd3';

/**
 * A cockatiel-shaped policy that runs the call exactly once. etcd3 retries recoverable errors
 * three times by default, which is wrong for non-idempotent calls such as MemberAdd: a retry
 * after a lost reply adds a second member.
 */
const once = {
  execute: <T>(fn: (context: { signal: AbortSignal; attempt: number }) => PromiseLike<T> | T): Promise<T> =>
    Promise.resolve().then(() => fn({ signal: new AbortController().signal, attempt: 0 })),
  onSuccess: () => ({ dispose: () => undefined }),
  onFailure: () => ({ dispose: () => undefined }),
};

/**
 * An etcd3 client bound to the given endpoints that never retries and gives up after
 * `deadlineMs` per unary call (a SIGSTOPped member would otherwise hang the call forever).
 */
export function noRetryClient(hosts: string | string[], deadlineMs = 5000, extra: Partial<IOptions> = {}): Etcd3 {
  return new Etcd3({
    hosts,
    dialTimeout: deadlineMs,
    // The shape matches cockatiel's IPolicy, which etcd3 does not re-export.
    faultHandling: { global: once as never, host: () => once as never },
    defaultCallOptions: (ctx) => (ctx.isStream ? {} : { deadline: Date.now() + deadlineMs }),
    ...extra,
  });
}
