/**
 * The agent's own state on its box: `<root>/fleet/.agent.json` — how far each
 * ledger was shipped, which compositions the server holds, and which fleet
 * jobs this box took whose end it has not reported yet.
 *
 * An offset is written only after the server acknowledged every line before
 * it, so a crash can only make the agent send a line again (the hub drops the
 * second copy by its seq), never skip one. The file is replaced whole (temp,
 * fsync, rename); a missing file is a fresh agent that ships everything from
 * the start. A file that does not parse is refused with its path, never
 * guessed at: shipping from zero is safe but the operator should know why.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { writeFileAtomicSync } from '../base/durable-file.js';
import type { Fleet } from './connect.js';

export interface AgentState {
  state: 'fleet-agent-state@1';
  /** session -> bytes of its events.jsonl acknowledged by the server */
  shipped: Record<string, number>;
  /** sessions ended (result.json) and shipped to their last byte: never looked at again */
  done: string[];
  /** composition hashes the server acknowledged */
  compositions: string[];
  /** fleet job ids this box took whose end is not yet written into the claims bucket */
  taken: string[];
}

/** What the shipper and the taker of one box share: the connection, the box's root and name, the agent's state, the log. */
export interface BoxContext {
  fleet: Fleet;
  root: string;
  box: string;
  state: AgentState;
  log: Logger;
}

export class AgentStateError extends Error {
  override name = 'SettingsError';
  constructor(message: string, readonly file: string, readonly fix: string) {
    super(message);
  }
}

/** Where the agent keeps its state under a box's root. */
export function agentStatePath(root: string): string {
  return join(root, 'fleet', '.agent.json');
}

/** Read the state, or a fresh one when the file does not exist. */
export function readAgentState(root: string): AgentState {
  const path = agentStatePath(root);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'fleet-agent-state@1', shipped: {}, done: [], compositions: [], taken: [] };
    throw err;
  }
  try {
    const v = JSON.parse(text) as AgentState;
    if (v.state !== 'fleet-agent-state@1' || typeof v.shipped !== 'object' || !Array.isArray(v.done) || !Array.isArray(v.compositions) || !Array.isArray(v.taken)) throw new Error('not a fleet-agent-state@1 document');
    return v;
  } catch (err) {
    throw new AgentStateError(`${path} is damaged (${(err as Error).message})`, path, `move it aside and start the agent again: it then ships every ledger from the start, and the hub drops what it already has`);
  }
}

/** Replace the state file whole. */
export function writeAgentState(root: string, s: AgentState): void {
  const path = agentStatePath(root);
  mkdirSync(dirname(path), { recursive: true });
  writeFileAtomicSync(path, JSON.stringify(s), true);
}
