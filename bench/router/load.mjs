// Closed-loop load generator in its own process: N keep-alive connections (undici Client,
// pipelining 1), each sending the next request when the previous response ends.
// Prints one JSON line: {requests, errors, rps, p50us, p99us, non2xx}.
import { Client } from 'undici';

const [url, connectionsArg, durationArg, warmupArg] = process.argv.slice(2);
const connections = Number(connectionsArg);
const durationMs = Number(durationArg);
const warmupMs = Number(warmupArg);
const u = new URL(url);
const path = u.pathname + u.search;

let measuring = false;
let stopping = false;
let requests = 0;
let errors = 0;
let non2xx = 0;
const latencies = [];

function loop(client) {
  return new Promise((resolve) => {
    const once = () => {
      if (stopping) return resolve();
      const t0 = performance.now();
      let status = 0;
      client.dispatch(
        { path, method: 'GET', headers: ['host', u.host] },
        {
          onConnect() {},
          onHeaders(s) { status = s; return true; },
          onData() { return true; },
          onComplete() {
            if (measuring) {
              requests++;
              if (status < 200 || status >= 300) non2xx++;
              latencies.push((performance.now() - t0) * 1000);
            }
            once();
          },
          onError() {
            if (measuring) errors++;
            setTimeout(once, 10);
          },
        },
      );
    };
    once();
  });
}

const clients = Array.from({ length: connections }, () => new Client(u.origin, { pipelining: 1, keepAliveTimeout: 60_000 }));
const runs = clients.map(loop);
await new Promise((r) => setTimeout(r, warmupMs));
measuring = true;
const start = performance.now();
await new Promise((r) => setTimeout(r, durationMs));
measuring = false;
const elapsed = performance.now() - start;
stopping = true;
await Promise.all(runs);
await Promise.all(clients.map((c) => c.close()));
latencies.sort((a, b) => a - b);
const q = (p) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] : NaN);
console.log(JSON.stringify({ requests, errors, non2xx, rps: (requests / elapsed) * 1000, p50us: q(0.5), p99us: q(0.99) }));
