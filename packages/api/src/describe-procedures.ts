import { z } from 'zod';
import type { ProcedureMeta } from './trpc.ts';

export interface ProcedureDoc {
  path: string;
  type: 'query' | 'mutation';
  role: string;
  audit: string | null;
  summary: string;
  /** JSON Schema of the input (zod 4 toJSONSchema), or null when the procedure takes none. */
  input: unknown;
}

interface ProcDef {
  _def: { type: 'query' | 'mutation' | 'subscription'; meta?: ProcedureMeta; inputs: unknown[] };
}

/** Every procedure of a router with its role, audit action and input schema: the source of docs/api.md. */
export function describeProcedures(router: { _def: { procedures: Record<string, unknown> } }): ProcedureDoc[] {
  return Object.entries(router._def.procedures)
    .map(([path, p]) => {
      const def = (p as ProcDef)._def;
      const input = def.inputs[0];
      return {
        path,
        type: def.type === 'mutation' ? 'mutation' : 'query',
        role: def.meta?.role ?? 'public',
        audit: def.meta?.audit ?? null,
        summary: def.meta?.summary ?? '',
        input: input instanceof z.ZodType ? z.toJSONSchema(input, { io: 'input', unrepresentable: 'any' }) : null,
      } satisfies ProcedureDoc;
    })
    .sort((a, b) => a.path.localeCompare(b.path));
}
