export { FencedError, KEY_MOVED_HEADER, StateError, UpdateConflictError, createStateClient } from './state-client.ts';
export { IDEMPOTENCY_RETENTION_HEADER, InvocationPositions, isInvocationId } from './invocation-positions.ts';
export type { StateClient, StateClientOptions, StateCallTrace, StateOp, UpdateOptions, WriteOptions } from './state-client.ts';
export { ChangesExpiredError } from './state-changes.ts';
export type { ChangesOptions, StateChange } from './state-changes.ts';
export { EventStreamParser, type StreamItem } from './event-stream-parser.ts';
export { GrpcError, GrpcStatus, type GrpcStatusCode } from './grpc-status.ts';
export { WORKER_DRAINING_HEADER } from './worker-draining-header.ts';
export { ROUTER_CANNOT_RESEND_HEADER } from './router-cannot-resend-header.ts';
