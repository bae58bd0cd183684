import { router } from '../../trpc.ts';
import { history } from './history.handler.ts';
import { live } from './live.handler.ts';

export const stickyRouter = router({ live, history });
