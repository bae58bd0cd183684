/**
 * How the `orrery-registry` processes the operator runs are told about write credentials
 * (docs/registry.md "Write credentials"): file paths only — the registry master key the
 * operator mints registration credentials from, the previous one during a rotation, the write
 * tokens file — and whether write tokens are required. No secret is ever on a command line.
 */
export interface RegistryApiAuth {
  masterKeyFile?: string;
  previousMasterKeyFile?: string;
  writeTokensFile?: string;
  /** Other services need a write token even when the file holds none (no open registration). */
  requireWriteTokens?: boolean;
}

export function registryAuthArgs(auth: RegistryApiAuth | undefined): string[] {
  if (!auth) return [];
  const args: string[] = [];
  if (auth.masterKeyFile) args.push(`--registry-master-key-file=${auth.masterKeyFile}`);
  if (auth.masterKeyFile && auth.previousMasterKeyFile) args.push(`--previous-registry-master-key-file=${auth.previousMasterKeyFile}`);
  if (auth.writeTokensFile) args.push(`--write-tokens-file=${auth.writeTokensFile}`);
  if (auth.requireWriteTokens) args.push('--require-write-tokens');
  return args;
}
