import { describe, expect, it } from 'vitest';
import { planQueueBroker, queueUrlProblem } from './queue-broker.ts';

describe('planQueueBroker', () => {
  it('a given URL wins, whether or not nats-server is installed', () => {
    expect(planQueueBroker({ queueUrl: 'nats://broker:4222', natsServer: '/usr/sbin/nats-server', port: 8089, dataDir: '/d' })).toEqual({ kind: 'external', url: 'nats://broker:4222' });
  });
  it('else our own nats-server on loopback, JetStream under the data dir', () => {
    expect(planQueueBroker({ natsServer: '/usr/sbin/nats-server', port: 8089, dataDir: '/d' })).toEqual({
      kind: 'child',
      url: 'nats://127.0.0.1:8089',
      command: '/usr/sbin/nats-server',
      args: ['-js', '-sd', '/d/nats', '-a', '127.0.0.1', '-p', '8089'],
      storeDir: '/d/nats',
    });
  });
  it('else none, saying what to install', () => {
    expect(planQueueBroker({ port: 8089, dataDir: '/d' })).toEqual({ kind: 'none', reason: expect.stringContaining('apt-get install nats-server') });
  });
});

describe('queueUrlProblem', () => {
  it.each([
    ['nats://127.0.0.1:4222', undefined],
    ['nats://a:4222,tls://b:4222', undefined],
    ['http://a:4222', /nats:\/\/ or tls:\/\//],
    ['nats//a', /not a URL/],
    ['nats://u:secret@a:4222', /credentials/],
  ])('%s → %s', (url, problem) => {
    const got = queueUrlProblem(url);
    if (problem === undefined) expect(got).toBeUndefined();
    else expect(got).toMatch(problem);
    expect(got ?? '').not.toContain('secret');
  });
});
