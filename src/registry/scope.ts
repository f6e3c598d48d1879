/**
 * Scopes: every registration returns an undo, and a scope runs its undos in
 * reverse order (LIFO) when it unwinds (design P13). Unwinding tries every
 * undo even when one throws, then reports all failures at once, so one bad
 * undo never strands the rest.
 */
export type Undo = () => void | Promise<void>;

export class Scope {
  private undos: Undo[] = [];
  private unwound = false;

  constructor(readonly label: string) {}

  /** Remember how to undo something just done. */
  defer(undo: Undo): void {
    if (this.unwound) throw new Error(`scope ${this.label} is already unwound; open a new scope`);
    this.undos.push(undo);
  }

  get size(): number {
    return this.undos.length;
  }

  /** Undo everything in reverse order; throws an AggregateError naming every failure. */
  async unwind(): Promise<void> {
    if (this.unwound) return;
    this.unwound = true;
    const errors: unknown[] = [];
    while (this.undos.length > 0) {
      const undo = this.undos.pop()!;
      try {
        await undo();
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length > 0) throw new AggregateError(errors, `scope ${this.label}: ${errors.length} undo(s) failed`);
  }
}
