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

/**
 * A secret field whose value was deliberately not read (`plan --no-secret-values`, or a secret
 * under `ignore_changes` whose `${env:}` is not set): its `${env:}` or `${file:}` reference was
 * left unresolved. It is a SecretValue everywhere a secret is expected
 * (masks, sensitive fields), but it has no value: it is never fingerprinted nor compared (the plan
 * shows it as "not compared"), and any attempt to send it fails loudly instead of writing a blank.
 */
export class UnreadSecret extends SecretValue {
  /** Tells it apart from a SecretValue for the type checker too. */
  readonly unread = true as const;

  /**
   * @param reference the reference as written (`${env:NAME}`) when it was left unread because its
   * variable is not set (a secret under `ignore_changes`); absent under --no-secret-values. Not a
   * secret: it names where the value would come from.
   */
  constructor(readonly reference?: string) {
    super('');
  }

  override reveal(): string {
    throw new Error(
      this.reference === undefined
        ? 'a secret value planned with --no-secret-values was never read: re-plan with the secrets'
        : `a secret value was never read (${this.reference} is not set): set it to create the object`,
    );
  }
}

export function isUnreadSecret(v: unknown): v is UnreadSecret {
  return v instanceof UnreadSecret;
}
