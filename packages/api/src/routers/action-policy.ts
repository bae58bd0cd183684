import { TRPCError } from '@trpc/server';
import { roleAllows } from '../auth/roles.ts';
import type { ApiContext, Role } from '../context.ts';
import type { AuditNote } from '../trpc.ts';
import { procedureRoles } from './procedure-roles.ts';
import type { RequestedAction } from './requested-actions.ts';

/**
 * One role check for every way of causing an action: a write that asks for what a procedure does
 * (a registry request in an annotation, a spec field that scales or removes members) needs that
 * procedure's minimum role, read from the same metadata the procedure itself is guarded by. The
 * audit row names each requested action (`after.requested`), refused or not.
 */
export function authorizeRequestedActions(ctx: ApiContext & { audit: AuditNote }, what: string, actions: readonly RequestedAction[]): void {
  if (actions.length === 0) return;
  ctx.audit.requested = actions.map((a) => ({ ...a }));
  const roles = procedureRoles();
  for (const a of actions) {
    const need = roles[a.action] as Role | 'public' | undefined;
    // An action without a known procedure is refused to everyone but admin.
    const min: Role = need === undefined ? 'admin' : need === 'public' ? 'viewer' : need;
    if (ctx.principal && roleAllows(ctx.principal.role, min)) continue;
    throw new TRPCError({
      code: 'FORBIDDEN',
      message: `role ${ctx.principal?.role ?? 'none'} may not request ${a.action} through ${a.via} of ${what}${a.detail ? ` (${a.detail})` : ''}; it needs ${min}, like ${a.action}`,
    });
  }
}
