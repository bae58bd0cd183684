/**
 * The HTTP sides' load generator: wrk (C, one epoll thread), N keep-alive connections with one
 * request in flight on each — the same closed loop as load.ts's undici pool, at a fraction of its
 * CPU. The Postgres rows compare an HTTP service with a raw statement that needs no HTTP client,
 * and on this 2-core machine whatever the client burns is taken from the server and Postgres:
 * with undici the client alone cost more per GET than the raw statement's postgres.js client
 * (docs/performance.md, statesvc, "2026-12-07 night"). wrk is what Knative's and nginx's own
 * numbers are measured with.
 *
 * A slice's latencies come back exactly (wrk's histogram in µs, dumped by the script's `done`), so
 * slices merge into one p99 as load.ts's do; wrk's CPU comes from bash's `times` (its children's
 * user + system time). Credentials go into the Lua script file (mode 0600), never on the command
 * line. wrk runs whole seconds only.
 */
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Samples } from './load.ts';

export interface WrkRequest {
  method: 'GET' | 'PUT';
  /** Each request's path is this prefix and a key number cycling through `keys`. */
  pathPrefix: string;
  keys: number;
  headers: Record<string, string>;
  body?: string;
}

/** One slice of wrk: what load.ts's closed loop returns, plus the requests sent and wrk's CPU. */
export interface WrkSlice {
  samples: Samples;
  sent: number;
  clientCpuSeconds: number;
}

const MARK = 'orrery-wrk';
/** Requests slower than this count as errors (wrk's --timeout; its histogram is this long, in µs). */
const TIMEOUT_S = 5;

/** A Lua string literal for `s` (wrk runs LuaJIT: a long-bracket-free quoted form is enough). */
function luaString(s: string): string {
  return `"${s.replace(/[\\"]/g, (c) => `\\${c}`).replace(/\n/g, '\\n').replace(/\r/g, '\\r')}"`;
}

/** The wrk script for `req`: the request of each turn, and a `done` that prints counts and the whole latency histogram. */
export function wrkScript(req: WrkRequest): string {
  const headers = Object.entries(req.headers).map(([k, v]) => `wrk.headers[${luaString(k)}] = ${luaString(v)}`);
  return [
    `wrk.method = ${luaString(req.method)}`,
    ...headers,
    ...(req.body === undefined ? [] : [`wrk.body = ${luaString(req.body)}`]),
    'local i = 0',
    `request = function() i = i + 1; return wrk.format(nil, ${luaString(req.pathPrefix)} .. (i % ${req.keys})) end`,
    'done = function(summary, latency, requests)',
    '  local e = summary.errors',
    `  io.write(string.format("${MARK} requests=%d errors=%d duration=%d\\n", summary.requests, e.connect + e.read + e.write + e.status + e.timeout, summary.duration))`,
    '  local parts = {}',
    // #latency is the number of distinct latencies (µs); latency(n) the n-th one and its count.
    '  for n = 1, #latency do local v, c = latency(n); parts[#parts + 1] = v .. ":" .. c end',
    `  io.write("${MARK} latency-us " .. table.concat(parts, ",") .. "\\n")`,
    'end',
    '',
  ].join('\n');
}

/** Writes the script for `req` into `dir` (which the caller removes), readable by its owner only. */
export function writeWrkScript(dir: string, name: string, req: WrkRequest): string {
  const path = join(dir, `${name}.lua`);
  writeFileSync(path, wrkScript(req), { mode: 0o600 });
  return path;
}

/**
 * wrk "corrects" its latency histogram for coordinated omission before the script sees it
 * (stats_correct: every latency n ≥ 2E, E the mean interval between one connection's requests,
 * also adds its count at n − E, n − 2E, … down to above E). The raw statement's closed loop is
 * timed uncorrected, so the correction is undone here: going down from the largest latency, what
 * higher latencies added is subtracted first. Returns the measured histogram (µs → count).
 */
