import { z } from 'zod';

/** Either the admin token (from the platform's secret) or a configured user's password. */
export const LoginInput = z.discriminatedUnion('method', [
  z.object({ method: z.literal('token'), token: z.string().min(1).max(4096) }),
  z.object({ method: z.literal('password'), user: z.string().min(1).max(64), password: z.string().min(1).max(1024) }),
]);
