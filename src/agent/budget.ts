/**
 * The prompt budget: the runtime, not the model, decides what fits.
 *
 * A planner prompt holds fixed parts (instructions, the text-free avoidance
 * block, the goal) and the retrieved tools. `fitPrompt` assembles it at the
 * richest disclosure level that fits the limit — full, then brief, then
 * title — and when even titles do not fit it refuses with a named reason
 * instead of cutting: the caller records a `context_overflow` event and
 * declines. It never drops a tool or shortens a part silently: the result
 * says which level was used, how many tokens the prompt holds, and what the
 * level left out.
 *
 * The limit is `prompt_tokens`, and when the model's context window is known
 * also the window minus `reserve_tokens` (room for the answer), whichever is
 * smaller. Layout: the parts in the order instructions, tools, avoidance,
 * goal, separated by a blank line (the goal last, where a small model looks).
 * This module counts and assembles; it does not rank tools or render chat
 * templates.
 */
import { DROPPED_AT, LEVELS, renderTools, type DisclosureLevel } from './disclosure.js';
import type { TokenCounter } from './tokens.js';
import type { AgentTool } from './types.js';

export interface PromptParts {
  instructions: string;
  goal: string;
  /** the failure-memory avoidance block; empty or absent when there is none */
  avoidance?: string;
  /** the retrieved tools, best first */
  tools: readonly AgentTool[];
}

export interface PromptBudget {
  /** the most tokens the prompt may hold */
  prompt_tokens: number;
  /** tokens the context window must keep free for the answer */
  reserve_tokens: number;
  /** the model's context window, when known (a gguf manifest's context_size) */
  context_tokens?: number;
}

export interface LevelTried {
  level: DisclosureLevel;
  tokens: number;
}

export interface PromptFit {
  ok: true;
  text: string;
  level: DisclosureLevel;
  tokens: number;
  limit: number;
  /** false when the count is the estimator's */
  exact: boolean;
  tools: string[];
  /** what this level leaves out of every tool compared with `full` */
  dropped: readonly string[];
  /** the longer levels tried first that did not fit, and this one */
  tried: LevelTried[];
}

/** Why nothing fits: the fixed parts alone, the tools even as titles, or a window smaller than its reserve. */
export type OverflowCause = 'fixed_parts' | 'tools_at_title' | 'reserve';

export interface PromptOverflow {
  ok: false;
  reason: 'context_overflow';
  cause: OverflowCause;
  limit: number;
  /** tokens of instructions + avoidance + goal alone */
  fixed_tokens: number;
  /** tokens of the shortest prompt (title level), or the fixed parts when they alone overflow */
  needed_tokens: number;
  exact: boolean;
  tools: string[];
  tried: LevelTried[];
  message: string;
}

export const SEPARATOR = '\n\n';

/** The prompt text at one level, laid out as the module header says. */
export function assemblePrompt(parts: PromptParts, level: DisclosureLevel): string {
  return [parts.instructions, renderTools(parts.tools, level), parts.avoidance ?? '', parts.goal].filter((s) => s.length > 0).join(SEPARATOR);
}

/** The token limit a budget sets, or a negative number when the window cannot keep its reserve. */
export function promptLimit(budget: PromptBudget): number {
  const window = budget.context_tokens === undefined ? Infinity : budget.context_tokens - budget.reserve_tokens;
  return Math.min(budget.prompt_tokens, window);
}

/** Assemble the prompt at the richest level that fits the budget, or refuse with the reason. */
export function fitPrompt(parts: PromptParts, budget: PromptBudget, counter: TokenCounter): PromptFit | PromptOverflow {
  if (parts.tools.length === 0) throw new RangeError('fitPrompt: no tools to show; a goal that retrieves no tool is declined before a prompt is built');
  const limit = promptLimit(budget);
  const tools = parts.tools.map((t) => t.name);
  const fixed = [parts.instructions, parts.avoidance ?? '', parts.goal].filter((s) => s.length > 0).join(SEPARATOR);
  const fixedTokens = counter.count(fixed);
  const refuse = (cause: OverflowCause, needed: number, tried: LevelTried[]): PromptOverflow => ({
    ok: false, reason: 'context_overflow', cause, limit, fixed_tokens: fixedTokens, needed_tokens: needed, exact: counter.exact, tools, tried,
    message: cause === 'reserve'
      ? `the context window (${budget.context_tokens} tokens) is not larger than reserve_tokens (${budget.reserve_tokens}); no prompt fits`
      : cause === 'fixed_parts'
        ? `instructions, avoidance block and goal alone take ${fixedTokens} tokens, over the limit of ${limit}`
        : `the prompt needs ${needed} tokens even with tool titles only, over the limit of ${limit}`,
  });
  if (limit <= 0) return refuse('reserve', fixedTokens, []);
  if (fixedTokens > limit) return refuse('fixed_parts', fixedTokens, []);
  const tried: LevelTried[] = [];
  for (const level of LEVELS) {
    const text = assemblePrompt(parts, level);
    const tokens = counter.count(text);
    tried.push({ level, tokens });
    if (tokens <= limit) return { ok: true, text, level, tokens, limit, exact: counter.exact, tools, dropped: DROPPED_AT[level], tried };
  }
  return refuse('tools_at_title', tried[tried.length - 1]!.tokens, tried);
}
