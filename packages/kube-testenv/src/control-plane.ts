import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { EtcdCluster, freePorts, waitFor } from '@orrery/etcdcluster';
import { Etcd3 } from 'etcd3';
import { stringify } from 'yaml';
import { NETWORK, NODE_NAME } from './cluster-plan.ts';
import { setUpHostNetwork } from './host-network.ts';
import { ManagedProcess } from './managed-process.ts';
import { type CertFiles, makePki, type Pki } from './pki.ts';

export interface ControlPlaneOptions {
  /** Working directory: certificates, kubeconfigs, logs, the audit log. */
  dir: string;
  /** Where scripts/k8s-tools.sh put kube-apiserver, kube-controller-manager, … and etcd. */
  binDir: string;
  /** Progress lines (e.g. the test run's output). */
  log?: (line: string) => void;
}

/** What a test (in another process) needs to reach the control plane. */
export interface ControlPlaneInfo {
  /** https://<node address>:<port>; reachable from the host and from pods. */
  server: string;
  adminKubeconfig: string;
  /** Kubeconfig of the process kubelet (user system:node:<node>, group system:nodes). */
  nodeKubeconfig: string;
  caFile: string;
  /** The API server's audit log (JSON lines, level Metadata for writes). */
  auditLog: string;
  etcdURL: string;
  binDir: string;
  dir: string;
}

const AUDIT_POLICY = {
  apiVersion: 'audit.k8s.io/v1',
  kind: 'Policy',
  omitStages: ['RequestReceived'],
  rules: [
    // The control plane's own chatter would drown the operators' requests.
    { level: 'None', users: ['system:kube-controller-manager', 'system:kube-scheduler', 'system:kube-proxy', 'system:apiserver'] },
    { level: 'None', userGroups: ['system:nodes'] },
    { level: 'None', resources: [{ group: '', resources: ['events'] }] },
    { level: 'None', verbs: ['watch'] },
    { level: 'Metadata' },
  ],
};

/**
 * A real Kubernetes control plane on this machine: etcd, kube-apiserver (RBAC + Node
 * authorization, ServiceAccount token signing, an audit log, aggregator routing so webhooks are
 * called at their endpoints), kube-controller-manager (Deployments, ReplicaSets, StatefulSets,
 * garbage collection, EndpointSlices, ServiceAccounts, node lifecycle), kube-scheduler and
 * kube-proxy in iptables mode. Like controller-runtime's envtest, with the controllers running.
 */
export class ControlPlane {
  private etcd?: EtcdCluster;
  private apiserver?: ManagedProcess;
  private readonly others: ManagedProcess[] = [];
  private pki!: Pki;
  private port = 0;
  readonly info: ControlPlaneInfo;

  private constructor(private readonly o: ControlPlaneOptions) {
    this.info = {
      server: '',
      adminKubeconfig: join(o.dir, 'admin.kubeconfig'),
      nodeKubeconfig: join(o.dir, 'node.kubeconfig'),
      caFile: join(o.dir, 'pki', 'ca.crt'),
      auditLog: join(o.dir, 'logs', 'audit.log'),
      etcdURL: '',
      binDir: o.binDir,
      dir: o.dir,
    };
  }

  static async start(o: ControlPlaneOptions): Promise<ControlPlane> {
    const cp = new ControlPlane(o);
    try {
      await cp.boot();
      return cp;
    } catch (err) {
      await cp.stop();
      throw err;
    }
  }

  private say(line: string): void {
    this.o.log?.(`[kube-testenv] ${line}`);
  }

  private bin(name: string): string {
    return join(this.o.binDir, name);
  }

