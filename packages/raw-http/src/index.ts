/**
 * A strict HTTP/1.1 server over `net` sockets for the common request, with node:http as the
 * fallback for everything it does not take (raw-ingress-server.ts). Used by the router's data
 * plane and by statesvc's state-key requests: per request it costs about a third less CPU than
 * node's HTTP server (docs/performance.md, "statesvc on the raw ingress").
 */
export type { Http2RequestInfo, IngressHandler, IngressRequest, IngressResponse, RequestBody, ResponseListener, TunnelClosed, UpgradeTunnel } from './ingress.ts';
export { RawIngress, type Http2Acceptor, type RawIngressOptions, type RequestRoute } from './raw-ingress-server.ts';
export { RawExchange, type RawExchangeConnection } from './raw-exchange.ts';
export { RawRequestBody, type BodyFlowControl } from './raw-request-body.ts';
export { MAX_HEAD_BYTES, MAX_HEADER_LINES, INCOMPLETE, parseRequestHead, type HandoverReason, type HeadParseResult, type ParsedHead } from './request-head-parser.ts';
export { buildResponseHead, InvalidResponseHeadError, type ResponseFraming, type ResponseHeadContext } from './response-head.ts';
export { httpDate } from './http-date.ts';
export { afterThisRead, handleRead } from './after-this-read.ts';
export { SlotList, type Slotted } from './slot-list.ts';
export { readThroughSharedBuffer, SharedBufferReads, type ChunkReceiver } from './shared-read-buffer.ts';
