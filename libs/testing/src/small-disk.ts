import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * A real file system that fills up: a tmpfs of `sizeBytes` mounted on a new folder (needs root, as the CI runs;
 * `available()` says whether this machine can). For the disk-full faults (docs/runbooks.md "Storage full"): `fill()`
 * takes every free byte with a ballast file, `free()` removes it, and writes in between fail with ENOSPC as they
 * would on a full volume.
 */
export interface SmallDisk {
  dir: string;
  fill(): Promise<void>;
  free(): Promise<void>;
  /** Files under `sub` (recursive), to prove that failed writes leave nothing behind. */
  files(sub?: string): Promise<string[]>;
  unmount(): Promise<void>;
}

export function smallDiskAvailable(): boolean {
  return process.platform === 'linux' && process.getuid?.() === 0;
}

/**
 * `describe` for suites that mount a small disk. Without root they are skipped on a developer's machine, but in CI
 * (`CI` set, as .ci/run runs) they run and fail at the mount: a CI that cannot prove the disk-full faults says so.
 */
export function describeWithSmallDisk(base: jest.Describe = describe): jest.Describe | jest.Describe['skip'] {
  return smallDiskAvailable() || process.env.CI ? base : (base.skip ?? base);
}

/** Mounts it on `at` (created) when given, e.g. a standalone's `<data dir>/storage`, else on a new temp folder. */
export async function mountSmallDisk(sizeBytes = 4 * 1024 * 1024, at?: string): Promise<SmallDisk> {
  const dir = at ?? (await fs.mkdtemp(path.join(tmpdir(), 'upscaler-small-disk-')));
  await fs.mkdir(dir, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes},mode=0755`, 'tmpfs', dir]);
  const ballast = path.join(dir, '.ballast');
  return {
    dir,
    async fill() {
      const handle = await fs.open(ballast, 'a');
      const chunk = Buffer.alloc(64 * 1024, 0xaa);
      try {
        for (;;) await handle.write(chunk);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      } finally {
        await handle.close();
      }
      // the last partial block too: a 1-byte write must fail now
      try {
        await fs.appendFile(ballast, Buffer.alloc(1));
        await fs.appendFile(ballast, Buffer.alloc(4096));
      } catch {
        /* full */
      }
    },
    async free() {
      await fs.rm(ballast, { force: true });
    },
    async files(sub = '') {
      const root = path.join(dir, sub);
      const entries = await fs.readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
      return entries.filter((e) => e.isFile() && e.name !== '.ballast').map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
    },
    async unmount() {
      execFileSync('umount', ['-l', dir]);
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
