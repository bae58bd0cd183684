/**
 * An in-process OTLP/HTTP receiver for tests: accepts `POST /v1/traces` in the JSON encoding
 * (what @opentelemetry/exporter-trace-otlp-http sends) and keeps every span, flattened, with
 * the service.name of its resource. Protobuf bodies are answered 415: the components here
 * export JSON.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
}

export const OTLP_KIND = { internal: 1, server: 2, client: 3 } as const;

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type KeyValue = { key: string; value: AnyValue };
interface ExportTraceServiceRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{ spans?: Array<{ traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes?: KeyValue[]; status?: { code?: number } }> }>;
  }>;
}

function valueOf(v: AnyValue): string | number | boolean {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  return JSON.stringify(v);
}

function attributes(list: KeyValue[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const kv of list ?? []) out[kv.key] = valueOf(kv.value);
  return out;
}

/** Ids arrive as hex in OTLP/JSON (base64 only in protobuf-JSON mappings); both are accepted. */
function hexId(id: string | undefined): string {
  if (!id) return '';
  return /^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex');
}

export function flattenExport(body: ExportTraceServiceRequest): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of body.resourceSpans ?? []) {
    const service = String(attributes(rs.resource?.attributes)['service.name'] ?? '');
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        out.push({ service, traceId: hexId(s.traceId), spanId: hexId(s.spanId), parentSpanId: hexId(s.parentSpanId), name: s.name, kind: s.kind, attributes: attributes(s.attributes), statusCode: s.status?.code ?? 0 });
      }
    }
  }
  return out;
}

export interface OtlpReceiver {
  /** Base URL, as OTEL_EXPORTER_OTLP_ENDPOINT or --otlp-endpoint take it. */
  url: string;
  spans: ReceivedSpan[];
  /** Raw request bodies, for "this never appears anywhere" checks. */
  bodies: string[];
  /** Export requests received (including refused ones). */
  requests: number;
  close(): Promise<void>;
}

/** `host`: where to listen (a pod-reachable node address for tests on the Kubernetes test cluster). */
export async function startOtlpReceiver(host = '127.0.0.1'): Promise<OtlpReceiver> {
  const state = { spans: [] as ReceivedSpan[], bodies: [] as string[], requests: 0 };
  const server: Server = createServer((req, res) => {
    state.requests++;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) {
        res.writeHead(415, { 'content-type': 'application/json' }).end('{"error":"this test receiver takes OTLP/HTTP JSON"}');
        return;
      }
      const text = Buffer.concat(chunks).toString('utf8');
      state.bodies.push(text);
      state.spans.push(...flattenExport(JSON.parse(text) as ExportTraceServiceRequest));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    get spans() {
      return state.spans;
    },
    get bodies() {
      return state.bodies;
    },
    get requests() {
      return state.requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
