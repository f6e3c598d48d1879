// What a command writes to stdout while a test calls its main() in-process: captured with a spy
// that the test's vi.restoreAllMocks() removes.
import { vi } from 'vitest';

export interface CapturedStdout {
  /** everything written since the capture began or was last cleared */
  text(): string;
  clear(): void;
}

/** Capture process.stdout from now on. */
export function captureStdout(): CapturedStdout {
  let out = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  return { text: () => out, clear: () => { out = ''; } };
}
