import { router } from '../../trpc.ts';
import { summary } from './summary.handler.ts';

export const overviewRouter = router({ summary });
