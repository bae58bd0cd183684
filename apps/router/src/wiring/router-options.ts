/** What `startRouter` takes: the settings one router replica runs with (wiring/router-config.ts reads them from flags and env). */
import type { MessageLog } from '@orrery/log';
import type { ResourceStore } from '@orrery/store/client';
import type { Tracer } from '@orrery/tracing';
import type { IngressMode } from '../ingress/data-plane-listener.ts';
import type { TrustedProxies } from '../proxy/trusted-proxies.ts';
import type { SharedTables } from '../shared-tables.ts';
import type { RouterTlsSettings } from '../tls/router-tls.ts';

export interface RouterOptions {
  host: string;
  port: number;
  adminPort: number;
  /** `raw` (default): the net-based ingress for the common request, node:http for the rest; `node`: node:http only. */
  ingress?: IngressMode;
  routesFile?: string;
  /** Functions and Revisions from the resource store (list + watch), instead of routesFile. */
  store?: ResourceStore;
  endpointsFile?: string;
  registryUrl?: string;
  /** Namespaces to watch in the registry; default: those the routes mention. */
  registryNamespaces?: string[];
  registryToken?: string;
  /**
   * Platform components' addresses (`HOST[:PORT]` or URLs): registry endpoints there are never
   * used (endpoints/endpoint-guard.ts). The registry, autoscaler and executor URLs are added here.
   */
  platformEndpoints?: string[];
  /** Host-based routing domain (`<function>.<namespace>.<domain>`). */
  domain?: string;
  /** `--tls-port` and `--tls-certs-dir`: the TLS listener of the custom domains (tls/router-tls.ts); absent = off. */
  tls?: RouterTlsSettings;
  /** `--tls-redirect-port`: the port HTTP → HTTPS redirects name; default the TLS port, else 443. */
  tlsRedirectPort?: number;
  queueDepth: number;
  autoscalerUrl?: string;
  /** Bearer token for the operator's `/v1/autoscaler/*` and `/v1/executor/*` (its store token). */
  operatorToken?: string;
  /** Operator executor (`POST /v1/executor/specialize`): the cold path of pool-executor revisions. */
  executorUrl?: string;
  quarantineMs: number;
  maxBodyBytes: number;
  connectTimeoutMs: number;
  dialRetries: number;
  /** `--trusted-proxies`: peers whose forwarding headers are kept; undefined = overwrite every client's. */
  trustedProxies?: TrustedProxies;
  routerId: string;
  /** Shared tables (statesync); undefined = replica-local tables. */
  sharedTables?: SharedTables;
  /** `--sticky-owner-entries`: the LRU bound of the replica-local sticky owner table (shared tables bring their own). */
  stickyOwnerEntries?: number;
  /** Tracing on (`--otlp-endpoint`): spans per proxied request (tracing/request-trace.ts); absent = off. */
  tracer?: Tracer;
  log: MessageLog;
}
