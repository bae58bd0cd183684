export { HTTP2_PREFACE, sniffProtocol, startsWithHttp2Preface } from './http2-preface.ts';
export { prefacedSocket } from './prefaced-socket.ts';
export { parseGrpcTimeout } from './grpc-timeout.ts';
