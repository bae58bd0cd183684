/**
 * Router replicas this operator does not run (e.g. the ones `orrery up` starts with their own
 * `--redis-url`): their statesync status is read and published, but settings cannot be pushed
 * to them, so the StateSync reports the rendered file and says the routers own their flags.
 */
import type { ReplicaSet, RouterReplica } from './local-router-fleet.ts';
import type { RouterLaunch } from '../../state-sync/render-settings.ts';

export class ObservedReplicaSet implements ReplicaSet {
  private applied?: string;
  readonly external = true;

  constructor(private readonly adminUrls: readonly string[]) {}

  replicas(): RouterReplica[] {
    return this.adminUrls.map((adminUrl, i) => ({ name: `router-${i + 1}`, adminUrl: adminUrl.replace(/\/+$/, '') }));
  }

  configure(_sync: RouterLaunch | undefined, fingerprint: string): Promise<void> {
    this.applied = fingerprint;
    return Promise.resolve();
  }

  fingerprint(): string | undefined {
    return this.applied;
  }

  stop(): Promise<void> {
    return Promise.resolve();
  }
}
