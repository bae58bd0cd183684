import { TRPCError } from '@trpc/server';
import type { ValidationError } from '@orrery/spec';
import { StoreError } from '@orrery/store';

export interface Issue {
  /** Dotted path with [n] indices, e.g. `spec.traffic[1].percent`. */
  path: string;
  message: string;
  reason?: string;
}

/** Carries field-level problems to the error formatter (`error.data.issues`). */
export class IssuesError extends Error {
  constructor(
    message: string,
    readonly issues: Issue[],
  ) {
    super(message);
    this.name = 'IssuesError';
  }
}

export function badRequest(message: string, issues: Issue[] = []): TRPCError {
  return new TRPCError({ code: 'BAD_REQUEST', message, cause: new IssuesError(message, issues) });
}

export function specIssues(errors: ValidationError[], prefix = ''): Issue[] {
  return errors.map((e) => ({ path: prefix && e.path ? `${prefix}.${e.path}` : prefix || e.path, message: e.message, reason: e.reason }));
}

/** Store failures as tRPC errors with the codes the console and CLI switch on. */
export function fromStoreError(err: unknown): unknown {
  if (!(err instanceof StoreError)) return err;
  switch (err.code) {
    case 'invalid':
    case 'immutable':
      return badRequest(err.message, specIssues(err.details ?? []));
    case 'not_found':
      return new TRPCError({ code: 'NOT_FOUND', message: err.message, cause: err });
    case 'conflict':
      return new TRPCError({ code: 'CONFLICT', message: `${err.message}; reload and retry`, cause: err });
    case 'expired':
    case 'unavailable':
      return new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: err.message, cause: err });
  }
}

/** Runs a store call, translating its errors. */
export async function storeCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw fromStoreError(err);
  }
}

export function notFound(what: string): TRPCError {
  return new TRPCError({ code: 'NOT_FOUND', message: `${what} not found` });
}

/** Issues from a zod / standard-schema failure, paths formatted like @orrery/spec's. */
export function issuesOf(cause: unknown): Issue[] | undefined {
  if (cause instanceof IssuesError) return cause.issues;
  const issues = (cause as { issues?: unknown } | undefined)?.issues;
  if (!Array.isArray(issues)) return undefined;
  return issues.map((i: { path?: ReadonlyArray<PropertyKey | { key: PropertyKey }>; message?: string }) => ({
    path: formatPath((i.path ?? []).map((p) => (typeof p === 'object' && p !== null ? p.key : p))),
    message: String(i.message ?? 'invalid'),
  }));
}

function formatPath(path: PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out;
}
