import { defineConfig } from 'vitest/config';

// Browser specs: one local platform (orrery up) for the whole project, one file at a time.
export default defineConfig({
  test: {
    name: 'e2e',
    include: ['**/*.e2e.test.ts'],
    globalSetup: ['./platform.global-setup.ts'],
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 240_000,
  },
});
