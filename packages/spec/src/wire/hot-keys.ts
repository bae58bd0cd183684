import { z } from 'zod';

/**
 * Hot keys as statesvc (`GET /v1/admin/hot-keys`, per keyspace) and the router (`GET /v1/hot-keys`
 * on its admin port, per sticky function) answer them, and as the admin API reads them. Counts
 * come from a decayed Space-Saving summary (hot-keys/decayed-top-k.ts): "now" means roughly the
 * last three half-lives, and every number may be too high by at most `boundRate` (never too low).
 */

const rate = z.number().nonnegative();

export const HotKeySchema = z.object({
  key: z.string().describe('The key as the caller sent it (router: keys over 256 characters are cut, with a hash of the whole key appended).'),
  rate: rate.describe('Requests per second for this key, decayed (see halfLifeSeconds).'),
  share: z.number().min(0).max(1).describe("This key's part of the keyspace's (function's) requests."),
  rateError: rate.describe('How much of `rate` may belong to keys this counter held before: the true rate is in [rate − rateError, rate].'),
});
export type HotKey = z.infer<typeof HotKeySchema>;

/**
 * One subject's hot keys (a keyspace at statesvc, a sticky function at the router): where it is,
 * its whole rate, the error bound and its keys. Both answers share this; the subject and the
 * rows differ.
 */
function hotKeysOf<Subject extends string, Key extends z.ZodType>(subject: Subject, key: Key, descriptions: { rate: string; boundRate: string }) {
  return z.object({
    namespace: z.string(),
    ...({ [subject]: z.string() } as Record<Subject, z.ZodString>),
    rate: rate.describe(descriptions.rate),
    boundRate: rate.describe(descriptions.boundRate),
    keys: z.array(key).describe('Highest rate first.'),
  });
}

export const KeyspaceHotKeysSchema = hotKeysOf('keyspace', HotKeySchema, {
  rate: "All of the keyspace's keyed requests per second (GET, PUT, DELETE, CAS), decayed; exact.",
  boundRate: 'The error bound as a rate: no key is over-counted by more, and an unlisted key has at most this rate (0 while fewer keys than counters were seen).',
});
export type KeyspaceHotKeys = z.infer<typeof KeyspaceHotKeysSchema>;

export const StateHotKeysResponseSchema = z.object({
  halfLifeSeconds: z.number().positive().describe('Half-life of the decayed counts.'),
  capacity: z.number().int().positive().describe('Counters per keyspace (k): a share is at most 1/k too high.'),
  keyspaces: z.array(KeyspaceHotKeysSchema).describe('Keyspaces that had keyed requests since this replica started (at most the tracked bound), by namespace and name.'),
});
export type StateHotKeysResponse = z.infer<typeof StateHotKeysResponseSchema>;

export const StickyOwnerLoadSchema = z.object({
  address: z.string().describe("The key's HRW owner among the revision's ready endpoints now."),
  revision: z.string().describe('The revision the key is pinned to (the sticky traffic pick).'),
  inflight: z.number().int().nonnegative().describe("Requests this router has in flight on the owner."),
  concurrency: z.number().int().nonnegative().describe('Admission limit per endpoint (containerConcurrency); 0 = unlimited.'),
});
export type StickyOwnerLoad = z.infer<typeof StickyOwnerLoadSchema>;

export const StickyHotKeySchema = HotKeySchema.extend({
  ownerBusyShare: z
    .number()
    .min(0)
    .max(1)
    .describe("Part of this key's requests (decayed, since it was last counted) that could not go to its owner: the owner was at its concurrency limit (or quarantined), so the request spilled to another worker or queued."),
  owner: StickyOwnerLoadSchema.nullable().describe('The owner and its load now; null when the revision has no ready endpoint or the key was cut.'),
});
export type StickyHotKey = z.infer<typeof StickyHotKeySchema>;

export const FunctionHotKeysSchema = hotKeysOf('function', StickyHotKeySchema, {
  rate: "The function's requests carrying a sticky key, per second (decayed; exact).",
  boundRate: 'The error bound as a rate (see KeyspaceHotKeys).',
});
export type FunctionHotKeys = z.infer<typeof FunctionHotKeysSchema>;

export const RouterHotKeysResponseSchema = z.object({
  routerId: z.string(),
  halfLifeSeconds: z.number().positive(),
  capacity: z.number().int().positive(),
  functions: z.array(FunctionHotKeysSchema).describe('Sticky functions that had keyed requests on this replica, by namespace and name.'),
});
export type RouterHotKeysResponse = z.infer<typeof RouterHotKeysResponseSchema>;
