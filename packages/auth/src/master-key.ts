import { readFileSync } from 'node:fs';

/** Master keys are stored as hex (≥ 16 bytes) so they survive env vars and Secrets unchanged. */
export function parseMasterKey(text: string, source = 'master key'): Buffer {
  const hex = text.trim();
  if (!/^([0-9a-fA-F]{2})+$/.test(hex)) throw new Error(`${source} must contain only hex digits (an even number of them)`);
  const key = Buffer.from(hex, 'hex');
  if (key.length < 16) throw new Error(`${source} is ${key.length} bytes; use at least 16 (32 recommended: openssl rand -hex 32)`);
  return key;
}

export function readMasterKeyFile(path: string): Buffer {
  return parseMasterKey(readFileSync(path, 'utf8'), `master key file ${path}`);
}
