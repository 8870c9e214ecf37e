/** A word of a command line shown to the user: as is when the shell would keep it so, else single-quoted. */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:=@-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
