import { KubernetesFunctionOperator, type KubernetesOperatorOptions } from './kube-function-operator.ts';
import { LeaderElector, type LeaderElectionOptions } from './leader-election.ts';
import { LEADER_URL_ANNOTATION } from './leader-forwarding.ts';
import { apiErrorText } from './api-error-text.ts';

export interface ElectedOperatorOptions extends KubernetesOperatorOptions {
  election: Omit<LeaderElectionOptions, 'onStartedLeading' | 'onStoppedLeading'>;
  /** Other leader-only work (e.g. the admin API's rollups): started with each term, stopped when it ends. */
  whileLeading?: () => { stop(): void };
}

/**
 * The Kubernetes backend as deployed: every replica campaigns for the Lease, only the leader
 * runs informers and reconcilers, and a leader that loses the Lease stops them at once, so two
 * replicas never act together. A fresh operator per term: no state leaks between terms.
 */
export class ElectedOperator {
  readonly elector: LeaderElector;
  operator?: KubernetesFunctionOperator;
  private leaderWork?: { stop(): void };
  /** Terms this replica has led (tests check failover). */
  terms = 0;

  constructor(private readonly o: ElectedOperatorOptions) {
    this.elector = new LeaderElector(o.client, {
      ...o.election,
      onStartedLeading: () => {
        this.terms++;
        const op = new KubernetesFunctionOperator(o);
        this.operator = op;
        // Not awaited: a slow initial list must not stall lease renewal.
        op.start().catch((err: unknown) => o.log?.(`operator start failed: ${apiErrorText(err)}`));
        this.leaderWork = o.whileLeading?.();
      },
      onStoppedLeading: async () => {
        this.leaderWork?.stop();
        this.leaderWork = undefined;
        const op = this.operator;
        this.operator = undefined;
        await op?.stop();
      },
    });
  }

  get isLeader(): boolean {
    return this.elector.isLeader;
  }

  /** The leader's control endpoints when this replica leads (the operator of the current term). */
  get control(): KubernetesFunctionOperator['handleControl'] | undefined {
    const op = this.operator;
    return op && this.elector.isLeader ? (req, res) => op.handleControl(req, res) : undefined;
  }

  /** Where the current leader serves its control endpoints (the Lease annotation), if anyone leads. */
  get leaderUrl(): string | undefined {
    return this.elector.leader?.annotations[LEADER_URL_ANNOTATION];
  }

  start(): void {
    this.elector.start();
  }

  /** `release: false` simulates a crash (the lease must expire before another replica leads). */
  async stop(opts?: { release?: boolean }): Promise<void> {
    await this.elector.stop(opts);
  }
}
