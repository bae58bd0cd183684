// Generic access to every kind (the CLI's apply/get/delete); the domain routers add richer views.
// `apply` is reserved by the tRPC client proxy (it is a function), hence applyManifest.
import { router } from '../../trpc.ts';
import { apply } from './apply.handler.ts';
import { remove } from './delete.handler.ts';
import { get } from './get.handler.ts';
import { list } from './list.handler.ts';

export const resourcesRouter = router({ list, get, applyManifest: apply, delete: remove });
