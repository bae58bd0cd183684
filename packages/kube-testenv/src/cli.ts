import { cleanUpStale, startLockOrRunning, TestCluster } from './test-cluster.ts';

const cmd = process.argv[2];
const say = (l: string) => console.log(l);

if (cmd === 'up') {
  const running = await startLockOrRunning();
  if (running !== 'locked') {
    say(`a test cluster is already running: ${running.server} (kubeconfig ${running.adminKubeconfig})`);
    process.exit(0);
  }
  const cluster = await TestCluster.start({ log: say });
  say(`ready: export KUBECONFIG=${cluster.info.adminKubeconfig}`);
  say('Kubernetes tests started now use this cluster; Ctrl-C stops it');
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    say('stopping the test cluster');
    void cluster.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
} else if (cmd === 'down') {
  cleanUpStale(say);
  say('stopped');
} else {
  console.error('usage: kube-testenv up | down');
  process.exit(2);
}
