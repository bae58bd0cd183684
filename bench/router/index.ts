/**
 * Router benchmark (issue 6): the same upstream (a node:http child process) and the same load
 * generator (bench/router/load.mjs, its own process), measured directly, through
 * `orrery-router` with each ingress (`--ingress raw`, the default, and `--ingress node`), and
 * through nginx (own config on loopback, upstream keepalive, daemon off).
 * Prints RPS / p50 / p99 at 32 connections (best of BENCH_ROUNDS interleaved rounds, so a burst
 * of other load on the machine hits every target alike), the added p50 at 1 connection, the
 * proxies' own CPU per request (from /proc, independent of machine load) and router/nginx.
 * BENCH_SECONDS (default 6) sets each measured phase; the default run takes about 90 s.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { processCpuSeconds } from '../process-cpu.ts';
import { type IoCounts, processIoCounts } from '../process-io-counts.ts';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..');
const seconds = Number(process.env.BENCH_SECONDS ?? 6);
const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2));
const warmupMs = 2_000;
const children: ChildProcess[] = [];
const tmp = mkdtempSync(join(tmpdir(), 'orrery-bench-router-'));

function waitForLine(child: ChildProcess, re: RegExp, what: string): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`${what} did not start within 30 s: ${buf}`)), 30_000);
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = re.exec(buf);
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    });
    child.once('exit', (code) => reject(new Error(`${what} exited with ${code}: ${buf}`)));
  });
}

function start(cmd: string, args: string[], what: string): ChildProcess {
  const c = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(c);
  c.on('error', (err) => console.error(`${what}: ${err.message}`));
  return c;
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

interface LoadResult {
  requests: number;
  errors: number;
  non2xx: number;
  rps: number;
  p50us: number;
  p99us: number;
}

/** utime + stime of a process in µs (Linux /proc; CLK_TCK is 100 on every Debian kernel). */
function cpuMicros(pid: number | undefined): number {
  if (!pid) return NaN;
  try {
    return processCpuSeconds(pid) * 1e6;
  } catch {
    return NaN;
  }
}

function load(url: string, connections: number, durationMs: number, warmup = warmupMs): Promise<LoadResult> {
  const c = start(process.execPath, [join(here, 'load.mjs'), url, String(connections), String(durationMs), String(warmup)], 'load');
  return new Promise((resolve, reject) => {
    let out = '';
    c.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    c.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!) as LoadResult) : reject(new Error(`load exited ${code}`))));
  });
}

