/**
 * Request header the router adds when it could not send the request to another worker: its body
 * streams straight through (chunked, or larger than the router holds). A draining worker runs
 * such a request instead of refusing it `draining` (the refusal would reach the client as a 503);
 * the drain waits for it like any request in flight. The router drops a client's copy.
 */
export const ROUTER_CANNOT_RESEND_HEADER = 'orrery-router-cannot-resend';
