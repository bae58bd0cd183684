/**
 * The router's own errors as gRPC statuses, for requests whose content-type is application/grpc*:
 * a gRPC client reads grpc-status and grpc-message, not a JSON body (Envoy and Knative answer
 * alike: HTTP 200, trailers-only). Codes the router knows map by meaning; anything else by HTTP
 * status as in gRPC's "HTTP to gRPC status code mapping". Pure.
 */

/** The gRPC status codes the router answers with (grpc/doc/statuscodes.md). */
export const GrpcCode = {
  UNKNOWN: 2,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

const BY_CODE: Record<string, number> = {
  not_found: GrpcCode.NOT_FOUND,
  function_not_found: GrpcCode.NOT_FOUND,
  unknown_tag: GrpcCode.NOT_FOUND,
  no_revision: GrpcCode.UNAVAILABLE,
  queue_full: GrpcCode.RESOURCE_EXHAUSTED,
  body_too_large: GrpcCode.RESOURCE_EXHAUSTED,
  activation_timeout: GrpcCode.DEADLINE_EXCEEDED,
  upstream_timeout: GrpcCode.DEADLINE_EXCEEDED,
  deadline_exceeded: GrpcCode.DEADLINE_EXCEEDED,
  upstream_unreachable: GrpcCode.UNAVAILABLE,
  upstream_error: GrpcCode.UNAVAILABLE,
  upstream_not_h2c: GrpcCode.UNIMPLEMENTED,
  misdirected_request: GrpcCode.UNAVAILABLE,
};

export function grpcStatusOf(httpStatus: number, code: string): number {
  const known = BY_CODE[code];
  if (known !== undefined) return known;
  switch (httpStatus) {
    case 400:
      return GrpcCode.INTERNAL;
    case 401:
      return GrpcCode.UNAUTHENTICATED;
    case 403:
      return GrpcCode.PERMISSION_DENIED;
    case 404:
      return GrpcCode.UNIMPLEMENTED;
    case 429:
    case 502:
    case 503:
    case 504:
      return GrpcCode.UNAVAILABLE;
    default:
      return GrpcCode.UNKNOWN;
  }
}

/** grpc-message is percent-encoded UTF-8: bytes outside 0x20–0x7E and `%` itself are escaped. */
export function encodeGrpcMessage(message: string): string {
  let out = '';
  for (const byte of Buffer.from(message, 'utf8')) {
    out += byte >= 0x20 && byte <= 0x7e && byte !== 0x25 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** content-type application/grpc, application/grpc+proto, … is gRPC (not grpc-web, whose trailers travel in the body). */
export function isGrpcContentType(value: string | undefined): boolean {
  return value !== undefined && /^application\/grpc(?:[+;]|$)/i.test(value.trim());
}
