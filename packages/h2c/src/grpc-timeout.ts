/**
 * The `grpc-timeout` request header (gRPC over HTTP/2, "Timeout"): at most 8 ASCII digits and a
 * unit — H hours, M minutes, S seconds, m milliseconds, u microseconds, n nanoseconds. Pure.
 */

const UNIT_MS: Record<string, number> = { H: 3_600_000, M: 60_000, S: 1_000, m: 1, u: 1e-3, n: 1e-6 };

/** Milliseconds (rounded up, so a short deadline never becomes 0), or undefined when absent or malformed. */
export function parseGrpcTimeout(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const m = /^(\d{1,8})([HMSmun])$/.exec(value.trim());
  if (!m) return undefined;
  return Math.ceil(Number(m[1]) * UNIT_MS[m[2]!]!);
}
