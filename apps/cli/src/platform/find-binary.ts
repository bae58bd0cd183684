/** The full path of an executable on $PATH (plus the sbin dirs Debian puts daemons in), or undefined. */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export function findBinary(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin', '/sbin'];
  for (const dir of dirs.filter(Boolean)) {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not here
    }
  }
  return undefined;
}
