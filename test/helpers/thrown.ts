// The error a call throws (undefined when it returns), for tests that check the error's fields.
export function thrownBy(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  return undefined;
}
