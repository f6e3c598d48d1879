/**
 * The schema a planner's output must fit, narrowed to the tools it may use:
 * a list of calls, each `{"name": {"const": TOOL}, "arguments": TOOL's
 * input_schema}`, over the retrieved tools only (design §7: narrow the output
 * space until the attack has no representation). The same document drives
 * the model's grammar (so an unselected tool cannot be decoded), the
 * ladder's tool-call path (so an unselected tool is refused as unknown) and
 * the arguments check. It is rebuilt from the manifests, which the
 * composition pins, so a replay narrows exactly as the run did.
 */
import { compileSchema } from '../ladder/schemas.js';
import type { SchemaHandle } from '../ladder/types.js';
import type { ToolManifest } from '../registry/manifest.js';
import { BREAKERS } from '../runtime/settings.js';

/** The plan@1 schema narrowed to `tools` (at least one). */
export function planSchemaFor(tools: readonly ToolManifest[]): SchemaHandle {
  if (tools.length === 0) throw new RangeError('planSchemaFor: no tools; a goal that retrieves no tool is declined before planning');
  const branches = [...tools].sort((a, b) => (a.name < b.name ? -1 : 1)).map((t) => {
    const { $schema: _ignored, ...args } = t.input_schema as Record<string, unknown>;
    return {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'arguments'],
      properties: { name: { const: t.name }, arguments: args },
    };
  });
  return compileSchema({
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'array',
    minItems: 1,
    // the answer step the runtime adds counts against max_steps too
    maxItems: BREAKERS.max_steps - 1,
    items: { anyOf: branches },
  }, `plan@1[${tools.map((t) => t.name).sort().join(',')}]`);
}
