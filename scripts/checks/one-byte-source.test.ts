import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs build script without type declarations
import { oneByteSource } from '../one-byte-source.mjs';

type Narrowed = { code: string; changed: boolean; reason?: string };
const narrow = oneByteSource as (code: string) => Promise<Narrowed>;

describe('a bundle’s source kept one byte per character', () => {
  it('replaces wide characters in line and block comments, one unit for one, so columns and the map stay put', async () => {
    const code = 'const a = 1; // response’s type — see §5\n/* “quoted” 🙂 */\nexport const b = a;\n';
    const r = await narrow(code);
    expect(r.changed).toBe(true);
    expect(r.code).toBe('const a = 1; // response?s type ? see §5\n/* ?quoted? ?? */\nexport const b = a;\n');
    expect(r.code.length).toBe(code.length);
    expect(/[^\u0000-\u00ff]/.test(r.code)).toBe(false);
  });

  it('leaves a source with a wide character outside a comment as it is, and says why', async () => {
    for (const code of ['const a = "’"; // ’\n', 'const a = String.raw`—`;\n', 'const re = /’/;\n', 'const s = `a ${1} ’`;\n']) {
      const r = await narrow(code);
      expect(r).toEqual({ code, changed: false, reason: 'a wide character outside a comment' });
    }
  });

  it('does nothing to a source that is already one byte (Latin-1 included)', async () => {
    const code = '// § and é fit in one byte\nexport const x = "é";\n';
    expect(await narrow(code)).toEqual({ code, changed: false });
  });

  it('a comment-looking text inside a string is not a comment', async () => {
    const code = 'const url = "http://x/’";\n';
    expect((await narrow(code)).changed).toBe(false);
  });
});
