import { z } from 'zod';

/**
 * Pass `{}`: tRPC 11's JSON handler cannot parse an empty POST body, so input-less mutations
 * called as `mutate()` would fail with BAD_REQUEST.
 */
export const LogoutInput = z.object({});
