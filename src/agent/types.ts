/**
 * The one shape the agent library reads a tool through.
 *
 * Retrieval, disclosure and the prompt budget need only a tool's words and
 * its argument schema, so they accept this small interface rather than the
 * whole tool@1 manifest: a manifest satisfies it as it is, and a test can
 * hand in plain objects. Nothing here validates a manifest; the registry does.
 */

/** A tool as the planner prompt sees it. `when` is the tool's one-line "use it when…". */
export interface AgentTool {
  readonly name: string;
  readonly description: string;
  readonly when?: string | undefined;
  readonly input_schema: Readonly<Record<string, unknown>>;
}
