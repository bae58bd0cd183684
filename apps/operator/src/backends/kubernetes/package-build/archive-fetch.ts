/**
 * The init container of a build whose package names a `url`: fetches the archive into the pod's
 * archive folder, refusing more than the builder accepts (orrery-build then checks its sha256, so
 * a tampered or wrong download fails as ArchiveInvalid). Plain CommonJS on the builder image's node.
 */
export const ARCHIVE_FETCH_SCRIPT = String.raw`
const fs = require('node:fs');
const [url, dest, max] = process.argv.slice(1);
(async () => {
  const res = await fetch(url, { redirect: 'follow', signal: AbortSignal.timeout(120000) });
  if (!res.ok) throw new Error('GET ' + url + ' answered ' + res.status);
  const chunks = []; let size = 0;
  for await (const c of res.body) { size += c.length; if (size > Number(max)) throw new Error('the archive at ' + url + ' is larger than ' + max + ' bytes'); chunks.push(c); }
  fs.writeFileSync(dest, Buffer.concat(chunks));
})().catch((e) => { console.error(e.message); try { fs.writeFileSync('/dev/termination-log', JSON.stringify({ phase: 'Failed', reason: 'ArchiveMissing', message: e.message })); } catch {} process.exit(1); });
`;

export function archiveFetchCommand(url: string, dest: string, maxBytes: number): string[] {
  return ['node', '-e', ARCHIVE_FETCH_SCRIPT, '--', url, dest, String(maxBytes)];
}
