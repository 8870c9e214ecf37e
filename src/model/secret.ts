/**
 * A secret value that cannot leak by accident.
 *
 * Secret values travel from `${env:...}` / `${file:...}` to the API request body and nowhere else.
 * Wrapping them means that JSON.stringify, util.inspect, template strings and console.log all print
 * a redaction marker; only `reveal()` (called by the code that builds a request body or computes a
 * fingerprint) gives the clear value.
 */
import { inspect } from 'node:util';

export const REDACTED = '(sensitive value)';

export class SecretValue {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toJSON(): string {
    return REDACTED;
  }

  toString(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}

export function isSecretValue(v: unknown): v is SecretValue {
  return v instanceof SecretValue;
}
