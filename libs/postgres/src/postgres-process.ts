import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import type { Socket } from 'node:net';

/**
 * Runs the postmaster under a tiny `sh` watchdog whose stdin is a pipe from this Node process.
 * When this process goes away for ANY reason (normal exit, uncaught error, SIGTERM without handler,
 * even SIGKILL) the kernel closes the pipe, the watchdog reads EOF and asks Postgres for a fast
 * shutdown (SIGINT). So a normal exit never leaves Postgres behind, and after a crash the next start
 * usually finds it already gone; `recoverPostmaster` handles the rest (watchdog killed too, stale pid).
 *
 * The watchdog is `detached` (own session): a Ctrl-C in a terminal reaches only the Node process,
 * which can finish its graceful shutdown while the database is still up, then stop it.
 */
const WATCHDOG = [
  'exec 3<&0',
  '"$@" </dev/null 3<&- &',
  'pg=$!',
  '( read -r _ <&3; kill -INT "$pg" 2>/dev/null ) &',
  'watch=$!',
  'exec 3<&-',
  'wait "$pg"',
  'status=$?',
  'kill "$watch" 2>/dev/null',
  'exit "$status"',
].join('\n');

export interface SpawnPostgresOptions {
  binary: string;
  pgData: string;
  port: number;
  flags: string[];
  logFile: string;
  /** Set when running as root: Postgres refuses to run as root. */
  runAs?: { uid: number; gid: number };
}

export interface PostgresProcess {
  /** Resolves when the watchdog (and so the postmaster) has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  hasExited(): boolean;
  /** Fast shutdown; resolves when Postgres has exited. */
  stop(): Promise<void>;
}

export function spawnPostgres(opts: SpawnPostgresOptions): PostgresProcess {
  const log = openSync(opts.logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(
      '/bin/sh',
      ['-c', WATCHDOG, 'postgres-watchdog', opts.binary, '-D', opts.pgData, '-p', String(opts.port), ...opts.flags],
      {
        stdio: ['pipe', log, log],
        detached: true,
        ...(opts.runAs ?? {}),
        // Postgres' messages are parsed by nobody, but keep them in English for the log.
        env: { ...process.env, LC_MESSAGES: 'C' },
      },
    );
  } finally {
    closeSync(log);
  }
  let done = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      done = true;
      resolve({ code, signal });
    });
  });
  // Postgres must not keep the event loop alive: when the app is done, the process may exit and
  // the watchdog then stops Postgres.
  const stdin = child.stdin as Socket;
  child.unref();
  stdin.unref();
  stdin.on('error', () => undefined); // EPIPE when the watchdog is already gone

  let stopping: Promise<void> | undefined;
  return {
    exited,
    hasExited: () => done,
    stop() {
      stopping ??= (async () => {
        if (done) return;
        // Keep the loop alive until Postgres is really down.
        child.ref();
        stdin.ref();
        stdin.end();
        await exited;
      })();
      return stopping;
    },
  };
}
