/**
 * What a build pod's container runs: `node -e BUILD_WRAPPER_SCRIPT -- <orrery-build bin> <flags>`.
 * orrery-build writes its outcome JSON to a file; this wrapper passes the builder's output through
 * to the container log and writes the outcome together with the log's tail as the container's
 * termination message (at most TERMINATION_MESSAGE_BYTES, the kubelet's cap), so the operator
 * learns how a build ended — and why it failed — from the pod's status alone. Reading pods/log
 * needs a kubelet that serves logs; this works without one and survives the pod's log rotation.
 * Plain CommonJS with no dependencies: it runs on the builder image's node.
 */

/** Where the wrapper asks orrery-build for its outcome (the pod's /tmp emptyDir). */
export const BUILD_RESULT_FILE = '/tmp/orrery-build-result.json';
/** The kubelet keeps at most this much of a termination message. */
export const TERMINATION_MESSAGE_BYTES = 4096;

export const BUILD_WRAPPER_SCRIPT = String.raw`
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const [bin, ...args] = process.argv.slice(1);
const RESULT = process.env.ORRERY_BUILD_RESULT_FILE || ${JSON.stringify(BUILD_RESULT_FILE)};
try { fs.rmSync(RESULT, { force: true }); } catch {}
const MAX = ${TERMINATION_MESSAGE_BYTES};
const out = process.env.ORRERY_TERMINATION_LOG || '/dev/termination-log';
let tail = Buffer.alloc(0);
const child = spawn(process.execPath, [bin, ...args, '--result', RESULT], { stdio: ['ignore', 'pipe', 'pipe'] });
const keep = (sink) => (d) => { sink.write(d); tail = Buffer.concat([tail, d]); if (tail.length > 2 * MAX) tail = tail.subarray(-MAX); };
child.stdout.on('data', keep(process.stdout));
child.stderr.on('data', keep(process.stderr));
for (const s of ['SIGTERM', 'SIGINT']) process.on(s, () => child.kill(s));
child.on('error', (e) => { tail = Buffer.from(String(e && e.message)); });
child.on('close', (code, signal) => {
  let result = {};
  let resultText = '';
  try { resultText = fs.readFileSync(RESULT, 'utf8').trim(); result = JSON.parse(resultText); } catch {}
  const lines = tail.toString('utf8').replace(/\n+$/, '').split('\n');
  // The builder also prints its outcome line; stderr may arrive after it (two pipes), so drop that
  // line wherever it is rather than only when it comes last.
  const outcomeAt = resultText ? lines.lastIndexOf(resultText) : -1;
  if (outcomeAt >= 0) lines.splice(outcomeAt, 1);
  else if (lines.length && lines[lines.length - 1].trim().startsWith('{')) lines.pop();
  let log = lines.join('\n');
  const exit = code === null ? 128 + (signal === 'SIGKILL' ? 9 : 15) : code;
  let body = '';
  for (;;) {
    body = JSON.stringify({ ...result, exitCode: exit, log });
    if (Buffer.byteLength(body) <= MAX || log.length === 0) break;
    log = log.slice(Math.max(1, Buffer.byteLength(body) - MAX + 16));
  }
  try { fs.writeFileSync(out, body); } catch (e) { process.stderr.write('termination message: ' + e.message + '\n'); }
  // exitCode, not exit(): process.exit() drops container-log output still queued for the pipe.
  process.exitCode = exit;
});
`;

/** The container command of a build pod (the builder image's WORKDIR holds `binPath`). */
export function buildCommand(binPath: string, builderArgs: string[]): string[] {
  return ['node', '-e', BUILD_WRAPPER_SCRIPT, '--', binPath, ...builderArgs];
}
