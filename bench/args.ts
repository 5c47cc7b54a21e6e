/** `--name=value` options of the bench scripts (profile-w1, profile-webhook, profile-summary, soak-kill, soak-serve, fuzz/). */

/** The value of `--name=…` on the command line, or `fallback`. */
export function option(name: string, fallback: string): string;
export function option(name: string): string | undefined;
export function option(name: string, fallback?: string): string | undefined {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg === undefined ? fallback : arg.slice(name.length + 3);
}

/** `--name=…` as a number, or `fallback`. */
export function numberOption(name: string, fallback: number): number {
  return Number(option(name) ?? fallback);
}
