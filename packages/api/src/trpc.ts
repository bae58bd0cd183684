import { initTRPC, TRPCError } from '@trpc/server';
import { roleAllows } from './auth/roles.ts';
import { redactTemplateEnv } from './audit/redact-env-values.ts';
import { writeAudit } from './audit/write-audit.ts';
import type { ApiContext, Role } from './context.ts';
import { issuesOf } from './errors.ts';

/** Read by docs generation (docs/api.md) and by the console to disable what a role may not do. */
export interface ProcedureMeta {
  /** Minimum role; `public` = no session needed (login). */
  role: Role | 'public';
  /** Audit action name; set on every mutation. */
  audit?: string;
  summary: string;
}

/** What a mutation handler may add to its audit row. */
export interface AuditNote {
  target?: string;
  before?: unknown;
  after?: unknown;
  /** Login sets who it authenticated (the caller had no session yet). */
  who?: string;
  role?: string;
  /**
   * The actions this call asks for beyond its own name (a manifest carrying a registry request,
   * a spec field that scales): stored in the row's `after.requested` for ok and refused calls.
   */
  requested?: Array<{ action: string; via: string; detail?: string }>;
}

const t = initTRPC
  .context<ApiContext>()
  .meta<ProcedureMeta>()
  .create({
    isDev: false,
    errorFormatter({ shape, error }) {
      const issues = error.code === 'BAD_REQUEST' ? issuesOf(error.cause) : undefined;
      return { ...shape, data: { code: shape.data.code, httpStatus: shape.data.httpStatus, path: shape.data.path, ...(issues ? { issues } : {}) } };
    },
  });

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

function authorize(ctx: ApiContext, need: Role): void {
  if (!ctx.principal) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'log in first (auth.login) or send a session cookie' });
  if (!roleAllows(ctx.principal.role, need)) {
    throw new TRPCError({ code: 'FORBIDDEN', message: `role ${ctx.principal.role} may not do this; it needs ${need}` });
  }
}

/**
 * Queries that need at least `role`. A viewer's answer never holds a Function's or Revision's
 * plain env values (they may be secrets): one place, whatever the handler returns.
 */
export function protectedProcedure(role: Role, summary: string) {
  return t.procedure.meta({ role, summary }).use(async ({ ctx, next }) => {
    authorize(ctx, role);
    const result = await next({ ctx: { principal: ctx.principal! } });
    if (result.ok && ctx.principal!.role === 'viewer') return { ...result, data: redactTemplateEnv(result.data) };
    return result;
  });
}

/** Queries anyone may call (whoami answers "nobody" rather than failing). */
export function publicQuery(summary: string) {
  return t.procedure.meta({ role: 'public', summary });
}

/**
 * Mutations: the audit row wraps everything after it — the role check, input validation (the
 * handler file's `.input()` runs inside `next()`), the handler — so refusals are logged too.
 * `targetOf` names the object from the raw input even when that input is invalid.
 */
export function auditedMutation(role: Role | 'public', action: string, summary: string, targetOf: (raw: Record<string, unknown>) => string) {
  return t.procedure.meta({ role, audit: action, summary }).use(async ({ ctx, next, getRawInput }) => {
    const audit: AuditNote = {};
    let raw: unknown;
    try {
      raw = await getRawInput();
    } catch {
      raw = undefined;
    }
    const rawObj = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
    let target = '';
    try {
      target = targetOf(rawObj);
    } catch {
      target = '';
    }
    const record = async (result: 'ok' | 'error', error?: TRPCError) => {
      await writeAudit(ctx.db, {
        who: audit.who ?? ctx.principal?.who ?? 'anonymous',
        role: audit.role ?? ctx.principal?.role ?? 'none',
        action,
        target: audit.target ?? target,
        input: raw,
        result,
        error: error ? `${error.code}: ${error.message}` : undefined,
        before: audit.before,
        after: audit.requested?.length ? { ...(audit.after !== null && typeof audit.after === 'object' ? audit.after : {}), requested: audit.requested } : audit.after,
        at: ctx.now?.(),
      });
    };
    if (role !== 'public') {
      try {
        authorize(ctx, role);
      } catch (err) {
        await record('error', err as TRPCError);
        throw err;
      }
    }
    const result = await next({ ctx: { audit } });
    await record(result.ok ? 'ok' : 'error', result.ok ? undefined : result.error);
    return result;
  });
}

/** `namespace/name` from raw input fields, for audit targets. */
export const nsName =
  (nameKey = 'name') =>
  (raw: Record<string, unknown>): string =>
    `${typeof raw.namespace === 'string' ? raw.namespace : 'default'}/${typeof raw[nameKey] === 'string' ? (raw[nameKey]) : '?'}`;
