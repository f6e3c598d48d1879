/**
 * The registry of shipped `code` providers: a manifest's `entry` names a key
 * here. Adding a code provider means adding one line; nothing else in the
 * runtime changes. Shell providers (`providers/*.sh`) are not listed: their
 * manifests name the command.
 */
import type { CodeProvider } from './types.js';
import { logSummaryProvider } from './log-summary/index.js';
import { diskUsageProvider } from './disk-usage/index.js';
import { answerProvider } from './answer/index.js';

export const codeProviders: Record<string, CodeProvider> = {
  'log-summary': logSummaryProvider,
  'disk-usage': diskUsageProvider,
  answer: answerProvider,
};
