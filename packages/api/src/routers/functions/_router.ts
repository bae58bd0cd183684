// `apply` is reserved by tRPC (the client proxy is a function), so the procedure is `applyManifest`.
import { router } from '../../trpc.ts';
import { apply } from './apply.handler.ts';
import { remove } from './delete.handler.ts';
import { get } from './get.handler.ts';
import { list } from './list.handler.ts';
import { live } from './live.handler.ts';
import { revisions } from './revisions.handler.ts';
import { rollback } from './rollback.handler.ts';
import { trafficSet } from './traffic-set.handler.ts';

export const functionsRouter = router({ list, get, live, revisions, applyManifest: apply, delete: remove, traffic: router({ set: trafficSet }), rollback });
