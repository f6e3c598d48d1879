/**
 * Which sentence function speaks for which fact schema. A schema not listed
 * here gets the renderer's neutral "step X produced a Y fact" line; adding a
 * schema's sentences is one line here and one function beside its kin.
 */
import { audioSentence, imageSentence } from './media.js';
import { failedSentence, fileSentence, pruneSentence, unitSentence, upgradableSentence } from './services.js';
import { loadSentence, memorySentence, networkSentence, thermalSentence } from './system.js';
import { listeningSentence, logLinesSentence, processListSentence } from './reads.js';

export const SENTENCES: Record<string, (fact: Record<string, unknown>, goal: string) => string> = {
  'memory_usage@1': memorySentence,
  'load_processes@1': loadSentence,
  'thermal@1': thermalSentence,
  'network@1': networkSentence,
  'unit_status@1': unitSentence,
  'failed_units@1': failedSentence,
  'upgradable_packages@1': upgradableSentence,
  'file_metadata@1': fileSentence,
  'image_properties@1': imageSentence,
  'audio_properties@1': audioSentence,
  'prune_result@1': pruneSentence,
  'log_lines@1': logLinesSentence,
  'process_list@1': processListSentence,
  'listening_sockets@1': listeningSentence,
};
