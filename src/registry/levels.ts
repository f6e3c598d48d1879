/**
 * The isolation levels of the execution world, weakest first, and their
 * order. world/sandbox.ts says what each one means and probes which one a
 * machine gives; manifests (requires_isolation) and host_view (host-view.ts)
 * compare against this order. Vocabulary only; it lives in the registry, below
 * the world, because a manifest is checked against it when it loads.
 */
export type IsolationLevel = 'full' | 'partial' | 'network' | 'none';
/** Weakest first: a manifest's requires_isolation is met by its own level or a later one. */
export const ISOLATION_ORDER: readonly IsolationLevel[] = ['none', 'network', 'partial', 'full'];

/** True when `have` is at least `need`. */
export function meetsLevel(have: IsolationLevel, need: IsolationLevel): boolean {
  return ISOLATION_ORDER.indexOf(have) >= ISOLATION_ORDER.indexOf(need);
}
