/**
 * Tools: manifest-described commands that bring outside data (T1) into a
 * session. `runTool` is the only way to run one; `buildArgv` is exported so
 * the composition and `pico manifests check` can show the argv a call makes.
 */
export { runTool, type ToolContext, type ToolRun } from './run.js';
export { buildArgv, checkArgs, confinePath } from './args.js';
