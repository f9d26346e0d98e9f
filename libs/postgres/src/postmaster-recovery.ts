import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, promises as fs } from 'node:fs';
import path from 'node:path';

/**
 * Crash recovery before a start. When the service was killed (SIGKILL, OOM), the data dir may hold:
 * - a live postmaster of the previous run (orphaned, or still shutting down after its watchdog saw the
 *   parent die): it holds the data dir and the port, so it is asked to stop (fast shutdown) and awaited;
 * - a stale `postmaster.pid` whose pid is dead or now belongs to another process (pids are reused,
 *   especially in containers): Postgres refuses to start on a pid it believes alive, so the file goes.
 */
export type RecoveryOutcome = 'clean' | 'stopped-running-postmaster' | 'removed-stale-pid-file';

export async function recoverPostmaster(pgData: string, log: (msg: string) => void = () => undefined): Promise<RecoveryOutcome> {
  const pidFile = path.join(pgData, 'postmaster.pid');
  const pid = await readPostmasterPid(pidFile);
  if (pid === undefined) return 'clean';

  if (pid > 0 && isPostgresOn(pid, pgData)) {
    log(`embedded Postgres: a postmaster (pid ${pid}) from a previous run still holds ${pgData}; stopping it`);
    await stopProcess(pid);
    // A postmaster that exits normally removes its own pid file; after SIGKILL it is left behind.
    await fs.rm(pidFile, { force: true });
    return 'stopped-running-postmaster';
  }
  log(`embedded Postgres: removing stale ${pidFile} (pid ${pid} is not a running postmaster of this data dir)`);
  await fs.rm(pidFile, { force: true });
  return 'removed-stale-pid-file';
}

async function readPostmasterPid(pidFile: string): Promise<number | undefined> {
  let text: string;
  try {
    text = await fs.readFile(pidFile, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const pid = Number.parseInt(text.split('\n')[0] ?? '', 10);
  // A negative pid marks a single-user backend; a truncated file parses as NaN. Both are not ours to signal.
  return Number.isFinite(pid) ? pid : 0;
}

/** Sends a fast shutdown, then escalates; resolves once the process is gone (or a zombie). */
async function stopProcess(pid: number): Promise<void> {
  const steps: Array<[NodeJS.Signals, number]> = [
    // SIGINT = fast shutdown: rolls back open transactions, checkpoints, exits.
    ['SIGINT', 30_000],
    // SIGQUIT = immediate shutdown: crash recovery (WAL replay) happens at the next start.
    ['SIGQUIT', 10_000],
    ['SIGKILL', 5_000],
  ];
  for (const [signal, waitMs] of steps) {
    try {
      process.kill(pid, signal);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ESRCH') return;
      if (code === 'EPERM') throw new Error(`embedded Postgres: no permission to stop the old postmaster (pid ${pid})`);
      throw err;
    }
    if (await waitForExit(pid, waitMs)) return;
  }
  throw new Error(`embedded Postgres: the old postmaster (pid ${pid}) did not exit`);
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isRunning(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !isRunning(pid);
}

/** Alive and not a zombie (an orphan that exited may stay a zombie where pid 1 does not reap). */
export function isRunning(pid: number): boolean {
  const info = processInfo(pid);
  return info !== undefined && info.state !== 'Z';
}

/** True when `pid` is a running `postgres` whose `-D` is this data dir. */
export function isPostgresOn(pid: number, pgData: string): boolean {
  const info = processInfo(pid);
  if (!info || info.state === 'Z') return false;
  const [exe, ...args] = info.argv;
  if (!exe || !path.basename(exe).startsWith('postgres')) return false;
  const i = args.indexOf('-D');
  const dir = i >= 0 ? args[i + 1] : args.find((a) => a.startsWith('-D'))?.slice(2);
  return dir !== undefined && path.resolve(dir) === path.resolve(pgData);
}

interface ProcessInfo {
  state: string;
  argv: string[];
}

function processInfo(pid: number): ProcessInfo | undefined {
  if (existsSync('/proc/self/stat')) return procInfo(pid);
  try {
    // macOS and other systems without procfs.
    const out = execFileSync('ps', ['-o', 'stat=', '-o', 'command=', '-p', String(pid)], { encoding: 'utf8' }).trim();
    if (out === '') return undefined;
    const [state, ...argv] = out.split(/\s+/);
    return { state: state?.[0] ?? '', argv };
  } catch {
    return undefined;
  }
}

function procInfo(pid: number): ProcessInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Format: "pid (comm) S ...": comm may contain spaces and parentheses, so split at the last ')'.
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return { state, argv: cmdline.split('\0').filter((a) => a !== '') };
  } catch {
    return undefined;
  }
}
