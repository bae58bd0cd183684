/**
 * Calls `onChange(text)` now and whenever the file's content changes. Polls (stat every
 * `intervalMs`) instead of fs.watch because editors and `mv` replace the inode, which fs.watch misses.
 */
import { readFile } from 'node:fs/promises';
import { unwatchFile, watchFile } from 'node:fs';

export interface WatchedFile {
  stop(): void;
}

export async function watchTextFile(path: string, onChange: (text: string) => void, onError: (err: unknown) => void, intervalMs = 200): Promise<WatchedFile> {
  let last: string | undefined;
  const load = async (): Promise<void> => {
    try {
      const text = await readFile(path, 'utf8');
      if (text === last) return;
      last = text;
      onChange(text);
    } catch (err) {
      onError(err);
    }
  };
  await load();
  const listener = (): void => void load();
  watchFile(path, { interval: intervalMs, persistent: false }, listener);
  return { stop: () => unwatchFile(path, listener) };
}
