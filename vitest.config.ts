import { defineConfig } from 'vitest/config';

// Every workspace is a vitest project; tests sit beside the code.
export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*'],
  },
});
