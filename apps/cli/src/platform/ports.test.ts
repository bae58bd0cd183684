import { describe, expect, it } from 'vitest';
import { PORT_SLOTS, planPorts } from './ports.ts';

describe('planPorts', () => {
  it('--port-base N puts the routers on N and N+1 and the store on N+2', async () => {
    const plan = await planPorts(8080);
    expect([plan.router1, plan.router2, plan.operator, plan.statesvc]).toEqual([8080, 8081, 8082, 8083]);
  });
  it('--port-base 0 picks distinct free ports', async () => {
    const plan = await planPorts(0);
    expect(new Set(Object.values(plan)).size).toBe(PORT_SLOTS.length);
  });
});
