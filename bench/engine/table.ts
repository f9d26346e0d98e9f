import { existsSync, readFileSync } from 'node:fs';
import * as os from 'node:os';
import { hasInt8DotProduct } from '@upscaler/engine';
/** Prints rows as an aligned Markdown table (so the output pastes into docs/benchmarks.md as is). */
export function printTable(header: string[], rows: (string | number)[][]): void {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  console.log(line(cells[0]));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of cells.slice(1)) console.log(line(r));
}

/** The SIMD flags that decide our kernels' speed (and, for int8, which kernels run: precision.ts). */
const FLAGS = ['avx2', 'fma', 'avx512f', 'avx512bw', 'avx512_vnni', 'avx_vnni', 'avx512_bf16', 'amx_int8', 'amx_bf16'];

export function machineLine(): string {
  const cpuinfo = existsSync('/proc/cpuinfo') ? readFileSync('/proc/cpuinfo', 'utf8') : '';
  const line = /^flags\s*:(.*)$/m.exec(cpuinfo)?.[1]?.trim().split(/\s+/) ?? [];
  const flags = FLAGS.filter((f) => line.includes(f));
  return `${os.cpus()[0]?.model ?? 'cpu'} x${os.availableParallelism()} (${flags.join(' ') || 'flags unknown'}; int8 dot product: ${
    hasInt8DotProduct(cpuinfo) ? 'yes' : 'no'
  }), load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}, node ${process.version}`;
}
