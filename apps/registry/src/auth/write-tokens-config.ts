import { parse as parseToml } from 'smol-toml';
import { RegistryWriteTokenSchema, RegistryWriteTokensFileSchema, type RegistryWriteToken } from '@orrery/spec';
import { scopeProblems, type WriteToken } from './write-scope.ts';

/**
 * Reads write tokens from the registry's config: `[[auth.write_tokens]]` tables in the main
 * TOML file and/or a separate TOML file of `[[write_tokens]]` tables (`write_tokens_file`,
 * e.g. a mounted Secret). A `token_file` entry reads the token from its own file. Problems name
 * the token and the field, never a token's value.
 */
export function loadWriteTokens(
  inline: unknown,
  file: string | undefined,
  readText: (path: string) => string,
): { tokens: WriteToken[]; problems: string[] } {
  const problems: string[] = [];
  const entries: Array<{ where: string; entry: RegistryWriteToken }> = [];
  const take = (list: unknown, where: string): void => {
    if (list === undefined) return;
    if (!Array.isArray(list)) {
      problems.push(`${where} must be an array of tables ([[${where}]])`);
      return;
    }
    list.forEach((raw, i) => {
      const parsed = RegistryWriteTokenSchema.safeParse(raw);
      if (parsed.success) entries.push({ where: `${where}[${i}]`, entry: parsed.data });
      else problems.push(`${where}[${i}]: ${parsed.error.issues.map((x) => `${x.path.join('.') || 'entry'}: ${x.message}`).join('; ')}`);
    });
  };
  take(inline, 'auth.write_tokens');
  if (file !== undefined) {
    try {
      const doc = RegistryWriteTokensFileSchema.safeParse(parseToml(readText(file)));
      if (doc.success) take(doc.data.write_tokens, `write_tokens (${file})`);
      else problems.push(`write tokens file ${file}: ${doc.error.issues.map((x) => `${x.path.join('.') || 'file'}: ${x.message}`).join('; ')}`);
    } catch (err) {
      problems.push(`cannot read write tokens file ${file}: ${(err as Error).message}`);
    }
  }

  const tokens: WriteToken[] = [];
  for (const { where, entry } of entries) {
    let token = entry.token;
    if (entry.token_file !== undefined) {
      try {
        token = readText(entry.token_file).trim();
      } catch (err) {
        problems.push(`${where} "${entry.name}": cannot read token_file ${entry.token_file}: ${(err as Error).message}`);
        continue;
      }
      if (token.length < 16) {
        problems.push(`${where} "${entry.name}": the token in ${entry.token_file} is shorter than 16 characters`);
        continue;
      }
    }
    const t: WriteToken = { name: entry.name, token: token!, namespaces: entry.namespaces, servicePrefixes: entry.service_prefixes };
    problems.push(...scopeProblems(t));
    tokens.push(t);
  }
  const names = new Set<string>();
  const values = new Set<string>();
  for (const t of tokens) {
    if (names.has(t.name)) problems.push(`write token name "${t.name}" is used twice; names must be unique`);
    if (values.has(t.token)) problems.push(`write token "${t.name}" has the same token as another entry; give each entry its own token`);
    names.add(t.name);
    values.add(t.token);
  }
  return { tokens, problems };
}
