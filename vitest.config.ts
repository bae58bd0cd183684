import { defineConfig } from 'vitest/config';

// Every workspace is a vitest project; tests sit beside the code; browser specs live in e2e/.
export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*', 'e2e'],
  },
});