  private async boot(): Promise<void> {
    const { dir } = this.o;
    const started = Date.now();
    for (const d of ['pki', 'logs']) mkdirSync(join(dir, d), { recursive: true });
    setUpHostNetwork();
    this.pki = makePki(join(dir, 'pki'), {
      apiserverIPs: ['127.0.0.1', NETWORK.hostAddress, NETWORK.kubernetesServiceIP],
      apiserverDNS: ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', `kubernetes.default.svc.${NETWORK.clusterDomain}`],
      clients: [
        { name: 'admin', user: 'kube-testenv-admin', groups: ['system:masters'] },
        { name: 'controller-manager', user: 'system:kube-controller-manager' },
        { name: 'scheduler', user: 'system:kube-scheduler' },
        { name: 'proxy', user: 'system:kube-proxy' },
        { name: 'node', user: `system:node:${NODE_NAME}`, groups: ['system:nodes'] },
      ],
    });
    const [apiPort, kcmPort, schedPort, proxyHealth, proxyMetrics] = await freePorts(5, '0.0.0.0');
    this.port = apiPort!;
    this.info.server = `https://${NETWORK.hostAddress}:${this.port}`;

    this.say('starting etcd');
    this.etcd = await EtcdCluster.start({ size: 1, etcdBin: this.bin('etcd') });
    this.info.etcdURL = this.etcd.members[0]!.clientURL;

    const kubeconfig = (name: string, client: CertFiles) => {
      const file = join(dir, `${name}.kubeconfig`);
      writeFileSync(file, kubeconfigYaml(this.info.server, this.pki.ca.cert, client), { mode: 0o600 });
      return file;
    };
    const admin = kubeconfig('admin', this.pki.clients.admin!);
    kubeconfig('node', this.pki.clients.node!);
    const kcm = kubeconfig('controller-manager', this.pki.clients['controller-manager']!);
    const sched = kubeconfig('scheduler', this.pki.clients.scheduler!);
    const proxy = kubeconfig('proxy', this.pki.clients.proxy!);
    writeFileSync(join(dir, 'audit-policy.yaml'), stringify(AUDIT_POLICY));

    this.say('starting kube-apiserver');
    await this.startApiServer();

    this.say('starting kube-controller-manager, kube-scheduler, kube-proxy');
    const logs = (n: string) => join(dir, 'logs', `${n}.log`);
    this.others.push(
      new ManagedProcess('kube-controller-manager', this.bin('kube-controller-manager'), [
        `--kubeconfig=${kcm}`,
        `--authentication-kubeconfig=${kcm}`,
        `--authorization-kubeconfig=${kcm}`,
        '--bind-address=127.0.0.1',
        `--secure-port=${kcmPort}`,
        '--leader-elect=false',
        '--use-service-account-credentials=true',
        `--root-ca-file=${this.pki.ca.cert}`,
        `--service-account-private-key-file=${this.pki.serviceAccount.key}`,
        `--cluster-cidr=${NETWORK.podCIDR}`,
        `--service-cluster-ip-range=${NETWORK.serviceCIDR}`,
        '--cluster-name=orrery-testenv',
        // The garbage collector and quota controllers find new CRDs on this period.
        '--concurrent-gc-syncs=5',
      ], logs('kube-controller-manager')).start(),
      new ManagedProcess('kube-scheduler', this.bin('kube-scheduler'), [
        `--kubeconfig=${sched}`,
        `--authentication-kubeconfig=${sched}`,
        `--authorization-kubeconfig=${sched}`,
        '--bind-address=127.0.0.1',
        `--secure-port=${schedPort}`,
        '--leader-elect=false',
      ], logs('kube-scheduler')).start(),
      new ManagedProcess('kube-proxy', this.bin('kube-proxy'), [
        `--kubeconfig=${proxy}`,
        `--hostname-override=${NODE_NAME}`,
        '--proxy-mode=iptables',
        `--cluster-cidr=${NETWORK.podCIDR}`,
        `--bind-address=${NETWORK.hostAddress}`,
        `--healthz-bind-address=127.0.0.1:${proxyHealth}`,
        `--metrics-bind-address=127.0.0.1:${proxyMetrics}`,
        `--nodeport-addresses=${NETWORK.hostAddress}/32`,
        // Leave the machine's conntrack table size alone.
        '--conntrack-max-per-core=0',
        '--iptables-min-sync-period=0s',
      ], logs('kube-proxy')).start(),
    );
    // Fail fast when one of them dies at start (a bad flag, a taken port).
    await new Promise((r) => setTimeout(r, 1500));
    for (const p of this.others) {
      if (p.exited) throw new Error(`${p.name} exited at start:\n${p.lastLines()}`);
    }
    this.say(`control plane up in ${((Date.now() - started) / 1000).toFixed(1)} s: ${this.info.server} (kubeconfig ${admin})`);
  }

