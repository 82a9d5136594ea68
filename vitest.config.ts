import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 90_000,
    hookTimeout: 120_000,
    // two cores: keep database-heavy files from starving each other
    maxWorkers: 2,
  },
});
