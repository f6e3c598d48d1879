/**
 * What a `code` provider is: a pure function from the input text it was shown
 * to a value. It keeps nothing between calls (design P1) and never does I/O;
 * the runtime validates whatever it returns through the ladder.
 */
export interface CodeProviderInput {
  /** exactly the text the runtime recorded as this provider's input */
  text: string;
  capability: string;
  schemaId: string;
}

export type CodeProvider = (input: CodeProviderInput) => unknown;
