/**
 * Colours for the human renderers, injected so renderers stay pure functions of their data.
 *
 * NOTE: kleur's on/off switch is a module-level global that it sets from NO_COLOR / TERM at import.
 * The palette decides for itself (the CLI resolves TTY, NO_COLOR and --no-color) and flips the
 * switch only for the duration of one call, so no global state leaks between renders.
 */
import kleur from 'kleur';

export interface Palette {
  enabled: boolean;
  green(s: string): string;
  red(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
  magenta(s: string): string;
  bold(s: string): string;
  dim(s: string): string;
}

type Paint = (s: string) => string;

function paint(fn: Paint, enabled: boolean): Paint {
  if (!enabled) return (s) => s;
  return (s) => {
    const before = kleur.enabled;
    kleur.enabled = true;
    try {
      return fn(s);
    } finally {
      kleur.enabled = before;
    }
  };
}

export function createPalette(enabled: boolean): Palette {
  return {
    enabled,
    green: paint((s) => kleur.green(s), enabled),
    red: paint((s) => kleur.red(s), enabled),
    yellow: paint((s) => kleur.yellow(s), enabled),
    cyan: paint((s) => kleur.cyan(s), enabled),
    magenta: paint((s) => kleur.magenta(s), enabled),
    bold: paint((s) => kleur.bold(s), enabled),
    dim: paint((s) => kleur.dim(s), enabled),
  };
}

export const NO_COLOR: Palette = createPalette(false);
