import { z } from 'zod';
import { StatusBaseSchema } from '../meta.ts';
import { kindSchema } from './kind-schema.ts';
import { FunctionTemplateSchema } from './function.ts';

/** Label that ties a Revision to its Function. */
export const FUNCTION_LABEL = 'orrery.dev/function';

/** `<function>-00001`, `-00002`, …: immutable snapshots of `spec.template`. */
export function revisionName(functionName: string, generation: number): string {
  return `${functionName}-${String(generation).padStart(5, '0')}`;
}

/** Sequence number of a revision name, or NaN when it does not follow the scheme. */
export function revisionNumber(name: string): number {
  const m = /-(\d{5,})$/.exec(name);
  return m ? Number(m[1]) : Number.NaN;
}

export const RevisionSpecSchema = z.object({
  function: z.string().min(1).max(63),
  template: FunctionTemplateSchema,
});
export type RevisionSpec = z.infer<typeof RevisionSpecSchema>;

export const RevisionStatusSchema = StatusBaseSchema.extend({
  actualScale: z.number().int().nonnegative().optional(),
  desiredScale: z.number().int().nonnegative().optional(),
  readyWorkers: z.number().int().nonnegative().optional(),
  autoscalerMode: z.enum(['stable', 'panic']).optional(),
  lastDecision: z.string().optional(),
});
export type RevisionStatus = z.infer<typeof RevisionStatusSchema>;

export const RevisionSchema = kindSchema('Revision', RevisionSpecSchema, RevisionStatusSchema);
export type Revision = z.infer<typeof RevisionSchema>;
export type RevisionInput = z.input<typeof RevisionSchema>;
