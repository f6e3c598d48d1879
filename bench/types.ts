/** One row of `npm run bench`: a number a reader can compare between runs. */
export interface BenchRow {
  group: string;
  name: string;
  value: number;
  unit: string;
  /** what it is compared with, or a goal, e.g. "goal >= 0.8" */
  note?: string;
}
