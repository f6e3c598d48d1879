/**
 * The serial queue of claimed jobs: budget class first, then arrival.
 *
 * Design P5: one job runs at a time, so order is the whole scheduling policy.
 * `interactive` jobs jump ahead of `attended`, then `background`, then
 * `batch`; within a class, first come first served. Every entry is already a
 * claimed, durable session folder, so losing this in-memory queue loses
 * nothing (recovery rebuilds it). It does not run or persist anything.
 */
import { BUDGET_CLASSES, type BudgetClass } from '../base/budget-classes.js';

export interface QueuedJob {
  id: string;
  budgetClass: BudgetClass;
  /** monotone arrival number assigned by the queue */
  arrival: number;
  queuedAt: number;
  resumed: boolean;
}

const RANK: Record<BudgetClass, number> = Object.fromEntries(BUDGET_CLASSES.map((c, i) => [c, i])) as Record<BudgetClass, number>;

export class JobQueue {
  private items: QueuedJob[] = [];
  private nextArrival = 0;
  private ids = new Set<string>();

  /** Add a claimed job; a session already queued is not queued twice. */
  push(id: string, budgetClass: BudgetClass, resumed = false): QueuedJob | null {
    if (this.ids.has(id)) return null;
    const item: QueuedJob = { id, budgetClass, arrival: this.nextArrival++, queuedAt: Date.now(), resumed };
    // insert after every item of the same or a more urgent class (stable, O(n) for small queues)
    let i = this.items.length;
    while (i > 0 && RANK[this.items[i - 1]!.budgetClass] > RANK[budgetClass]) i--;
    this.items.splice(i, 0, item);
    this.ids.add(id);
    return item;
  }

  /** Put a job taken by shift() back in its place (its class, its original arrival). */
  requeue(item: QueuedJob): void {
    if (this.ids.has(item.id)) return;
    let i = 0;
    while (i < this.items.length && JobQueue.outranks(this.items[i]!, item)) i++;
    this.items.splice(i, 0, item);
    this.ids.add(item.id);
  }

  /** Take `id` out of the queue (a cancelled job); false when it was not queued. */
  remove(id: string): boolean {
    if (!this.ids.delete(id)) return false;
    this.items.splice(this.items.findIndex((it) => it.id === id), 1);
    return true;
  }

  /** True while `id` waits in the queue. */
  has(id: string): boolean {
    return this.ids.has(id);
  }

  /** The job shift() would return, left in place. */
  peek(): QueuedJob | undefined {
    return this.items[0];
  }

  /** True when `a` runs before `b` by the queue's rule (class, then arrival). */
  static outranks(a: QueuedJob, b: QueuedJob): boolean {
    return RANK[a.budgetClass] < RANK[b.budgetClass] || (RANK[a.budgetClass] === RANK[b.budgetClass] && a.arrival < b.arrival);
  }

  /** Take the most urgent, earliest job, or undefined when empty. */
  shift(): QueuedJob | undefined {
    const item = this.items.shift();
    if (item) this.ids.delete(item.id);
    return item;
  }

  get size(): number {
    return this.items.length;
  }

  /** Number of queued jobs per budget class (every class present, zero included). */
  byClass(): Record<BudgetClass, number> {
    const out = Object.fromEntries(BUDGET_CLASSES.map((c) => [c, 0])) as Record<BudgetClass, number>;
    for (const it of this.items) out[it.budgetClass]++;
    return out;
  }

  /** The queued jobs in run order (a copy). */
  list(): QueuedJob[] {
    return [...this.items];
  }
}
