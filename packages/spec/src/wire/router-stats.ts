import { z } from 'zod';

/**
 * The router's `GET /v1/stats` (admin port), read by the admin API and, per revision, posted to
 * the autoscaler: one contract for the router that writes it and everyone who reads it.
 */
export const RouterRevisionStatsSchema = z.object({
  namespace: z.string(),
  function: z.string(),
  revision: z.string(),
  /** In flight plus queued, time-weighted over the last window. */
  averageConcurrency: z.number().nonnegative(),
  /** Requests that arrived in the last window. */
  requests: z.number().int().nonnegative(),
  windowMs: z.number().nonnegative(),
  inflight: z.number().int().nonnegative(),
  queued: z.number().int().nonnegative(),
});
export type RouterRevisionStats = z.infer<typeof RouterRevisionStatsSchema>;

export const RouterFunctionStatsSchema = z.object({
  namespace: z.string(),
  function: z.string(),
  requests: z.number().int().nonnegative(),
  stickyRequests: z.number().int().nonnegative(),
  stickyKeyMissing: z.number().int().nonnegative(),
  stickyHits: z.number().int().nonnegative(),
  teleports: z.number().int().nonnegative(),
  stickyHitRatio: z.number().min(0).max(1).optional(),
});
export type RouterFunctionStats = z.infer<typeof RouterFunctionStatsSchema>;
