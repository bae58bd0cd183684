/**
 * ensureGeneratedSecret on the real API server: replicas racing at first start all end up with
 * one value (create-only; the losers' 409 AlreadyExists makes them read the winner's), a later
 * start reads it back unchanged, and a Secret someone else made is used as it is, never replaced.
 */
import { adminKubeConfig, auditEvents, createNamespace } from '@orrery/kube-testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from '../kube-client.ts';
import { ensureGeneratedSecret } from './generated-secret.ts';

let client: KubeClient;
let NS: string;
let dispose: () => Promise<void>;

beforeAll(async () => {
  client = new KubeClient(adminKubeConfig());
  ({ name: NS, dispose } = await createNamespace('generated-secret'));
});
afterAll(async () => dispose());

describe('generated Secrets', () => {
  it('five replicas racing at first start all get the one value that was stored', async () => {
    const spec = { name: 'orrery-store-token', key: 'token' };
    const values = await Promise.all(Array.from({ length: 5 }, () => ensureGeneratedSecret(client, NS, spec)));
    expect(new Set(values).size).toBe(1);
    expect(values[0]).toMatch(/^[0-9a-f]{64}$/);
    const stored = await client.get<{ data: Record<string, string> } & import('../kube-client.ts').KubeObject>('v1', 'Secret', NS, 'orrery-store-token');
    expect(Buffer.from(stored!.data.token!, 'base64').toString()).toBe(values[0]);
    // Exactly one create succeeded; the API server refused the others (409), nothing was updated.
    const writes = auditEvents((e) => e.objectRef?.namespace === NS && e.objectRef.resource === 'secrets' && e.objectRef.name === 'orrery-store-token' && ['create', 'update', 'patch'].includes(e.verb));
    expect(writes.filter((e) => e.verb === 'create' && e.responseStatus?.code === 201)).toHaveLength(1);
    expect(writes.filter((e) => e.verb !== 'create')).toEqual([]);
    // A restart reads the same value.
    expect(await ensureGeneratedSecret(client, NS, spec)).toBe(values[0]);
  });

  it('uses a Secret someone else made, and refuses one that lacks the key instead of overwriting it', async () => {
    await client.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'mine', namespace: NS }, stringData: { 'master-key': 'ab'.repeat(32) } } as never);
    expect(await ensureGeneratedSecret(client, NS, { name: 'mine', key: 'master-key' })).toBe('ab'.repeat(32));
    await expect(ensureGeneratedSecret(client, NS, { name: 'mine', key: 'token' })).rejects.toThrow(/has no data key "token": add it, or delete the Secret/);
  });
});
