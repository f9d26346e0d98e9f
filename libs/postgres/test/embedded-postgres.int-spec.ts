import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, promises as fs, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { recoverPostmaster } from '@upscaler/postgres';

/**
 * The standalone keeps its data under ./data and may be killed at any moment (docs/design.md §3: "nothing
 * is lost on restart"). Each start below runs in a fresh Node process, as a restarted service would.
 */
const FIXTURES = path.join(__dirname, 'fixtures');

interface ChildReport {
  port: number;
  postmasterPid: number;
  notes: string[];
}

function runChild(dataDir: string, ...args: string[]): { child: ChildProcess; report: Promise<ChildReport> } {
  const child = spawn(
    process.execPath,
    ['-r', path.join(FIXTURES, 'register-ts.js'), path.join(FIXTURES, 'postgres-child.ts'), dataDir, ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const report = new Promise<ChildReport>((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n')) resolve(JSON.parse(line) as ChildReport);
    });
    // 'close', not 'exit': stdout may still hold the report when the process has already exited.
    child.once('close', (code) => reject(new Error(`child exited (${code}) before reporting: ${err}`)));
  });
  return { child, report };
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((r) => child.once('exit', (code) => r(code)));
}

/** Running and not a zombie. */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((p) => {
      try {
        return parentOf(p) === pid;
      } catch {
        return false;
      }
    });
}

async function until(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('startEmbeddedPostgres', () => {
  let dataDir: string;
  const pidsToClean: number[] = [];

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(tmpdir(), 'upscaler-embedded-'));
    await fs.chmod(dataDir, 0o755);
  });
  afterAll(async () => {
    for (const pid of pidsToClean) if (running(pid)) process.kill(pid, 'SIGINT');
    await until(() => pidsToClean.every((p) => !running(p)), 'leftover postmasters stopped').catch(() => undefined);
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  let firstPort: number;

  it('initialises a cluster on first start, and a normal process exit stops Postgres', async () => {
    const { child, report } = runChild(dataDir, 'exit');
    const r = await report;
    pidsToClean.push(r.postmasterPid);
    expect(await exited(child)).toBe(0);
    await until(() => !running(r.postmasterPid), 'the postmaster is gone');
    expect(existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
    expect(r.notes).toEqual([]);
    expect(Number(await fs.readFile(path.join(dataDir, 'postgres-port'), 'utf8'))).toBe(r.port);
    expect((await fs.stat(path.join(dataDir, 'postgres-password'))).mode & 0o777).toBe(0o600);
    firstPort = r.port;
  });

  it('after the service is SIGKILLed, a new process starts on the same data and port with nothing lost', async () => {
    const first = runChild(dataDir, 'write', 'before the crash');
    const r1 = await first.report;
    pidsToClean.push(r1.postmasterPid);
    first.child.kill('SIGKILL');
    await exited(first.child);

    const second = runChild(dataDir, 'write', 'after the crash');
    const r2 = await second.report;
    pidsToClean.push(r2.postmasterPid);
    expect(r2.notes).toEqual(['before the crash']);
    expect(r2.port).toBe(firstPort);
    expect(running(r1.postmasterPid)).toBe(false);

    // Now a postmaster orphaned for real: the service and its watchdog die, Postgres survives.
    // Kill order matters: the watchdog's watcher first, or it could still send Postgres a SIGINT
    // when it sees the service's pipe close.
    const watchdog = parentOf(r2.postmasterPid);
    const killed = [...childrenOf(watchdog).filter((p) => p !== r2.postmasterPid), watchdog, second.child.pid!];
    for (const pid of killed) process.kill(pid, 'SIGKILL');
    await exited(second.child);
    await until(() => killed.every((p) => !running(p)), 'service and watchdog are dead');
    expect(running(r2.postmasterPid)).toBe(true);

    const third = runChild(dataDir, 'write', 'after the orphan');
    const r3 = await third.report;
    pidsToClean.push(r3.postmasterPid);
    expect(r3.notes).toEqual(['before the crash', 'after the crash']);
    expect(r3.port).toBe(firstPort);
    expect(running(r2.postmasterPid)).toBe(false);
    expect(r3.postmasterPid).not.toBe(r2.postmasterPid);

    // Everything killed at once (service, watchdog, Postgres): a stale postmaster.pid stays behind,
    // and here it names a live process that is not Postgres (pids get reused after a reboot).
    // One kill(2) to the group (the watchdog leads Postgres' process group) reaches watchdog, watcher
    // and postmaster at once, before the service dies and its closing pipe could trigger a clean stop.
    const group = parentOf(r3.postmasterPid);
    process.kill(-group, 'SIGKILL');
    process.kill(third.child.pid!, 'SIGKILL');
    await exited(third.child);
    await until(() => !running(r3.postmasterPid), 'the postmaster is dead');
    const pidFile = path.join(dataDir, 'postgres', 'postmaster.pid');
    const lines = (await fs.readFile(pidFile, 'utf8')).split('\n');
    await fs.writeFile(pidFile, [String(process.pid), ...lines.slice(1)].join('\n'));

    const fourth = runChild(dataDir, 'read');
    const r4 = await fourth.report;
    pidsToClean.push(r4.postmasterPid);
    expect(await exited(fourth.child)).toBe(0);
    expect(r4.notes).toEqual(['before the crash', 'after the crash', 'after the orphan']);
    expect(r4.port).toBe(firstPort);
    await until(() => !running(r4.postmasterPid), 'the postmaster stopped with its service');
  });

  it('recoverPostmaster reports a clean data dir as clean', async () => {
    expect(await recoverPostmaster(path.join(dataDir, 'postgres'))).toBe('clean');
  });
});
