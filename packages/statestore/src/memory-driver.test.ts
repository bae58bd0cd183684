import { describeConformance } from './conformance-suite.ts';
import { MemoryDriver } from './memory-driver.ts';

describeConformance('memory', async () => {
  const clock = { now: 1_700_000_000_000 };
  return { driver: new MemoryDriver({ now: () => clock.now }), clock, cleanup: async () => {} };
});
