/** Every error the state SDK raises: `code` is statesvc's error code, `status` the HTTP status. */
export class StateError extends Error {
  readonly code: string;
  readonly status: number;
  constructor(code: string, status: number, message: string) {
    super(message);
    this.name = 'StateError';
    this.code = code;
    this.status = status;
  }
}
