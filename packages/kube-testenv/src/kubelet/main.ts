/**
 * The process kubelet's command line (bin/process-kubelet.mjs):
 *   process-kubelet --kubeconfig=F --node-name=N --node-ip=IP --dir=D [--bin-dir=B]
 * It runs until SIGTERM or SIGINT, then stops every pod it runs and exits.
 */
import { parseArgs } from 'node:util';
import { ProcessKubelet } from './kubelet.ts';

const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    'node-name': { type: 'string' },
    'node-ip': { type: 'string' },
    dir: { type: 'string' },
    'bin-dir': { type: 'string' },
  },
  strict: true,
});
for (const flag of ['kubeconfig', 'node-name', 'node-ip', 'dir'] as const) {
  if (!values[flag]) {
    process.stderr.write(`process-kubelet: --${flag} is required\nusage: process-kubelet --kubeconfig=F --node-name=N --node-ip=IP --dir=D [--bin-dir=B]\n`);
    process.exit(2);
  }
}
if (process.getuid?.() !== 0) {
  process.stderr.write('process-kubelet: needs root (network namespaces, mounts, other users)\n');
  process.exit(2);
}

const log = (line: string) => process.stdout.write(`${new Date().toISOString()} ${line}\n`);
process.on('unhandledRejection', (reason) => log(`unhandled rejection: ${reason instanceof Error ? reason.stack : String(reason)}`));

const kubelet = await ProcessKubelet.start({
  kubeconfig: values.kubeconfig!,
  nodeName: values['node-name']!,
  nodeIP: values['node-ip']!,
  dir: values.dir!,
  binDir: values['bin-dir'],
  log,
});

let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  log(`${signal}: stopping every pod`);
  void kubelet.stop().then(
    () => {
      log('stopped');
      process.exit(0);
    },
    (err: Error) => {
      log(`stop failed: ${err.message}`);
      process.exit(1);
    },
  );
};
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
