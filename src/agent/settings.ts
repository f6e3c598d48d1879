/**
 * The agent library's settings and their defaults: how many tools retrieval
 * shows, the planner prompt's token budget, the room kept for the answer, and
 * the token budget one tool output is compacted to before a model reads it.
 *
 * They belong in the policy settings (and so in the composition hash, like
 * `src/runtime/settings.ts`); this module only exports the defaults and a zod
 * fragment that the runtime's settings schema merges, so the names and limits
 * live in one place. It reads no file.
 */
import { z } from '../base/zod.js';

export const AGENT_DEFAULTS = {
  /** tools retrieval puts in the planner prompt and its grammar */
  top_k: 3,
  /** the most tokens the planner prompt may hold (instructions, tools, avoidance block, goal) */
  prompt_tokens: 500,
  /** tokens kept free for the model's answer; the prompt must leave them free in the context window */
  reserve_tokens: 256,
  /** the most tokens one tool output may hold when a model reads it; longer output is compacted */
  tool_output_tokens: 1024,
} as const;

/** The smallest budget compaction accepts: below it not even a cut marker fits. */
export const MIN_COMPACT_TOKENS = 32;

/** The zod fragment for the settings above; spread it into the runtime's settings object. */
export const agentSettingsShape = {
  top_k: z.number().int().min(1).max(32).default(AGENT_DEFAULTS.top_k),
  prompt_tokens: z.number().int().min(16).default(AGENT_DEFAULTS.prompt_tokens),
  reserve_tokens: z.number().int().min(0).default(AGENT_DEFAULTS.reserve_tokens),
  tool_output_tokens: z.number().int().min(MIN_COMPACT_TOKENS).default(AGENT_DEFAULTS.tool_output_tokens),
};
export const agentSettingsSchema = z.strictObject(agentSettingsShape);
export type AgentSettings = z.infer<typeof agentSettingsSchema>;
