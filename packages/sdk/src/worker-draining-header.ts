/**
 * Response header a worker sets on its 503 `draining` refusal (it stopped taking requests and did
 * not run this one). The router sends such a request to another worker instead of passing the
 * 503 on; a function's own 503 never carries it, so it is never retried.
 */
export const WORKER_DRAINING_HEADER = 'orrery-worker-draining';
