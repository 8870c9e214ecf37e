/**
 * Environment-variable names for the `${env:NAME}` placeholders an export writes where a value
 * cannot be read back (secret variables, write-only receiver and webhook fields, sensitive
 * terraform variables).
 *
 * Names are derived from where the secret lives, so that exporting the same organization twice
 * gives the same names (a CI secret store configured once keeps working), and they are valid
 * everywhere an environment variable is: `[A-Z_][A-Z0-9_]*`.
 */

export interface SecretPlaceholder {
  /** The environment variable to set. */
  env: string;
  /** Address of the resource holding the secret, e.g. `project.shop/environment.prod/application.api/variable.DB_PASSWORD`. */
  address: string;
  /** Which field of it: `value`, `webhook_url`, `auth_password`, `secret`, `tf_vars.KEY`. */
  field: string;
  /**
   * Whether driftless wrote this secret (the live record carries its fingerprint). When false, the
   * value cannot be known: the first plan lists it once as to be written.
   */
  fingerprinted: boolean;
}

/** `shop`, `prod`, `db-password` -> `SHOP_PROD_DB_PASSWORD`. */
export function envVarName(parts: readonly string[]): string {
  const joined = parts
    .map((p) =>
      p
        .normalize('NFKD')
        .replace(/[^A-Za-z0-9]+/g, '_')
        .replace(/^_+|_+$/g, ''),
    )
    .filter((p) => p !== '')
    .join('_')
    .toUpperCase();
  const name = joined === '' ? 'SECRET' : joined;
  return /^[0-9]/.test(name) ? `_${name}` : name;
}

/**
 * Hands out unique names: the second holder of a name gets `_2`, and so on. Callers allocate in a
 * deterministic order (the export walks resources sorted by address), so suffixes are stable.
 */
export class PlaceholderAllocator {
  readonly #used = new Set<string>();
  readonly list: SecretPlaceholder[] = [];

  allocate(parts: readonly string[], where: Omit<SecretPlaceholder, 'env'>): string {
    const base = envVarName(parts);
    let name = base;
    for (let i = 2; this.#used.has(name); i++) name = `${base}_${i}`;
    this.#used.add(name);
    this.list.push({ env: name, ...where });
    return `\${env:${name}}`;
  }
}
