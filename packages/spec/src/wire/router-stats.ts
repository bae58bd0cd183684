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

/**
 * Per revision, whether the activator stays in the request path (knative's SKS proxy/serve
 * mode), as the KPA decided from the excess burst capacity. The autoscaler's answer to each
 * router's stats push carries one entry per revision it scales; a router treats a revision it
 * has no fresh entry for as "in the path".
 */
export const ActivatorModeSchema = z.object({
  namespace: z.string(),
  revision: z.string(),
  /** true: requests that no worker can admit within containerConcurrency wait in the router's queue; false: they go straight to a worker. */
  inPath: z.boolean(),
  /** ⌊ready × total − targetBurstCapacity − panic concurrency⌋; −1 with targetBurstCapacity −1, 0 with 0. */
  excessBurstCapacity: z.number(),
});
export type ActivatorMode = z.infer<typeof ActivatorModeSchema>;

/** `202` answer of `POST /v1/autoscaler/stats`. */
export const AutoscalerStatsAnswerSchema = z.object({
  ok: z.literal(true),
  activator: z.array(ActivatorModeSchema).default([]),
});
export type AutoscalerStatsAnswer = z.infer<typeof AutoscalerStatsAnswerSchema>;
