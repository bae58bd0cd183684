/** Why a function's code could not be loaded; `code` is stable and machine-readable. */
export type LoadErrorCode =
  | 'source_invalid'
  | 'source_not_found'
  | 'source_fetch_failed'
  | 'source_too_large'
  | 'module_load_failed'
  | 'entrypoint_not_found'
  | 'entrypoint_not_function'
  | 'websocket_not_function'
  | 'grpc_export_invalid';

export class LoadError extends Error {
  readonly code: LoadErrorCode;
  constructor(code: LoadErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LoadError';
    this.code = code;
  }
}
