/**
 * The operator's one connection to the NATS JetStream broker of queue triggers (nats.js). After
 * the first connection the client reconnects by itself for ever; a first connection that fails
 * throws, so the caller can say why in the triggers' status and try again. The credentials are
 * read from their file at each connect (a rotated Secret is picked up), registered with the log
 * redaction and passed as an authenticator, never in a URL.
 */
import { readFileSync } from 'node:fs';
import { connect, credsAuthenticator, type NatsConnection, tokenAuthenticator, usernamePasswordAuthenticator } from 'nats';
import { registerSecret } from '@orrery/log';
import { credentialSecrets, parseQueueCredentials } from './queue-credentials.ts';
import type { QueueSettings } from './queue-flags.ts';

export type { NatsConnection } from 'nats';

/** Opens a connection to the broker; throws with one line saying why it could not. */
export type QueueConnector = (settings: QueueSettings) => Promise<NatsConnection>;

export const connectQueue: QueueConnector = async (settings) => {
  let authenticator;
  if (settings.credentialsFile) {
    let text: string;
    try {
      text = readFileSync(settings.credentialsFile, 'utf8');
    } catch (err) {
      throw new Error(`cannot read --queue-credentials-file: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    const creds = parseQueueCredentials(text);
    for (const s of credentialSecrets(creds)) registerSecret(s);
    authenticator =
      creds.kind === 'creds'
        ? credsAuthenticator(new TextEncoder().encode(creds.creds))
        : creds.kind === 'user'
          ? usernamePasswordAuthenticator(creds.user, creds.pass)
          : tokenAuthenticator(creds.token);
  }
  return connect({
    servers: settings.servers,
    name: 'orrery-operator',
    ...(authenticator ? { authenticator } : {}),
    // The first connection fails fast (the caller reports and retries); later losses reconnect for ever.
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1000,
    timeout: 5000,
    pingInterval: 10_000,
  });
};
