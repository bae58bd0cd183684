/**
 * The console's path for each object it shows, so every object has a deep link and whoever
 * links to one (the console's lists, the admin API's overview alerts) builds the same URL.
 * Sections of a page are fragment ids the page gives the section's element.
 */
const seg = encodeURIComponent;

/** Fragment id of a function page's sticky-routing panel. */
export const STICKY_SECTION_ID = 'sticky';

/** Fragment id of one revision in a function page's revisions timeline. */
export function revisionSectionId(revision: string): string {
  return `rev-${revision}`;
}

export function functionPath(namespace: string, name: string): string {
  return `/functions/${seg(namespace)}/${seg(name)}`;
}

export function functionStickyPath(namespace: string, name: string): string {
  return `${functionPath(namespace, name)}#${STICKY_SECTION_ID}`;
}

export function revisionPath(namespace: string, fn: string, revision: string): string {
  return `${functionPath(namespace, fn)}#${revisionSectionId(revision)}`;
}

/** A namespace's state page, with one keyspace chosen for its history when given. */
export function statePath(namespace: string, keyspace?: string): string {
  return `/state/${seg(namespace)}${keyspace ? `?keyspace=${seg(keyspace)}` : ''}`;
}

/** Fragment id of a keyspace's hot-keys panel on its namespace's state page. */
export const HOT_KEYS_SECTION_ID = 'hot-keys';

/** A keyspace's hot-keys panel. */
export function hotKeysPath(namespace: string, keyspace: string): string {
  return `${statePath(namespace, keyspace)}#${HOT_KEYS_SECTION_ID}`;
}

/** Fragment id of a keyspace's change feed, idempotency and fences panel on its namespace's state page. */
export const KEYSPACE_WRITES_SECTION_ID = 'writes';

/** A keyspace's change feed, idempotency and fences panel. */
export function keyspaceWritesPath(namespace: string, keyspace: string): string {
  return `${statePath(namespace, keyspace)}#${KEYSPACE_WRITES_SECTION_ID}`;
}

export function stateSyncPath(namespace: string, name: string): string {
  return `/statesync/${seg(namespace)}/${seg(name)}`;
}

export function registryClusterPath(namespace: string, name: string): string {
  return `/registry/${seg(namespace)}/${seg(name)}`;
}
