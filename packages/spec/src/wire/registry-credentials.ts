import { z } from 'zod';

/**
 * How writers authenticate to the registry (docs/registry.md "Write credentials"), shared by
 * orrery-registry (checks), the operator (mints and configures) and the runtime (presents).
 *
 * Every register, heartbeat and deregister may carry `Authorization: Bearer <credential>`:
 * - under the reserved prefix `orrery.functions.` it must be the revision's registration
 *   credential (HKDF of the registry master key, see @orrery/auth registration-credential.ts);
 * - elsewhere, a write token whose scope covers the namespace and service, when write tokens
 *   are on (configured, or required by `require_write_tokens`).
 */

/** Services whose first two segments are these belong to the platform's workers. */
export const RESERVED_SERVICE_PREFIX = 'orrery.functions';

/** The header a writer presents its credential in (the seed's bearer style). */
export const REGISTRY_CREDENTIAL_HEADER = 'Authorization';

/** Local workers get their credential in this variable (the runtime removes it before function code runs). */
export const REGISTRY_CREDENTIAL_ENV = 'ORRERY_REGISTRY_CREDENTIAL';

/** Kubernetes workers read it from this file of the revision's mounted registry Secret. */
export const REGISTRY_CREDENTIAL_FILE = '.orrery-registry-credential';

/** The credential file: the claims travel with the token so the runtime can check it was given the right one. */
export const RegistryCredentialFileSchema = z.strictObject({
  namespace: z.string().min(1).describe('The registry namespace (the function\'s namespace).'),
  service: z.string().min(1).describe('`orrery.functions.<namespace>.<function>.<revision>`: the one service the credential covers.'),
  token: z.string().regex(/^[0-9a-f]{64}$/).describe('64 lowercase hex digits.'),
});
export type RegistryCredentialFile = z.infer<typeof RegistryCredentialFileSchema>;

const scopeEntry = (what: string) => z.string().min(1).describe(`${what}, or \`*\` for any.`);

/**
 * One scoped write token (Consul-ACL-like), as a TOML table: `[[auth.write_tokens]]` in the
 * registry's config file, or `[[write_tokens]]` in the file `write_tokens_file` names.
 * It covers a write when the instance's namespace is in `namespaces` and its service starts with
 * one of `service_prefixes` (whole segments). It never covers `orrery.functions.`.
 */
export const RegistryWriteTokenSchema = z
  .strictObject({
    name: z.string().regex(/^[A-Za-z0-9._-]{1,63}$/).describe('Shown in logs and errors instead of the token.'),
    token: z.string().min(16).optional().describe('The bearer token itself (at least 16 characters).'),
    token_file: z.string().min(1).optional().describe('Or: a file holding it (a mounted Secret).'),
    namespaces: z.array(scopeEntry('A namespace')).min(1),
    service_prefixes: z.array(scopeEntry('Leading whole segments of a service, e.g. `company.trade`')).min(1),
  })
  .refine((t) => (t.token === undefined) !== (t.token_file === undefined), { message: 'give exactly one of token and token_file' });
export type RegistryWriteToken = z.infer<typeof RegistryWriteTokenSchema>;

/** The file `write_tokens_file` names: only write tokens. */
export const RegistryWriteTokensFileSchema = z.strictObject({
  write_tokens: z.array(RegistryWriteTokenSchema),
});
export type RegistryWriteTokensFile = z.infer<typeof RegistryWriteTokensFileSchema>;
