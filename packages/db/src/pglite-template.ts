/**
 * A fresh embedded database (PGlite) starts from a copy of one that already ran every migration.
 * Creating a PGlite cluster (initdb inside WebAssembly) and migrating it cost ~7 s of CPU and
 * 10–20 s on a loaded two-core machine — at every start of a local operator, a statesvc on
 * embedded PGlite, and every test that opens one. Loading a tarball of a migrated cluster takes
 * ~2 s. The first fresh database that migrates writes the tarball (best effort); the key covers
 * PGlite's version and every migration file, so a new migration never loads an old schema, and
 * `migrate()` still runs after a load (it finds nothing to apply).
 *
 * ORRERY_PGLITE_TEMPLATE=off never uses or writes one; ORRERY_PGLITE_TEMPLATE_DIR moves the cache
 * (default node_modules/.cache/orrery-pglite of the checkout or install).
 */
import { PGlite } from '@electric-sql/pglite';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileWasmWithLiftoffOnly, embeddedStartParams } from './pglite-memory.ts';
import { extractTemplate } from './pglite-template-extract.ts';

const MIGRATIONS = join(dirname(fileURLToPath(import.meta.url)), '..', 'drizzle');
const PGLITE_PACKAGE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'node_modules', '@electric-sql', 'pglite', 'package.json');

/** Clients that started empty without a template: the first to finish migrating becomes one. */
const untemplated = new WeakSet<PGlite>();

const enabled = () => process.env.ORRERY_PGLITE_TEMPLATE !== 'off';

/** Every file under the migrations folder, in a stable order (path and content). */
function migrationFiles(dir: string, prefix = ''): Array<[string, Buffer]> {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((e) => (e.isDirectory() ? migrationFiles(join(dir, e.name), `${prefix}${e.name}/`) : [[`${prefix}${e.name}`, readFileSync(join(dir, e.name))] as [string, Buffer]]));
}

/** The template's file for these migrations and this PGlite (undefined: no way to tell, so none). */
export function templateFile(migrations = MIGRATIONS): string | undefined {
  try {
    const h = createHash('sha256');
    h.update(existsSync(PGLITE_PACKAGE) ? (JSON.parse(readFileSync(PGLITE_PACKAGE, 'utf8')) as { version: string }).version : 'unknown');
    for (const [name, content] of migrationFiles(migrations)) h.update(`\0${name}\0`).update(content);
    const dir = process.env.ORRERY_PGLITE_TEMPLATE_DIR ?? join(dirname(PGLITE_PACKAGE), '..', '..', '.cache', 'orrery-pglite');
    return join(dir, `pglite-${h.digest('hex').slice(0, 20)}.tar`);
  } catch {
    return undefined;
  }
}

const isEmpty = (dataDir: string | undefined) => !dataDir || !existsSync(dataDir) || readdirSync(dataDir).length === 0;

/** A PGlite on `dataDir` (in memory when absent); an empty one starts from the template when there is one. */
export function openPglite(dataDir?: string): PGlite {
  compileWasmWithLiftoffOnly();
  const options = { ...(dataDir ? { dataDir } : {}), startParams: embeddedStartParams() };
  if (!enabled() || !isEmpty(dataDir)) return new PGlite(options);
  const file = templateFile();
  let template: Blob | undefined;
  try {
    if (file && existsSync(file)) {
      const tar = readFileSync(file);
      if (!dataDir) template = new Blob([tar]);
      else {
        // On disk: unpacked by us, so PGlite never holds the tarball (pglite-template-extract.ts).
        extractTemplate(tar, dataDir);
        return new PGlite(options);
      }
    }
  } catch {
    template = undefined;
  }
  const client = new PGlite({ ...options, ...(template ? { loadDataDir: template } : {}) });
  if (!template) untemplated.add(client);
  return client;
}

/** After migrating: a client that started empty without a template leaves one for the next (errors ignored). */
export async function keepAsTemplate(client: PGlite): Promise<void> {
  if (!untemplated.delete(client) || !enabled()) return;
  const file = templateFile();
  if (!file) return;
  const tmp = `${file}.tmp-${process.pid}`;
  try {
    const tar = Buffer.from(await (await client.dumpDataDir('none')).arrayBuffer());
    mkdirSync(dirname(file), { recursive: true });
    // Renamed into place: a process starting meanwhile reads a whole tarball or none.
    writeFileSync(tmp, tar);
    renameSync(tmp, file);
    // Templates of older migrations are never loaded again (41 MB each).
    for (const old of readdirSync(dirname(file))) if (/^pglite-[0-9a-f]+\.tar$/.test(old) && join(dirname(file), old) !== file) rmSync(join(dirname(file), old), { force: true });
  } catch {
    rmSync(tmp, { force: true });
  }
}
