/**
 * The agent library (design §9): retrieval, disclosure, token counting, the
 * prompt budget and tool-output compaction, for the runtime and `pico plan`
 * to wire in. Every module is pure; none reads a file or a manifest.
 */
export type { AgentTool } from './types.js';
export { AGENT_DEFAULTS, MIN_COMPACT_TOKENS, agentSettingsShape, agentSettingsSchema, type AgentSettings } from './settings.js';
export { terms, stem, words } from '../memory/terms.js';
export { rankTools, indexFor, toolSetDigest, ToolIndex, FIELD_WEIGHTS, type RankedTool } from './retrieval.js';
export { describeTool, renderTools, signature, typeOf, LEVELS, DROPPED_AT, type DisclosureLevel } from './disclosure.js';
export { estimateTokens, estimator, modelCounter, type TokenCounter, type Tokenizes } from './tokens.js';
export { fitPrompt, assemblePrompt, promptLimit, SEPARATOR, type PromptParts, type PromptBudget, type PromptFit, type PromptOverflow, type OverflowCause, type LevelTried } from './budget.js';
export { compactOutput, JSON_CUTS_SHOWN, type CompactionRecord, type Compacted } from './compact.js';
export { isFailureLine, cutMarker, type LineCut } from './compact-lines.js';
export type { JsonCut } from './compact-json.js';
