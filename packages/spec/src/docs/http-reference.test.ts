import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HTTP_APIS, HTTP_DOC_PATH, renderHttpReference } from './http-reference.ts';

describe('docs/http-api.md', () => {
  it('is current (regenerate: npm run gen:http-docs)', () => {
    expect(readFileSync(HTTP_DOC_PATH, 'utf8')).toBe(renderHttpReference());
  });

  it('documents every route, error code and named schema of every API', () => {
    const doc = renderHttpReference();
    for (const api of HTTP_APIS) {
      for (const r of api.routes) expect(doc).toContain(`| ${r.method} | \`${r.path}\` |`);
      for (const code of Object.keys(api.errorCodes)) expect(doc).toContain(`| \`${code}\` | ${api.errorCodes[code]!.status} |`);
      for (const name of Object.keys(api.schemas)) expect(doc).toContain(`#### ${name}\n`);
    }
  });

  it('shows fields with type, required flag and description, linking shared shapes', () => {
    const doc = renderHttpReference();
    expect(doc).toContain('| `cursor` | string | yes | Opaque; pass it back as `cursor` for the next page. Empty when the listing is done. |');
    expect(doc).toContain('| `instance` | [RegistryRegisteredInstance](#registryregisteredinstance) | yes |');
    expect(doc).toContain('| `endpoints` | [][RegistryEndpoint](#registryendpoint) | yes |');
    expect(doc).toContain('| `weight` | integer | yes | Default 100. |');
    expect(doc).toContain('| `maxKeys` | integer \\| null | yes | Effective limit; null when not declared. |');
    expect(doc).toContain('| `lastHeartbeatAt` | number |  |');
  });

  it('every route names only error codes its API defines', () => {
    for (const api of HTTP_APIS) {
      for (const r of api.routes) for (const code of r.errors) expect(Object.keys(api.errorCodes), `${api.id} ${r.method} ${r.path}`).toContain(code);
    }
  });
});
