import { TRPC_ERROR_CODES_BY_KEY, type TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';

/**
 * A request refused before tRPC sees it, in tRPC's error envelope so clients read
 * `error.data.code` (stable) and `error.data.httpStatus` as for any other error; `reason` is a
 * finer machine-readable cause (`batch_too_large`, `cross_origin`, `unsupported_media_type`).
 */
export function refusalBody(code: TRPC_ERROR_CODE_KEY, httpStatus: number, reason: string, message: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ error: { message, code: TRPC_ERROR_CODES_BY_KEY[code], data: { code, httpStatus, reason, ...extra } } });
}
