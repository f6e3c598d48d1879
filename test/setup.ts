// Runs in every test file (vitest.config.ts setupFiles): temp folders made through
// test/helpers/temp.ts are removed when the file's tests are done.
import { afterAll } from 'vitest';
import { removeTempDirs } from './helpers/temp.js';

afterAll(removeTempDirs);
