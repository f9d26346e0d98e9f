import * as os from 'node:os';
/** Prints rows as an aligned Markdown table (so the output pastes into docs/benchmarks.md as is). */
export function printTable(header: string[], rows: (string | number)[][]): void {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  console.log(line(cells[0]));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of cells.slice(1)) console.log(line(r));
}

export function machineLine(): string {
  return `${os.cpus()[0]?.model ?? 'cpu'} x${os.availableParallelism()}, load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}, node ${process.version}`;
}
