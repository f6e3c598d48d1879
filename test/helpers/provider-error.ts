/** The ProviderError a call is refused with: the suites that check a refusal's type and message. */
import { ProviderError } from '../../src/runtime/provider.js';

/** Await `p` and return the ProviderError it throws; any other error is rethrown, and a call that succeeds fails the test. */
export async function providerError(p: Promise<unknown>): Promise<ProviderError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ProviderError) return err;
    throw err;
  }
  throw new Error('expected a ProviderError, but the call succeeded');
}
