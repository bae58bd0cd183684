import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import type { V1Container, V1ExecAction, V1HTTPGetAction, V1TCPSocketAction } from '@kubernetes/client-node';

/** A probe or a lifecycle hook: which handler it uses. */
export interface Handler {
  exec?: V1ExecAction;
  httpGet?: V1HTTPGetAction;
  tcpSocket?: V1TCPSocketAction;
  grpc?: unknown;
  sleep?: { seconds: number };
}

/** Where a handler runs: the pod's address, and for exec the running container to enter. */
export interface HandlerTarget {
  podIP: string;
  container: V1Container;
  /** Host pid of the container's process (exec enters its namespaces). */
  pid?: number;
  /** The container's environment, user and folder (exec runs as the container does). */
  env: ReadonlyMap<string, string>;
  uid: number;
  gid: number;
  groups: number[];
  workingDir: string;
  /** command[0] → host executable (the image map's). */
  executable: (argv0: string) => string;
}

export interface HandlerResult {
  ok: boolean;
  /** Why it failed, or what exec printed (kept short: it goes into events). */
  output: string;
}

const MAX_OUTPUT = 10 * 1024;

/** A port by number or by the name of one of the container's ports. */
export function resolvePort(port: number | string | undefined, c: V1Container): number {
  if (typeof port === 'number') return port;
  if (port === undefined) throw new Error('no port given');
  if (/^\d+$/.test(port)) return Number(port);
  const named = c.ports?.find((p) => p.name === port);
  if (!named) throw new Error(`container ${c.name} has no port named "${port}"`);
  return named.containerPort;
}

function httpGet(h: V1HTTPGetAction, port: number, t: HandlerTarget, timeoutMs: number): Promise<HandlerResult> {
  return new Promise((resolve) => {
    const scheme = (h.scheme ?? 'HTTP').toUpperCase();
    const host = h.host || t.podIP;
    const path = h.path || '/';
    const url = `${scheme.toLowerCase()}://${host.includes(':') ? `[${host}]` : host}:${port}${path.startsWith('/') ? '' : '/'}${path}`;
    const headers: Record<string, string> = { 'user-agent': 'kube-probe/process-kubelet', accept: '*/*' };
    for (const hd of h.httpHeaders ?? []) headers[hd.name.toLowerCase()] = hd.value;
    const req = (scheme === 'HTTPS' ? httpsRequest : httpRequest)(url, { method: 'GET', headers, timeout: timeoutMs, agent: false, rejectUnauthorized: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        if (body.length < MAX_OUTPUT) body += c;
      });
      res.on('end', () => {
        const code = res.statusCode ?? 0;
        resolve(code >= 200 && code < 400 ? { ok: true, output: body } : { ok: false, output: `HTTP probe failed with statuscode: ${code}` });
      });
      res.on('error', (e) => resolve({ ok: false, output: `Get "${url}": ${e.message}` }));
    });
    req.on('timeout', () => req.destroy(new Error(`context deadline exceeded (Client.Timeout exceeded while awaiting headers)`)));
    req.on('error', (e) => resolve({ ok: false, output: `Get "${url}": ${e.message}` }));
    req.end();
  });
}

function tcpSocket(h: V1TCPSocketAction, port: number, t: HandlerTarget, timeoutMs: number): Promise<HandlerResult> {
  return new Promise((resolve) => {
    const host = h.host || t.podIP;
    const sock = connect({ host, port, timeout: timeoutMs });
    sock.once('connect', () => {
      sock.destroy();
      resolve({ ok: true, output: '' });
    });
    sock.once('timeout', () => {
      sock.destroy();
      resolve({ ok: false, output: `dial tcp ${host}:${port}: i/o timeout` });
    });
    sock.once('error', (e) => resolve({ ok: false, output: `dial tcp ${host}:${port}: ${e.message}` }));
  });
}

function exec(h: V1ExecAction, t: HandlerTarget, timeoutMs: number): Promise<HandlerResult> {
  return new Promise((resolve) => {
    const command = [...(h.command ?? [])];
    if (!t.pid || command.length === 0) return resolve({ ok: false, output: t.pid ? 'no command' : 'container is not running' });
    command[0] = t.executable(command[0]!);
    const args = [
      `--target=${t.pid}`, '--net', '--mount', '--uts', '--',
      '/usr/bin/setpriv', `--reuid=${t.uid}`, `--regid=${t.gid}`, t.groups.length ? `--groups=${t.groups.join(',')}` : '--clear-groups', '--pdeathsig', 'SIGKILL', '--',
      '/usr/bin/env', '-C', t.workingDir, ...command,
    ];
    const child = spawn('/usr/bin/nsenter', args, { env: Object.fromEntries(t.env), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    const take = (c: Buffer) => {
      if (output.length < MAX_OUTPUT) output += c.toString('utf8');
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
      resolve({ ok: false, output: `command timed out after ${timeoutMs / 1000}s` });
    }, timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      resolve({ ok: false, output: e.message });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve(code === 0 ? { ok: true, output } : { ok: false, output: output || `command exited with ${code}` });
    });
  });
}

/** Runs a probe or hook handler once, as the kubelet's prober and lifecycle handler runner do. */
export async function runHandler(h: Handler, t: HandlerTarget, timeoutMs: number): Promise<HandlerResult> {
  const network = h.httpGet ?? h.tcpSocket;
  if (network) {
    // A port named after none of the container's ports fails the probe, as the kubelet's does.
    let port: number;
    try {
      port = resolvePort(network.port, t.container);
    } catch (e) {
      return { ok: false, output: (e as Error).message };
    }
    return h.httpGet ? httpGet(h.httpGet, port, t, timeoutMs) : tcpSocket(h.tcpSocket!, port, t, timeoutMs);
  }
  if (h.exec) return exec(h.exec, t, timeoutMs);
  if (h.sleep) {
    await new Promise((r) => setTimeout(r, Math.min(h.sleep!.seconds * 1000, timeoutMs)));
    return { ok: true, output: '' };
  }
  if (h.grpc) return { ok: false, output: 'grpc probes are not supported by the process kubelet' };
  return { ok: false, output: 'the handler names no action' };
}
