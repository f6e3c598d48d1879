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
import { playbookPlanner } from './playbook-planner/index.js';
import { memoryUsageProvider } from './memory-usage/index.js';
import { loadProcessesProvider } from './load-processes/index.js';
import { thermalProvider } from './thermal/index.js';
import { networkProvider } from './network/index.js';
import { systemdUnitsProvider } from './systemd-units/index.js';
import { fileMetadataProvider } from './file-metadata/index.js';
import { aptUpgradableProvider } from './apt-upgradable/index.js';
import { pruneResultProvider } from './prune-result/index.js';
import { logLinesProvider } from './log-lines/index.js';
import { processesProvider } from './processes/index.js';

export const codeProviders: Record<string, CodeProvider> = {
  'log-summary': logSummaryProvider,
  'disk-usage': diskUsageProvider,
  answer: answerProvider,
  'playbook-planner': playbookPlanner,
  'memory-usage': memoryUsageProvider,
  'load-processes': loadProcessesProvider,
  thermal: thermalProvider,
  network: networkProvider,
  'systemd-units': systemdUnitsProvider,
  'file-metadata': fileMetadataProvider,
  'apt-upgradable': aptUpgradableProvider,
  'prune-result': pruneResultProvider,
  'log-lines': logLinesProvider,
  processes: processesProvider,
};
