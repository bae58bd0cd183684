/**
 * The operator flags of queue triggers, shared by both backends (wiring/shared-flags.ts spreads
 * them): where the NATS JetStream broker is, and a file with its credentials. A URL that carries
 * credentials is refused: a command line is readable by every process of the machine (ps) and
 * lands in logs. Pure: a bad flag throws a UsageError naming it.
 */
import { UsageError } from '../../wiring/command-line.ts';

export const QUEUE_FLAGS = {
  'queue-url': { type: 'string' },
  'queue-credentials-file': { type: 'string' },
} as const;

export const QUEUE_USAGE = `  [--queue-url nats://HOST:4222[,nats://HOST:4222] (NATS JetStream for queue triggers, docs/triggers.md; absent = queue
   triggers report NoBroker) [--queue-credentials-file FILE (a NATS .creds file, or user=/password= lines, or token=)]]`;

export interface QueueSettings {
  /** The broker's URLs (a cluster: any of them), without credentials. */
  servers: string[];
  credentialsFile: string | undefined;
}

const SCHEMES = new Set(['nats:', 'tls:']);

/** Undefined without --queue-url: queue triggers then say NoBroker in their status. */
export function queueSettingsFromFlags(values: Partial<Record<keyof typeof QUEUE_FLAGS, string>>): QueueSettings | undefined {
  const raw = values['queue-url'];
  const credentialsFile = values['queue-credentials-file'];
  if (raw === undefined) {
    if (credentialsFile !== undefined) throw new UsageError('--queue-credentials-file needs --queue-url (the broker the credentials are for)');
    return undefined;
  }
  const servers = raw.split(',').map((s) => s.trim()).filter(Boolean);
  if (servers.length === 0) throw new UsageError('--queue-url needs at least one nats://HOST:PORT URL');
  for (const s of servers) {
    // Named by position, never echoed: the value may hold the very secret refused below.
    const which = servers.length > 1 ? `--queue-url (URL ${servers.indexOf(s) + 1})` : '--queue-url';
    if (!URL.canParse(s)) throw new UsageError(`${which} is not a URL: write nats://HOST:PORT`);
    const u = new URL(s);
    if (!SCHEMES.has(u.protocol)) throw new UsageError(`${which} must be a nats:// or tls:// URL`);
    if (u.username || u.password) throw new UsageError(`${which} carries credentials: a command line is visible to every process and ends up in logs; put them in --queue-credentials-file`);
    if (!u.hostname) throw new UsageError(`${which} names no host: write nats://HOST:PORT`);
    if ((u.pathname && u.pathname !== '/') || u.search || u.hash) throw new UsageError(`${which} must be only nats://HOST:PORT, without a path or query`);
  }
  return { servers, credentialsFile };
}
