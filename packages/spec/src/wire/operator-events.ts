import { z } from 'zod';

/**
 * `GET /v1/events` of the local operator (store token): the Events it recorded about one object
 * or a namespace, in the fields `kubectl describe` shows (on Kubernetes they are real Events).
 */
export const OperatorEventSchema = z.object({
  name: z.string(),
  type: z.enum(['Normal', 'Warning']),
  reason: z.string(),
  message: z.string(),
  count: z.number().int().positive(),
  firstTimestamp: z.string(),
  lastTimestamp: z.string(),
  involvedObject: z.object({ apiVersion: z.string(), kind: z.string(), namespace: z.string(), name: z.string(), uid: z.string().optional() }),
  reportingController: z.string(),
});
export type OperatorEventRecord = z.infer<typeof OperatorEventSchema>;

export const OperatorEventListSchema = z.object({ events: z.array(OperatorEventSchema) });
export type OperatorEventList = z.infer<typeof OperatorEventListSchema>;
