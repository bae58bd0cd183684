/**
 * gRPC statuses for functions that serve gRPC (the module's `grpc` export, docs/functions.md
 * "gRPC functions"): throw a GrpcError to end a call with a code, a message and trailing
 * metadata; the runtime sends them as grpc-status, grpc-message and trailers.
 */

/** The gRPC status codes (grpc/doc/statuscodes.md). */
export const GrpcStatus = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

export type GrpcStatusCode = (typeof GrpcStatus)[keyof typeof GrpcStatus];

export class GrpcError extends Error {
  override name = 'GrpcError';

  constructor(
    /** 1–16; 0 (OK) is not an error. */
    readonly code: GrpcStatusCode,
    message: string,
    /** Trailing metadata sent with the status (names lower-case; `-bin` values base64). */
    readonly trailers: Record<string, string> = {},
  ) {
    super(message);
  }
}
