import { router } from '../../trpc.ts';
import { list } from './list.handler.ts';

export const statesyncRouter = router({ list });
