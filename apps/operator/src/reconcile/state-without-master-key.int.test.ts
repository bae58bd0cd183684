/**
 * Development without a master key (issue 21 item 12; RFC-0023: "a dev cluster without a master
 * key writes a placeholder token, statesvc's pass-through mode accepts any bearer — the SDK
 * contract stays the same"). A real operator with --state-url and no --master-key-file, a real
 * statesvc with --insecure-pass-through: pool and deploy workers still get their token file
 * (holding the marked placeholder) and `ctx.state` works as with a key.
 */
import { STATE_PLACEHOLDER_TOKEN } from '@orrery/auth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Platform, revisionReady, startPlatform } from '../testing/platform.ts';

// Reads the token file the runtime wrote and counts with ctx.state (create-only, then CAS).
const SOURCE = `
import { readFileSync } from 'node:fs';
export default async (request, ctx) => {
  const file = JSON.parse(readFileSync(process.env.ORRERY_STATE_TOKEN_PATH, 'utf8'));
  const current = await ctx.state.get('n');
  const n = (current?.value ?? 0) + 1;
  await ctx.state.cas('n', current?.version ?? 0, n);
  return Response.json({ n, file, tokenInEnv: process.env.ORRERY_STATE_TOKEN ?? null });
};`;

type Answer = { n: number; file: { namespace: string; keyspace: string; token: string }; tokenInEnv: string | null };

describe('ctx.state without a master key (operator placeholder token, statesvc pass-through)', () => {
  let p: Platform;
  const fn = (name: string, executor: 'pool' | 'deploy') => ({
    apiVersion: 'orrery.dev/v1alpha1',
    kind: 'Function',
    metadata: { name, namespace: 'default' },
    spec: { template: { source: { inline: SOURCE }, executor, timeoutSeconds: 30 }, state: { keyspace: `${name}-ks` } },
  });

  beforeAll(async () => {
    p = await startPlatform({
      keyspaces: [
        { namespace: 'default', keyspace: 'pooled-ks' },
        { namespace: 'default', keyspace: 'deployed-ks' },
      ],
      statePassThrough: true,
      operatorArgs: ['--pool-size', '1'],
    });
    await p.store.apply(fn('pooled', 'pool'));
    await p.store.apply(fn('deployed', 'deploy'));
    await revisionReady(p, 'pooled-00001');
    await revisionReady(p, 'deployed-00001');
    await p.publishRoutes();
  }, 240_000);

  afterAll(async () => {
    await p?.stop();
  }, 30_000);

  for (const name of ['pooled', 'deployed']) {
    it(`${name}: the token file holds the placeholder and ctx.state reads and writes`, { timeout: 60_000 }, async () => {
      const call = async (): Promise<Answer> => {
        const res = await fetch(`${p.routerUrl}/default/${name}/`, { method: 'POST' });
        const text = await res.text();
        expect(res.status, text).toBe(200);
        return JSON.parse(text) as Answer;
      };
      const first = await call();
      expect(first.file).toEqual({ namespace: 'default', keyspace: `${name}-ks`, token: STATE_PLACEHOLDER_TOKEN });
      expect(first.tokenInEnv).toBeNull();
      expect(first.n).toBe(1);
      expect((await call()).n).toBe(2);
    });
  }
});
