import { existsSync } from 'node:fs';

/**
 * Debian's Chromium for the browser suites (dashboard, /docs, the SDK's browser entry), driven by playwright-core
 * (never a downloaded browser; .ci/run installs the package). Without it a suite is skipped, unless CI is set: there
 * its absence must fail the run, not hide it.
 */
export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
export const haveChromium = (): boolean => existsSync(CHROMIUM) || !!process.env.CI;
/** `describe`, or `describe.skip` on a machine without Chromium (outside CI). */
export const describeInChromium: jest.Describe = haveChromium() ? describe : describe.skip;
