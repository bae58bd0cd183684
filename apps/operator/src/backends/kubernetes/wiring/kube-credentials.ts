/**
 * Credentials, the second wiring step of the Kubernetes backend: the tokens and keys this replica
 * holds, from mounted files (read once at start) or from Secrets in --lease-namespace. A Secret
 * nobody supplied is made once by whichever replica starts first (create-only, so racing replicas
 * all read the winner's) and kept across upgrades, since the chart never renders it. Every value
 * is registered with the log redaction.
 */
import { readFileSync } from 'node:fs';
import { readAdminTokenFile } from '@orrery/api';
import { parseMasterKey, readMasterKeyFile } from '@orrery/auth';
import { registerSecret } from '@orrery/log';
import { exitStartFailed } from '../../../wiring/command-line.ts';
import { ensureGeneratedSecret } from '../bootstrap/generated-secret.ts';
import type { KubeClient } from '../kube-client.ts';
import type { GeneratedSecretFlag, KubeOperatorConfig } from './kube-config.ts';

export interface KubeCredentials {
  storeToken: string | undefined;
  adminToken: string | undefined;
  /** statesvc's master key (state tokens, keyspace cleanup). */
  masterKey: Buffer | undefined;
  /** Registry write credentials for the registries this operator runs: the registration key first (then the previous one during a rotation), and the write tokens. */
  registryAuth: { masterKeys: Buffer[]; writeTokensToml: string | undefined; requireWriteTokens: boolean };
  /** --database-url with the password from --database-password-secret put in. */
  databaseUrl: string | undefined;
}

export async function readKubeCredentials(config: KubeOperatorConfig, client: KubeClient, log: (msg: string) => void): Promise<KubeCredentials> {
  const fromSecret = async (secret: GeneratedSecretFlag | undefined) => {
    if (!secret) return undefined;
    try {
      return await ensureGeneratedSecret(client, config.lease.namespace, secret.ref, log);
    } catch (err) {
      return exitStartFailed(`--${secret.flag}: ${(err as Error).message}`);
    }
  };
  for (const other of config.secrets.others) registerSecret(await fromSecret(other));
  const generated = {
    storeToken: await fromSecret(config.secrets.storeToken),
    adminToken: await fromSecret(config.secrets.adminToken),
    masterKey: await fromSecret(config.secrets.masterKey),
    registryMasterKey: await fromSecret(config.secrets.registryMasterKey),
    databasePassword: await fromSecret(config.secrets.databasePassword),
  };
  for (const value of Object.values(generated)) registerSecret(value);

  const masterKey = config.masterKeyFile
    ? readMasterKeyFile(config.masterKeyFile)
    : generated.masterKey
      ? parseMasterKey(generated.masterKey, `--master-key-secret ${config.secrets.masterKey!.text}`)
      : undefined;
  registerSecret(masterKey?.toString('hex'));

  const registryAuth = (() => {
    try {
      const { masterKeyFile, previousMasterKeyFile, writeTokensFile, requireWriteTokens } = config.registryAuth;
      const keys = [masterKeyFile, previousMasterKeyFile].filter((f): f is string => !!f).map(readMasterKeyFile);
      if (generated.registryMasterKey) keys.unshift(parseMasterKey(generated.registryMasterKey, `--registry-master-key-secret ${config.secrets.registryMasterKey!.text}`));
      for (const key of keys) registerSecret(key.toString('hex'));
      return { masterKeys: keys, writeTokensToml: writeTokensFile ? readFileSync(writeTokensFile, 'utf8') : undefined, requireWriteTokens };
    } catch (err) {
      return exitStartFailed(`registry write credentials: ${(err as Error).message}`);
    }
  })();

  const storeToken = (() => {
    if (!config.storeTokenFile) return generated.storeToken;
    try {
      const token = readFileSync(config.storeTokenFile, 'utf8').trim();
      registerSecret(token);
      return token;
    } catch (err) {
      return exitStartFailed(`cannot read --store-token-file: ${(err as Error).message}`);
    }
  })();
  const adminToken = (() => {
    try {
      if (generated.adminToken !== undefined && generated.adminToken.length < 16) return exitStartFailed(`--admin-token-secret: the token holds ${generated.adminToken.length} characters; use at least 16`);
      const token = config.adminTokenFile ? readAdminTokenFile(config.adminTokenFile) : generated.adminToken;
      registerSecret(token);
      return token;
    } catch (err) {
      return exitStartFailed((err as Error).message);
    }
  })();

  return { storeToken, adminToken, masterKey, registryAuth, databaseUrl: withPassword(config.databaseUrl, generated.databasePassword) };
}

/** The database URL with the password from --database-password-secret put in (the URL in the pod spec carries none; kube-config.ts checked it is a URL). */
function withPassword(url: string | undefined, password: string | undefined): string | undefined {
  if (!url || password === undefined) return url;
  const u = new URL(url);
  u.password = encodeURIComponent(password);
  return u.toString();
}
