import { clearedSessionCookie } from '../../auth/session-cookie.ts';
import { deleteSession } from '../../auth/sessions.ts';
import { auditedMutation } from '../../trpc.ts';
import { LogoutInput } from './logout.schema.ts';

export const logout = auditedMutation('viewer', 'auth.logout', 'End the current session and clear the cookie.', () => 'session')
  .input(LogoutInput)
  .mutation(async ({ ctx }) => {
    if (ctx.sessionId) await deleteSession(ctx.db, ctx.sessionId);
    ctx.setCookie(clearedSessionCookie(ctx.secure));
    return { loggedOut: true };
  });
