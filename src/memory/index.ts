/**
 * Memory's public surface: episodic recall, failure memory and the cost
 * model, all derived from the session ledgers (design §6). Import from here.
 */
export { MemoryIndex, type MemoryStats, type OpenOptions } from './memory-index.js';
export { Provenance, assertControlSafe, ftsTerms, type Embedder, type FactHit, type FieldHit, type EpisodeHit, type RecallOptions } from './recall.js';
export { FailureMemory, SAFE_ID, MAX_BLOCK_LINES, type Avoidance } from './failures.js';
export { CostModel, MIN_OBSERVATIONS, type Estimate, type StaleManifest } from './cost.js';
export { REPORTS, runReport, findReport, reportForShell, type Report, type ReportResult } from './reports.js';
export { VIEWS, VIEW_NAMES, PROVIDER_FAULT_KINDS } from './views.js';
export { FAILURE_KINDS, RESOLUTIONS, SCHEMA_VERSION, type FailureKind, type Resolution } from './schema.js';
export { normaliseDetail } from './signature.js';
export { readMeasurements, readMeasurementsAt, ingestAfterJob, type Measurements } from './runtime-api.js';
export { dbPathFor, sessionsDirFor, providerManifestsDirFor } from './paths.js';
export type { DirResult } from './ingest.js';
export type { IngestResult } from './ingest-events.js';
