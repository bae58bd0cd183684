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
});
