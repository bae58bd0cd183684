import { TRPCError } from '@trpc/server';
import { eq } from 'drizzle-orm';
import { users } from '@orrery/db';
import { tokenMatches } from '../../auth/admin-token.ts';
import { verifyPassword } from '../../auth/password.ts';
import { sessionCookie } from '../../auth/session-cookie.ts';
import { createSession } from '../../auth/sessions.ts';
import type { Principal } from '../../context.ts';
import { auditedMutation } from '../../trpc.ts';
import { LoginInput } from './login.schema.ts';

const DEFAULT_TTL_MS = 12 * 3600_000;
// A fixed hash to verify against when the user does not exist, so both paths cost one scrypt.
const DUMMY_HASH = `scrypt$16384$8$1$${'00'.repeat(16)}$${'00'.repeat(32)}`;

const refused = () => new TRPCError({ code: 'UNAUTHORIZED', message: 'wrong user, password or token' });

export const login = auditedMutation('public', 'auth.login', 'Exchange the admin token or a user/password for a session cookie.', (raw) =>
  raw.method === 'password' && typeof raw.user === 'string' ? `user/${raw.user}` : 'admin-token',
)
  .input(LoginInput)
  .mutation(async ({ ctx, input }) => {
    let principal: Principal;
    if (input.method === 'token') {
      if (!tokenMatches(input.token, ctx.adminToken)) throw refused();
      principal = { who: 'admin-token', role: 'admin', via: 'session' };
    } else {
      const row = (await ctx.db.db.select().from(users).where(eq(users.name, input.user)).limit(1))[0];
      const ok = await verifyPassword(input.password, row?.passwordHash ?? DUMMY_HASH);
      if (!row || !ok) throw refused();
      principal = { who: row.name, role: row.role, via: 'session' };
    }
    const now = ctx.now?.() ?? new Date();
    const ttl = ctx.sessionTtlMs ?? DEFAULT_TTL_MS;
    const session = await createSession(ctx.db, principal.who, principal.role, ttl, now);
    ctx.setCookie(sessionCookie(session.id, ttl / 1000, ctx.secure));
    ctx.audit.who = principal.who;
    ctx.audit.role = principal.role;
    // The id is also returned for non-browser clients (CLI: `Authorization: Bearer <sessionId>`).
    return { who: principal.who, role: principal.role, expiresAt: session.expiresAt.toISOString(), sessionId: session.id };
  });