export function undoWrkCorrection(corrected: Map<number, number>, requests: number, connections: number, durationUs: number): Map<number, number> {
  const perConnection = Math.floor(requests / connections);
  if (perConnection === 0) return new Map(corrected);
  const expected = Math.floor(durationUs / perConnection);
  if (expected <= 0) return new Map(corrected);
  const added = new Map<number, number>();
  const measured = new Map<number, number>();
  for (const n of [...corrected.keys()].sort((a, b) => b - a)) {
    const count = corrected.get(n)! - (added.get(n) ?? 0);
    if (count > 0) measured.set(n, count);
    if (count > 0 && n >= expected * 2) {
      for (let m = n - expected; m > expected; m -= expected) added.set(m, (added.get(m) ?? 0) + count);
    }
  }
  return measured;
}

/**
 * The script's lines and bash's `times` out of one run over `connections` connections: samples
 * (ms), the requests wrk sent and its CPU seconds. Answers of status 400 and above, timeouts and
 * socket errors are errors.
 */
export function parseWrkRun(stdout: string, stderr: string, seconds: number, connections: number): WrkSlice {
  const counts = new RegExp(`^${MARK} requests=(\\d+) errors=(\\d+) duration=(\\d+)$`, 'm').exec(stdout);
  const hist = new RegExp(`^${MARK} latency-us (.*)$`, 'm').exec(stdout);
  if (!counts || !hist) throw new Error(`wrk printed no result (is its script's done() run?): ${stdout.slice(-400)} ${stderr.slice(-400)}`);
  const requests = Number(counts[1]);
  const errors = Number(counts[2]);
  const corrected = new Map<number, number>();
  for (const pair of hist[1]!.split(',')) {
    if (pair === '') continue;
    const [us, n] = pair.split(':').map(Number) as [number, number];
    corrected.set(us, n);
  }
  // Error answers were timed too (wrk cannot tell them apart in its histogram); a healthy run has
  // none, and the errors column shows any.
  const latencies: number[] = [];
  for (const [us, n] of undoWrkCorrection(corrected, requests, connections, Number(counts[3]))) {
    for (let k = 0; k < n; k++) latencies.push(us / 1000);
  }
  // `times`: the shell's own user/system line, then its children's (wrk's).
  const times = [...stderr.matchAll(/^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/gm)];
  const child = times.at(-1);
  if (!child) throw new Error(`no CPU times after wrk: ${stderr.slice(-400)}`);
  const cpu = Number(child[1]) * 60 + Number(child[2]) + Number(child[3]) * 60 + Number(child[4]);
  return { samples: { latencies, errors, seconds }, sent: requests, clientCpuSeconds: cpu };
}

/** Throws, saying how to get it, when wrk is not on PATH. */
export function requireWrk(): void {
  if (spawnSync('wrk', ['--version']).error) throw new Error('wrk is not installed: run `bash scripts/services.sh` (it installs Debian\'s wrk), or BENCH_LOAD=undici for the in-process client');
}

/** Runs wrk with `script` against `url` for `seconds` (whole seconds) over `connections` connections. */
export function wrkSlice(url: string, script: string, connections: number, seconds: number): Promise<WrkSlice> {
  const secs = Math.max(1, Math.round(seconds));
  const args = ['-t', '1', '-c', String(connections), '-d', `${secs}s`, '--timeout', `${TIMEOUT_S}s`, '-s', script, url];
  return new Promise((resolve, reject) => {
    // bash's `times` after wrk reports wrk's CPU (it is the shell's only child).
    const child = spawn('bash', ['-c', 'wrk "$@"; status=$?; times >&2; exit $status', 'wrk', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`wrk exited ${code}: ${err.slice(-400) || out.slice(-400)}`));
      try {
        resolve(parseWrkRun(out, err, secs, connections));
      } catch (e) {
        reject(e instanceof Error ? e : new Error(String(e)));
      }
    });
  });
}
