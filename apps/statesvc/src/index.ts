export { createStateHandler, startStateServer, type StateServerOptions, type RunningStateServer } from './server.ts';
export { parseKeyspaces, loadKeyspacesFile, keyspaceId, type KeyspaceDeclaration, type KeyspaceTable } from './keyspaces.ts';
export { StateMetrics } from './metrics.ts';