  private async startApiServer(): Promise<void> {
    const { dir } = this.o;
    const issuer = `https://kubernetes.default.svc.${NETWORK.clusterDomain}`;
    this.apiserver = new ManagedProcess('kube-apiserver', this.bin('kube-apiserver'), [
      `--etcd-servers=${this.info.etcdURL}`,
      '--bind-address=0.0.0.0',
      `--secure-port=${this.port}`,
      `--advertise-address=${NETWORK.hostAddress}`,
      `--service-cluster-ip-range=${NETWORK.serviceCIDR}`,
      '--authorization-mode=Node,RBAC',
      '--enable-admission-plugins=NodeRestriction',
      `--client-ca-file=${this.pki.ca.cert}`,
      `--tls-cert-file=${this.pki.apiserver.cert}`,
      `--tls-private-key-file=${this.pki.apiserver.key}`,
      `--service-account-key-file=${this.pki.serviceAccount.pub}`,
      `--service-account-signing-key-file=${this.pki.serviceAccount.key}`,
      `--service-account-issuer=${issuer}`,
      `--api-audiences=${issuer}`,
      `--audit-policy-file=${join(dir, 'audit-policy.yaml')}`,
      `--audit-log-path=${this.info.auditLog}`,
      '--audit-log-format=json',
      '--audit-log-maxsize=500',
      '--audit-log-mode=blocking',
      // Webhooks are called at an endpoint of their Service (pods have no cluster DNS here).
      '--enable-aggregator-routing=true',
      '--allow-privileged=true',
      '--profiling=false',
      '--event-ttl=30m',
    ], join(dir, 'logs', 'kube-apiserver.log')).start();
    const ready = await waitFor(
      'kube-apiserver /readyz',
      120_000,
      async () => {
        if (this.apiserver?.exited) throw new Error(`kube-apiserver exited:\n${this.apiserver.lastLines()}`);
        return (await this.get('/readyz').catch(() => undefined))?.status === 200 ? true : undefined;
      },
      () => this.apiserver?.lastLines() ?? '',
      250,
    );
    void ready;
  }

  /** A GET against the API server as the admin (health checks, version). */
  get(path: string): Promise<{ status: number; body: string }> {
    const admin = this.pki.clients.admin!;
    return new Promise((resolve, reject) => {
      const req = request(
        `${this.info.server}${path}`,
        { ca: readFileSync(this.pki.ca.cert), cert: readFileSync(admin.cert), key: readFileSync(admin.key), timeout: 5000 },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', reject);
      req.end();
    });
  }

  /**
   * Stops and starts the API server (same port, same etcd). Watches break; clients that resume
   * from a compacted resourceVersion get 410 Gone, as after a real control-plane upgrade.
   */
  async restartApiServer(): Promise<void> {
    this.say('restarting kube-apiserver');
    await this.apiserver?.stop();
    await this.startApiServer();
  }

  /** Compacts etcd up to its current revision: every older resourceVersion is gone. */
  async compactEtcd(): Promise<number> {
    const client = new Etcd3({ hosts: this.info.etcdURL });
    try {
      const status = await client.maintenance.status();
      const rev = Number(status.header.revision);
      await client.kv.compact({ revision: String(rev), physical: true });
      return rev;
    } finally {
      client.close();
    }
  }

  pids(): Record<string, number | undefined> {
    return Object.fromEntries([this.apiserver, ...this.others].filter((p): p is ManagedProcess => !!p).map((p) => [p.name, p.pid]));
  }

  async stop(): Promise<void> {
    for (const p of [...this.others].reverse()) await p.stop();
    // kube-proxy leaves its iptables chains behind; its own cleanup mode removes them.
    try {
      execFileSync(this.bin('kube-proxy'), ['--cleanup'], { stdio: 'ignore', timeout: 30_000 });
    } catch {
      /* nothing to clean, or binaries missing */
    }
    await this.apiserver?.stop();
    await this.etcd?.close();
  }
}

function kubeconfigYaml(server: string, caFile: string, client: CertFiles): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'kube-testenv', cluster: { server, 'certificate-authority': caFile } }],
    users: [{ name: 'user', user: { 'client-certificate': client.cert, 'client-key': client.key } }],
    contexts: [{ name: 'kube-testenv', context: { cluster: 'kube-testenv', user: 'user' } }],
    'current-context': 'kube-testenv',
  });
}
