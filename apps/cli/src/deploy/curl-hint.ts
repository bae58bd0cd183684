/**
 * The ready-to-paste curl that `orrery deploy` prints: the function's URL and, for a sticky
 * function, the key where the router reads it (so the pasted call already sticks).
 */
import type { Sticky } from '@orrery/spec';

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function curlHint(url: string, sticky?: Sticky): string {
  const base = url.endsWith('/') ? url : `${url}/`;
  if (!sticky) return `curl ${quote(base)}`;
  switch (sticky.source) {
    case 'header':
      return `curl -H ${quote(`${sticky.name}: alice`)} ${quote(base)}`;
    case 'queryparam':
      return `curl ${quote(`${base}?${encodeURIComponent(sticky.name)}=alice`)}`;
    case 'cookie':
      return `curl --cookie ${quote(`${sticky.name}=alice`)} ${quote(base)}`;
  }
}
