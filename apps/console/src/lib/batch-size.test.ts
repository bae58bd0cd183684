import { describe, expect, it } from 'vitest';
import { MAX_BATCH_SIZE } from '@orrery/api/http-guards';
import { CONSOLE_MAX_BATCH_SIZE } from './batch-size.ts';

describe('the console batch link', () => {
  it("splits batches at the admin API's maxBatchSize", () => {
    expect(CONSOLE_MAX_BATCH_SIZE).toBe(MAX_BATCH_SIZE);
  });
});
