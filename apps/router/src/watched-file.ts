/**
 * Calls `onChange(text)` now and whenever the file's content changes. Polls (stat every
 * `intervalMs`) because editors and `mv` replace the inode, which a watch on the file misses;
 * and watches the file's folder (inotify) as well, so a replacement is read at once instead of up
 * to a poll later. The local operator's endpoints file is written by rename: with the poll alone
 * a rollout's route (over the store's watch) reached the router up to 200 ms before the new
 * revision's endpoints, and requests waited for them (docs/performance.md, soak). Where the folder
 * cannot be watched (no inotify left, a missing folder) the poll alone still works.
 */
import { type FSWatcher, unwatchFile, watch, watchFile } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';

export interface WatchedFile {
  stop(): void;
}

export async function watchTextFile(path: string, onChange: (text: string) => void, onError: (err: unknown) => void, intervalMs = 200): Promise<WatchedFile> {
  let last: string | undefined;
  let loading = false;
  let again = false;
  const load = async (): Promise<void> => {
    // One read at a time; a change during a read is read right after it.
    if (loading) {
      again = true;
      return;
    }
    loading = true;
    try {
      do {
        again = false;
        const text = await readFile(path, 'utf8');
        if (text === last) continue;
        last = text;
        onChange(text);
      } while (again);
    } catch (err) {
      onError(err);
    } finally {
      loading = false;
    }
  };
  await load();
  const listener = (): void => void load();
  watchFile(path, { interval: intervalMs, persistent: false }, listener);
  const name = basename(path);
  let folder: FSWatcher | undefined;
  try {
    folder = watch(dirname(path), { persistent: false }, (_event, file) => {
      if (file === null || String(file) === name) void load();
    });
    folder.on('error', () => folder?.close());
  } catch {
    folder = undefined;
  }
  return {
    stop: () => {
      unwatchFile(path, listener);
      folder?.close();
    },
  };
}
