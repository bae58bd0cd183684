import { z } from 'zod';
import { HOT_KEY_ALERT_DEFAULT_SHARE } from '@orrery/spec';
import { NamespaceSchema } from '../object-ref.schema.ts';

/** The overview of the whole platform, or of one namespace's objects (components stay platform-wide). */
export const OverviewSummaryInput = z
  .object({
    namespace: NamespaceSchema.optional(),
    /** How many of the newest audit rows to include. */
    auditLimit: z.number().int().min(0).max(50).default(10),
    /** The hot-key alert fires when one key takes more than this share (0–1) of a keyspace's requests. */
    hotKeyShare: z.number().min(0.01).max(1).default(HOT_KEY_ALERT_DEFAULT_SHARE),
  })
  .default({ auditLimit: 10, hotKeyShare: HOT_KEY_ALERT_DEFAULT_SHARE });
