/**
 * settings@1 as a zod schema, for what wants the schema itself (the docs'
 * field check). The daemon reads its settings through settings.ts, which loads
 * zod only for a file that is wrong.
 */
import { z } from 'zod';
import { buildSettingsSchema } from './settings.js';

export const settingsSchema = buildSettingsSchema(z);
