import { describe, expect, it } from 'vitest';
import { credentialSecrets, parseQueueCredentials } from './queue-credentials.ts';
import { queueSettingsFromFlags } from './queue-flags.ts';

describe('queueSettingsFromFlags', () => {
  it('absent: no broker (queue triggers say NoBroker)', () => {
    expect(queueSettingsFromFlags({})).toBeUndefined();
  });
  it('one URL or a cluster, with a credentials file', () => {
    expect(queueSettingsFromFlags({ 'queue-url': 'nats://127.0.0.1:4222' })).toEqual({ servers: ['nats://127.0.0.1:4222'], credentialsFile: undefined });
    expect(queueSettingsFromFlags({ 'queue-url': 'nats://a:4222, tls://b:4222/', 'queue-credentials-file': '/etc/q' })).toEqual({
      servers: ['nats://a:4222', 'tls://b:4222/'],
      credentialsFile: '/etc/q',
    });
  });
  it.each([
    ['http://a:4222', /nats:\/\/ or tls:\/\//],
    ['a:4222', /nats:\/\/ or tls:\/\//],
    ['nats//a', /not a URL/],
    ['nats://a:4222/x', /without a path or query/],
    ['nats://a:4222?x=1', /without a path or query/],
    [',', /at least one/],
  ])('refuses %s', (url, message) => {
    expect(() => queueSettingsFromFlags({ 'queue-url': url })).toThrow(message);
  });
  it('refuses credentials in the URL without echoing them', () => {
    for (const url of ['nats://user:hunter2@a:4222', 'nats://tok-hunter2@a:4222', 'nats://a:4222,nats://u:hunter2@b:4222']) {
      let message = '';
      try {
        queueSettingsFromFlags({ 'queue-url': url });
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toMatch(/carries credentials.*--queue-credentials-file/);
      expect(message).not.toContain('hunter2');
    }
  });
  it('a credentials file needs a URL', () => {
    expect(() => queueSettingsFromFlags({ 'queue-credentials-file': '/etc/q' })).toThrow(/needs --queue-url/);
  });
});

const CREDS = `-----BEGIN NATS USER JWT-----
eyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ.payload.sig
------END NATS USER JWT------

************************* IMPORTANT *************************
NKEY Seed printed below can be used to sign and prove identity.

-----BEGIN USER NKEY SEED-----
SUAIBDPBAUTWCWBKIO6XHQNINK5FWJW4OHLXC3HQ2KFE4PEJUA44CNHTC4
------END USER NKEY SEED------
`;

describe('parseQueueCredentials', () => {
  it('a .creds file as nsc writes it', () => {
    expect(parseQueueCredentials(CREDS)).toEqual({ kind: 'creds', creds: CREDS });
    expect(credentialSecrets(parseQueueCredentials(CREDS))).toEqual(['eyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ.payload.sig', 'SUAIBDPBAUTWCWBKIO6XHQNINK5FWJW4OHLXC3HQ2KFE4PEJUA44CNHTC4']);
  });
  it('user and password, or a token; blank lines and comments skipped', () => {
    expect(parseQueueCredentials('# orrery\nuser=orrery\npassword = s3cret=x\n')).toEqual({ kind: 'user', user: 'orrery', pass: 's3cret=x' });
    expect(parseQueueCredentials('token=abc\n')).toEqual({ kind: 'token', token: 'abc' });
    expect(credentialSecrets({ kind: 'user', user: 'u', pass: 'p' })).toEqual(['p']);
    expect(credentialSecrets({ kind: 'token', token: 't' })).toEqual(['t']);
  });
  it.each([
    ['', /needs user= and password=/],
    ['user=a\n', /needs user= and password=/],
    ['token=a\nuser=b\npassword=c', /one or the other/],
    ['token=a\ntoken=b', /token twice/],
    ['token=', /empty token/],
    ['hunter2', /line 1 .* not user=/],
    ['secret: hunter2', /line 1/],
    ['-----BEGIN NATS USER JWT-----\nabc\n------END NATS USER JWT------', /no "-----BEGIN USER NKEY SEED-----"/],
  ])('refuses %j without echoing it', (text, message) => {
    let err = '';
    try {
      parseQueueCredentials(text);
    } catch (e) {
      err = (e as Error).message;
    }
    expect(err).toMatch(message);
    expect(err).not.toContain('hunter2');
  });
});
