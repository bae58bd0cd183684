import { hkdfSync } from 'node:crypto';

/** HKDF-SHA256 with an empty salt, 32 bytes (the RFC-0023 / pkg/auth/hmac construction). */
export function hkdf32(masterKey: Buffer, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), Buffer.from(info, 'utf8'), 32));
}
