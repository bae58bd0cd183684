import { router } from '../../trpc.ts';
import { addLearner } from './add-learner.handler.ts';
import { clusters } from './clusters.handler.ts';
import { forcePromote } from './force-promote.handler.ts';
import { instances } from './instances.handler.ts';
import { members } from './members.handler.ts';
import { promote } from './promote.handler.ts';
import { remove } from './remove.handler.ts';
import { scale } from './scale.handler.ts';
import { transferLeader } from './transfer-leader.handler.ts';

export const registryRouter = router({ clusters, members, instances, addLearner, promote, forcePromote, remove, transferLeader, scale });
