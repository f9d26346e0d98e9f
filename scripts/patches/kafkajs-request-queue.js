// kafkajs 2.2.4's RequestQueue starts with `throttledUntil = -1` and schedules its pending-request check after
// `throttledUntil - Date.now()` milliseconds: minus the Unix time when nothing is throttled and nothing is pending.
// Node.js 23+ warns on every connection (`TimeoutNegativeWarning: -1795792419406 is a negative number`), and each
// service logged it at start. The fix upstream (tulios/kafkajs#1751, pull requests 1755 and 1756) is not released,
// and kafkajs 2.2.4 is its last version: this one line is patched in place after install (scripts/postinstall.js)
// instead of adding patch-package and its dependencies for it. Node clamps a negative delay to 1 ms, so the patched
// line keeps the behaviour and loses only the warning. libs/messaging's unit test checks the installed file.
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const ORIGINAL = 'let scheduleAt = this.throttledUntil - Date.now()';
const PATCHED = 'let scheduleAt = Math.max(1, this.throttledUntil - Date.now()) // patched: scripts/patches/kafkajs-request-queue.js';

/** Patches node_modules/kafkajs under `root`; returns what it did. Throws when the file has neither line. */
function patchKafkajsRequestQueue(root) {
  const file = join(root, 'node_modules', 'kafkajs', 'src', 'network', 'requestQueue', 'index.js');
  if (!existsSync(file)) return 'absent';
  const text = readFileSync(file, 'utf8');
  if (text.includes(PATCHED)) return 'already patched';
  if (!text.includes(ORIGINAL))
    throw new Error(`${file}: the line to patch is not there (a new kafkajs version?): review scripts/patches/kafkajs-request-queue.js`);
  writeFileSync(file, text.replace(ORIGINAL, PATCHED));
  return 'patched';
}

module.exports = { patchKafkajsRequestQueue, PATCHED };