async function main(): Promise<void> {
  const up = start(process.execPath, [join(here, 'upstream.mjs')], 'upstream');
  const upPort = Number((await waitForLine(up, /listening http:\/\/127\.0\.0\.1:(\d+)/, 'upstream'))[1]);

  writeFileSync(
    join(tmp, 'routes.yaml'),
    `apiVersion: orrery.dev/v1alpha1\nkind: Function\nmetadata: {name: bench, namespace: default}\nspec:\n  template: {source: {inline: "x"}, containerConcurrency: 0, timeoutSeconds: 30}\n  traffic: [{revisionName: bench-00001, percent: 100}]\n`,
  );
  writeFileSync(join(tmp, 'endpoints.yaml'), `- {namespace: default, function: bench, revision: bench-00001, address: "127.0.0.1:${upPort}", ready: true}\n`);
  const startRouter = async (ingress: 'raw' | 'node'): Promise<{ child: ChildProcess; url: string }> => {
    const child = start(process.execPath, [join(repo, 'apps/router/bin/orrery-router.mjs'), '--port', '0', '--admin-port', '0', '--ingress', ingress, '--routes-file', join(tmp, 'routes.yaml'), '--endpoints-file', join(tmp, 'endpoints.yaml')], `router (${ingress})`);
    return { child, url: (await waitForLine(child, /listening (http:\/\/[^\s]+) admin/, `orrery-router --ingress ${ingress}`))[1]! };
  };
  const [router, routerNode] = await Promise.all([startRouter('raw'), startRouter('node')]);
  // node's own floor beside the router: a byte relay, and a bare node:http reverse proxy.
  const relay = start(process.execPath, [join(here, 'node-floor-relay.mjs'), String(upPort)], 'node relay');
  const bareProxy = start(process.execPath, [join(here, 'node-http-proxy.mjs'), String(upPort)], 'node:http proxy');
  const [relayUrl, bareProxyUrl] = await Promise.all([
    waitForLine(relay, /listening (http:\/\/\S+)/, 'node relay').then((m) => m[1]!),
    waitForLine(bareProxy, /listening (http:\/\/\S+)/, 'node:http proxy').then((m) => m[1]!),
  ]);

  let nginxUrl: string | undefined;
  let nginxMaster: ChildProcess | undefined;
  const nginxBin = process.env.NGINX_BIN ?? '/usr/sbin/nginx';
  const nginxWorkers = process.env.BENCH_NGINX_WORKERS ?? '1';
  if (existsSync(nginxBin)) {
    const port = await freePort();
    for (const d of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) rmSync(join(tmp, d), { recursive: true, force: true });
    writeFileSync(
      join(tmp, 'nginx.conf'),
      `daemon off;\nworker_processes ${nginxWorkers};\npid ${tmp}/nginx.pid;\nerror_log ${tmp}/nginx-error.log warn;\nevents { worker_connections 4096; }\nhttp {\n  access_log off;\n  client_body_temp_path ${tmp}/client_body; proxy_temp_path ${tmp}/proxy; fastcgi_temp_path ${tmp}/fastcgi; uwsgi_temp_path ${tmp}/uwsgi; scgi_temp_path ${tmp}/scgi;\n  upstream up { server 127.0.0.1:${upPort}; keepalive 64; }\n  server {\n    listen 127.0.0.1:${port};\n    location / { proxy_pass http://up; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_buffering on; }\n  }\n}\n`,
    );
    nginxMaster = start(nginxBin, ['-c', join(tmp, 'nginx.conf'), '-p', tmp, '-e', join(tmp, 'nginx-error.log')], 'nginx');
    nginxUrl = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 100; i++) {
      const ok = await fetch(`${nginxUrl}/`).then((r) => r.ok, () => false);
      if (ok) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  } else {
    console.log(`nginx not found at ${nginxBin}: skipping the nginx baseline`);
  }

  // The proxy process whose CPU is charged per request (nginx: its single worker).
  const nginxWorker = (): number | undefined => {
    if (!nginxMaster?.pid) return undefined;
    try {
      const kids = readFileSync(`/proc/${nginxMaster.pid}/task/${nginxMaster.pid}/children`, 'utf8').trim().split(/\s+/).map(Number);
      return kids.length === 1 ? kids[0] : undefined;
    } catch {
      return undefined;
    }
  };
  const targets: Array<{ name: string; url: string; pid: () => number | undefined }> = [
    { name: 'direct', url: `http://127.0.0.1:${upPort}/`, pid: () => undefined },
    { name: 'orrery-router', url: `${router.url}/default/bench/`, pid: () => router.child.pid },
    { name: 'router (node)', url: `${routerNode.url}/default/bench/`, pid: () => routerNode.child.pid },
    { name: 'node relay', url: `${relayUrl}/default/bench/`, pid: () => relay.pid },
    { name: 'node:http proxy', url: `${bareProxyUrl}/default/bench/`, pid: () => bareProxy.pid },
  ];
  if (nginxUrl) targets.push({ name: 'nginx', url: `${nginxUrl}/default/bench/`, pid: nginxWorker });

  const results = new Map<string, { c32: LoadResult; c1: LoadResult; cpuPerRequestUs: number; io?: IoCounts }>();
  const ioCounts = (pid: number | undefined): IoCounts | undefined => {
    if (!pid) return undefined;
    try {
      return processIoCounts(pid);
    } catch {
      return undefined;
    }
  };
  for (let round = 0; round < rounds; round++) {
    for (const t of targets) {
      const pid = t.pid();
      const cpu0 = cpuMicros(pid);
      const io0 = ioCounts(pid);
      const c32 = await load(t.url, 32, seconds * 1000);
      // Warmup requests are charged too: divide by everything the loader sent.
      const sent = c32.requests * (1 + warmupMs / (seconds * 1000));
      const cpuPerRequestUs = (cpuMicros(pid) - cpu0) / sent;
      const io1 = ioCounts(pid);
      const io = io0 && io1 ? { reads: (io1.reads - io0.reads) / sent, writes: (io1.writes - io0.writes) / sent, sleeps: (io1.sleeps - io0.sleeps) / sent } : undefined;
      const prev = results.get(t.name);
      if (!prev || c32.rps > prev.c32.rps) results.set(t.name, { c32, c1: prev?.c1 ?? c32, cpuPerRequestUs: Math.min(cpuPerRequestUs, prev?.cpuPerRequestUs ?? Infinity), io: io ?? prev?.io });
    }
  }
  for (const t of targets) {
    const c1 = await load(t.url, 1, Math.max(3, seconds * 0.75) * 1000, 1_000);
    results.get(t.name)!.c1 = c1;
  }

  const f = (n: number, d = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  console.log(`\nrouter benchmark: ${cpus().length} CPUs shared by the upstream, the loader, the proxy and any other load on this machine (load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}); ${seconds}s phases, 32-conn best of ${rounds} interleaved rounds`);
  console.log('target          | 32 conn RPS | p50 µs | p99 µs | proxy CPU µs/req | 1 conn RPS | p50 µs | p99 µs | errors');
  console.log('----------------|-------------|--------|--------|------------------|------------|--------|--------|-------');
  for (const [name, r] of results) {
    console.log(
      `${name.padEnd(16)}| ${f(r.c32.rps).padStart(11)} | ${f(r.c32.p50us).padStart(6)} | ${f(r.c32.p99us).padStart(6)} | ${(Number.isFinite(r.cpuPerRequestUs) ? f(r.cpuPerRequestUs, 1) : '-').padStart(16)} | ${f(r.c1.rps).padStart(10)} | ${f(r.c1.p50us).padStart(6)} | ${f(r.c1.p99us).padStart(6)} | ${r.c32.errors + r.c1.errors + r.c32.non2xx + r.c1.non2xx}`,
    );
  }
  // Per request at 32 connections, from the kernel's counts: the same on a quiet or a busy machine,
  // so the CPU gap between two proxies splits into system calls and wake-ups against user-space work.
  console.log('\nproxy system calls and event-loop sleeps per request (32 connections; /proc/<pid>/io counts the read and write families only — node uses them, nginx reads with recv, so its reads show 0; sleeps: voluntary context switches)');
  console.log('target          | reads | writes | sleeps');
  for (const [name, r] of results) {
    if (!r.io) continue;
    console.log(`${name.padEnd(16)}| ${f(r.io.reads, 2).padStart(5)} | ${f(r.io.writes, 2).padStart(6)} | ${f(r.io.sleeps, 2).padStart(6)}`);
  }
  const direct = results.get('direct')!;
  const router2 = results.get('orrery-router')!;
  const viaNode = results.get('router (node)')!;
  const added = router2.c1.p50us - direct.c1.p50us;
  console.log(`\nrouter added p50 at 1 connection: ${f(added)} µs (target < 150 µs) ${added < 150 ? 'OK' : 'MISSED'}; with --ingress node ${f(viaNode.c1.p50us - direct.c1.p50us)} µs`);
  console.log(`router / direct RPS at 32 connections: ${f(router2.c32.rps / direct.c32.rps, 2)}`);
  console.log(`router CPU per request, raw / node ingress: ${f(router2.cpuPerRequestUs, 1)} / ${f(viaNode.cpuPerRequestUs, 1)} µs`);
  const ng = results.get('nginx');
  if (ng) {
    const nginxAdded = ng.c1.p50us - direct.c1.p50us;
    const ratio = router2.c32.rps / ng.c32.rps;
    console.log(`nginx added p50 at 1 connection: ${f(nginxAdded)} µs (nginx worker_processes ${nginxWorkers})`);
    console.log(`router / nginx RPS at 32 connections: ${f(ratio, 2)} (target ≥ 0.70) ${ratio >= 0.7 ? 'OK' : 'MISSED'}; with --ingress node ${f(viaNode.c32.rps / ng.c32.rps, 2)}`);
    // Issue 24's goals for the router rows, each against nginx from this same run.
    const cpuRatio = router2.cpuPerRequestUs / ng.cpuPerRequestUs;
    const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');
    console.log('issue 24 goals:');
    console.log(`  router CPU per request ${f(router2.cpuPerRequestUs, 1)} µs / nginx ${f(ng.cpuPerRequestUs, 1)} µs = ${f(cpuRatio, 2)}× (goal ≤ 1.3×): ${verdict(cpuRatio <= 1.3)}`);
    console.log(`  router / nginx RPS at 32 connections ${f(ratio, 2)} (goal ≥ 1.0): ${verdict(ratio >= 1.0)}`);
    console.log(`  router added p50 at 1 connection ${f(added)} µs (goal < 60 µs; nginx's ${f(nginxAdded)} µs): ${verdict(added < 60)}`);
    // The split of the CPU row: node's floor (a byte relay) against nginx, and the router against
    // that floor — what is left is Orrery's per-request work (HTTP parsing, routing, admission,
    // headers, stats) on top of node's socket wake-ups.
    const relayR = results.get('node relay')!;
    const bare = results.get('node:http proxy')!;
    console.log('split against node\'s own floor (same run):');
    console.log(`  node byte relay ${f(relayR.cpuPerRequestUs, 1)} µs/req = ${f(relayR.cpuPerRequestUs / ng.cpuPerRequestUs, 2)}× nginx; router = ${f(router2.cpuPerRequestUs / relayR.cpuPerRequestUs, 2)}× the relay (+${f(router2.cpuPerRequestUs - relayR.cpuPerRequestUs, 1)} µs); added p50 @1 relay ${f(relayR.c1.p50us - direct.c1.p50us)} µs`);
    console.log(`  bare node:http proxy ${f(bare.cpuPerRequestUs, 1)} µs/req = ${f(bare.cpuPerRequestUs / ng.cpuPerRequestUs, 2)}× nginx; router = ${f(router2.cpuPerRequestUs / bare.cpuPerRequestUs, 2)}× it; RPS @32 router / it ${f(router2.c32.rps / bare.c32.rps, 2)}; added p50 @1 ${f(bare.c1.p50us - direct.c1.p50us)} µs`);
  }
}

try {
  await main();
} finally {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 300));
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
}
