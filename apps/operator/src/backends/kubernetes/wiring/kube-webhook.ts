/**
 * Admission, on every replica (absent without --webhook-port): validation needs its own
 * (unelected) Environment and Function caches (the Functions: a keyspace belongs to one
 * Function), and reads what they miss from the API server. Two creates admitted at the same
 * moment may still both pass (neither is stored yet); keyspace deletion never wipes a keyspace
 * another Function still declares.
 */
import { EventEmitter } from 'node:events';
import { GROUP_VERSION, environmentOf } from '@orrery/spec';
import { keyspaceHoldersAmong } from '@orrery/store';
import { boundedSource } from '../../../webhook/bounded-source.ts';
import { startWebhookServer } from '../../../webhook/webhook-server.ts';
import { exitStartFailed } from '../../../wiring/command-line.ts';
import { WebhookCertKeeper } from '../bootstrap/webhook-cert-keeper.ts';
import { apiServerAdmissionSource } from './api-server-admission-source.ts';
import { Informer } from '../informer.ts';
import type { KubeClient } from '../kube-client.ts';
import type { KubeOperatorConfig } from './kube-config.ts';

export interface KubeWebhook {
  url: string;
  stop(): Promise<void>;
}

type CertificatePair = { cert: string; key: string };

export async function startKubeWebhook(config: KubeOperatorConfig, client: KubeClient, log: (msg: string, fields?: Record<string, unknown>) => void): Promise<KubeWebhook | undefined> {
  const { webhook: settings } = config;
  if (!settings) return undefined;
  const environments = new Informer(client, { apiVersion: GROUP_VERSION, kind: 'Environment', namespace: config.namespace, log });
  const functions = new Informer(client, { apiVersion: GROUP_VERSION, kind: 'Function', namespace: config.namespace, log });
  // Every replica serves the webhook, so every replica runs the keeper: all serve the Secret's
  // certificate, any of them may rotate it (a write guarded by resourceVersion; one wins). Its
  // first certificate starts the server; the ones it rotates to later reach the server as events.
  const rotated = new EventEmitter<{ certificate: [CertificatePair] }>();
  const secretsNamespace = config.lease.namespace;
  const certKeeper = settings.certSecret
    ? new WebhookCertKeeper({
        client,
        namespace: secretsNamespace,
        secretName: settings.certSecret.name,
        dnsNames: [`${settings.certSecret.service}.${secretsNamespace}.svc`, `${settings.certSecret.service}.${secretsNamespace}.svc.cluster.local`],
        configurations: settings.certSecret.configurations,
        onCertificate: (pair) => rotated.emit('certificate', pair),
        log: (msg) => log(msg),
      })
    : undefined;
  const keptCert = await certKeeper?.start().catch((err: unknown) => exitStartFailed(`webhook certificate (--webhook-cert-secret): ${(err as Error).message}`));
  // The informers lag: what they miss (an Environment, a keyspace owner created a moment ago) is
  // read from the API server, within a bound (the webhook port is open to the pod network).
  const apiServerReads = boundedSource(apiServerAdmissionSource(client, config.namespace));
  const skippedReadsLog = setInterval(() => {
    const skipped = apiServerReads.takeSkipped();
    if (skipped > 0) log(`admission: ${skipped} reads of the API server over the limit in the last 10 s; those reviews were judged by the informers' caches`);
  }, 10_000);
  skippedReadsLog.unref();
  const server = await startWebhookServer({
    host: settings.host,
    port: settings.port,
    tls: keptCert ?? settings.certFiles,
    lookup: {
      environment: (ns, name) => environmentOf(environments.get(ns, name)),
      keyspaceHolders: (ns, keyspace) => keyspaceHoldersAmong(functions.list(), ns, keyspace),
    },
    source: apiServerReads.source,
    log,
  });
  rotated.on('certificate', (pair) => server.setCertificate(pair));
  environments.start();
  functions.start();
  return {
    url: server.url,
    async stop() {
      clearInterval(skippedReadsLog);
      environments.stop();
      functions.stop();
      certKeeper?.stop();
      await server.close();
    },
  };
}
