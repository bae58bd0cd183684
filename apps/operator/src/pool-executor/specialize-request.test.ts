import { parseResource, type Revision } from '@orrery/spec';
import { describe, expect, it } from 'vitest';
import { specializeRequest } from './specialize-request.ts';

const parsed = parseResource({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Revision',
  metadata: { name: 'cart-00001', namespace: 'shop' },
  spec: { function: 'cart', template: { source: { inline: 'x' }, executor: 'pool' } },
});
if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
const rev = parsed.resource as Revision;
const creds = { url: 'http://statesvc', namespace: 'shop', keyspace: 'cart', token: 't' };

describe('specializeRequest', () => {
  it('carries the state credentials and URL, and stateFencing only for a fencing function', () => {
    const plain = specializeRequest(rev, { inline: 'x' }, creds);
    expect(plain).toMatchObject({ stateCredentials: { namespace: 'shop', keyspace: 'cart', token: 't' }, stateUrl: 'http://statesvc' });
    expect(plain).not.toHaveProperty('stateFencing');
    expect(specializeRequest(rev, { inline: 'x' }, { ...creds, fencing: true })).toMatchObject({ stateFencing: true });
    const stateless = specializeRequest(rev, { inline: 'x' });
    expect(stateless.stateCredentials).toBeUndefined();
    expect(stateless).not.toHaveProperty('stateFencing');
  });

  it('passes a built package as {dir, main}, as the runtime takes it (deploy mode: --source-dir/--source-main)', () => {
    expect(specializeRequest(rev, { dir: '/var/orrery/packages/built/k1', main: 'src/handler.mjs' }).source).toEqual({ dir: '/var/orrery/packages/built/k1', main: 'src/handler.mjs' });
    expect(specializeRequest(rev, { dir: '/data/packages/built/k1' }).source).toEqual({ dir: '/data/packages/built/k1' });
  });
});
