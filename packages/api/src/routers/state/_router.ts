import { router } from '../../trpc.ts';
import { history } from './history.handler.ts';
import { hotKeys } from './hot-keys.handler.ts';
import { keyspaces } from './keyspaces.handler.ts';
import { keyspaceWrites } from './keyspace-writes.handler.ts';
import { namespaces } from './namespaces.handler.ts';

export const stateRouter = router({ keyspaces, namespaces, history, hotKeys, keyspaceWrites });
