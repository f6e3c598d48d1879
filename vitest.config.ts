import { defineConfig } from 'vitest/config';

// Unit and end-to-end suites live under test/. End-to-end suites spawn the
// compiled daemon from dist/, which `npm test` builds first (pretest).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    setupFiles: ['test/setup.ts'],
  },
});
