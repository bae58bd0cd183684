import { router } from '../../trpc.ts';
import { list } from './list.handler.ts';

export const auditRouter = router({ list });
