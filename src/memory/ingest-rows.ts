/**
 * The fact_field rows of a batch, held and inserted 64 rows a statement.
 *
 * A bulk load inserts some 65,000 fact_field rows (a fact's scalar leaves),
 * more than all other rows together; one `run` each was the largest single
 * cost of its profile (issue 32), and the rows of one session (some 13) make
 * statements too small to pay. So the rows of a batch's sessions are collected
 * here and go in as multi-row inserts (`manyRows`) once a statement's worth is
 * held, the rest when the batch ends. Nothing reads fact_field during an
 * ingest but the removal of a session's rows (`Ingestor.deleteSession`), which
 * flushes first; the batch flushes before its transaction commits (ingest.ts
 * `inBatch`), and a throw drops what is held, with the transaction that the
 * throw rolls back.
 *
 * Only these rows: the other tables' rows are wider, and a multi-row insert of
 * them cost as much as one `run` a row (measured over 5,000 episode rows). Never
 * a full-text table's: an insert of several rows into a virtual table opens a
 * statement savepoint whatever its conflict clause, and FTS5 writes its pending
 * terms out as a new segment at every savepoint (ingest-sql.ts manyRows).
 */
import { FIELD_WIDTH, ROWS_PER_INSERT, type IngestStatements } from './ingest-sql.js';

export class HeldFields {
  /** the held values, whole rows of FIELD_WIDTH in column order */
  readonly values: unknown[] = [];

  /** `insert`: the ingest's many-row insert of fact_field rows (ingest-sql.ts `fields`). */
  constructor(private readonly insert: IngestStatements['fields']) {}

  /** Rows were added: insert a full statement's worth once there is one, and hold the rest. */
  added(): void {
    const full = ROWS_PER_INSERT * FIELD_WIDTH;
    if (this.values.length < full) return;
    this.insert(this.values.length === full ? this.values : this.values.slice(0, full));
    this.values.splice(0, full);
  }

  /** Insert every held row. */
  flush(): void {
    if (this.values.length === 0) return;
    this.insert(this.values);
    this.values.length = 0;
  }

  /** Drop every held row (their transaction is rolling back). */
  discard(): void {
    this.values.length = 0;
  }
}
