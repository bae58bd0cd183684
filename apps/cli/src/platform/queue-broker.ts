/**
 * Where the local platform's queue triggers get their NATS JetStream broker (docs/triggers.md
 * "Queue"): `orrery up --queue-url` (or ORRERY_QUEUE_URL) names one that runs elsewhere; else,
 * when Debian's nats-server is installed, the supervisor runs one of its own on 127.0.0.1 with
 * JetStream stored under the data dir; else there is none, and every queue trigger's status says
 * NoBroker (the platform still comes up). Pure: the supervisor starts what this decides.
 */
import { join } from 'node:path';

export type QueueBrokerPlan =
  | { kind: 'external'; url: string }
  | { kind: 'child'; url: string; command: string; args: string[]; storeDir: string }
  | { kind: 'none'; reason: string };

export interface QueueBrokerInput {
  /** --queue-url / ORRERY_QUEUE_URL. */
  queueUrl?: string;
  /** The nats-server executable, when installed (findBinary). */
  natsServer?: string;
  /** The planned port of our own nats-server. */
  port: number;
  dataDir: string;
}

export function planQueueBroker(i: QueueBrokerInput): QueueBrokerPlan {
  if (i.queueUrl) return { kind: 'external', url: i.queueUrl };
  if (!i.natsServer) return { kind: 'none', reason: 'nats-server is not installed (apt-get install nats-server): queue triggers report NoBroker' };
  const storeDir = join(i.dataDir, 'nats');
  return { kind: 'child', url: `nats://127.0.0.1:${i.port}`, command: i.natsServer, args: ['-js', '-sd', storeDir, '-a', '127.0.0.1', '-p', String(i.port)], storeDir };
}

/**
 * Why a --queue-url cannot be used, or undefined. Credentials never go in it (a command line is
 * public in `ps`): the operator refuses such a URL too, this says so before anything starts.
 */
export function queueUrlProblem(url: string): string | undefined {
  for (const s of url.split(',').map((u) => u.trim()).filter(Boolean)) {
    if (!URL.canParse(s)) return '--queue-url is not a URL: write nats://HOST:PORT';
    const u = new URL(s);
    if (u.protocol !== 'nats:' && u.protocol !== 'tls:') return '--queue-url must be a nats:// or tls:// URL';
    if (u.username || u.password) return '--queue-url carries credentials, which every local user can read in `ps`: run the operator with --queue-credentials-file instead';
  }
  return undefined;
}
