import { TRPCError } from '@trpc/server';
import { eq } from 'drizzle-orm';
import { users } from '@orrery/db';
import { tokenMatches } from '../../auth/admin-token.ts';
import type { LoginAttempt } from '../../auth/login-rate-limit.ts';
import { verifyPassword } from '../../auth/password.ts';
import { sessionCookie } from '../../auth/session-cookie.ts';
import { createSession } from '../../auth/sessions.ts';
import { ADMIN_TOKEN_WHO } from '../../auth/user-name.ts';
import type { Principal } from '../../context.ts';
import { auditedMutation } from '../../trpc.ts';
import { LoginInput } from './login.schema.ts';

const DEFAULT_TTL_MS = 12 * 3600_000;
// A fixed hash to verify against when the user does not exist, so both paths cost one scrypt.
const DUMMY_HASH = `scrypt$16384$8$1$${'00'.repeat(16)}$${'00'.repeat(32)}`;

const refused = () => new TRPCError({ code: 'UNAUTHORIZED', message: 'wrong user, password or token' });

export const login = auditedMutation('public', 'auth.login', 'Exchange the admin token or a user/password for a session cookie (failed logins are limited per user and address: 429 with Retry-After).', (raw) =>
  raw.method === 'password' && typeof raw.user === 'string' ? `user/${raw.user}` : 'admin-token',
)
  .input(LoginInput)
  .mutation(async ({ ctx, input }) => {
    const attempt: LoginAttempt = { user: input.method === 'password' ? input.user : undefined, address: ctx.clientAddress };
    // Refused before any check, so a limited caller learns nothing about the password either.
    const wait = ctx.loginLimiter?.retryAfterSeconds(attempt) ?? 0;
    if (wait > 0) {
      ctx.setHeader?.('retry-after', String(wait));
      throw new TRPCError({ code: 'TOO_MANY_REQUESTS', message: `too many failed logins; try again in ${wait} s` });
    }
    let principal: Principal | undefined;
    if (input.method === 'token') {
      if (tokenMatches(input.token, ctx.adminToken)) principal = { who: ADMIN_TOKEN_WHO, role: 'admin', via: 'session' };
    } else {
      const row = (await ctx.db.db.select().from(users).where(eq(users.name, input.user)).limit(1))[0];
      const ok = await verifyPassword(input.password, row?.passwordHash ?? DUMMY_HASH);
      if (row && ok) principal = { who: row.name, role: row.role, via: 'session' };
    }
    if (!principal) {
      ctx.loginLimiter?.recordFailure(attempt);
      throw refused();
    }
    ctx.loginLimiter?.recordSuccess(attempt);
    const now = ctx.now?.() ?? new Date();
    const ttl = ctx.sessionTtlMs ?? DEFAULT_TTL_MS;
    const session = await createSession(ctx.db, principal.who, principal.role, ttl, now);
    ctx.setCookie(sessionCookie(session.id, ttl / 1000, ctx.secure));
    ctx.audit.who = principal.who;
    ctx.audit.role = principal.role;
    // The session id travels only in the HttpOnly cookie, never in the body (a script on the page
    // could read a body). Non-browser clients take it from Set-Cookie (docs/api.md).
    return { who: principal.who, role: principal.role, expiresAt: session.expiresAt.toISOString() };
  });
