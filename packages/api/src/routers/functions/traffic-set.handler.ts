import { auditedMutation, nsName } from '../../trpc.ts';
import { setTraffic } from './set-traffic.ts';
import { SetTrafficInput } from './traffic-set.schema.ts';

export const trafficSet = auditedMutation('operator', 'functions.traffic.set', "Replace a function's traffic split (validated by @orrery/spec).", nsName())
  .input(SetTrafficInput)
  .mutation(({ ctx, input }) => setTraffic(ctx, input, input.traffic));
