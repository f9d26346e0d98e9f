/** Command-line flags of the bench scripts: `--name value`, possibly repeated. */
export function args(name: string): string[] {
  const out: string[] = [];
  process.argv.forEach((a, i) => a === `--${name}` && out.push(process.argv[i + 1]));
  return out;
}

/** The first `--name value`, or `fallback` when the flag is absent. */
export function arg(name: string, fallback: string): string {
  return args(name)[0] ?? fallback;
}
