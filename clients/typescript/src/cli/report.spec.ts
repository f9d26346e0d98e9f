import { PassThrough } from 'node:stream';
import { HumanReporter, type FileResult } from './report';

/** A terminal for cli-progress: a TTY 80 columns wide whose output the test reads. */
function fakeTerminal(): { stream: PassThrough & { isTTY: boolean; columns: number }; text: () => string } {
  const stream = Object.assign(new PassThrough(), { isTTY: true, columns: 80 });
  let out = '';
  stream.on('data', (c: Buffer) => (out += c.toString()));
  return { stream, text: () => out };
}

const result = (relative: string): FileResult => ({
  status: 'succeeded',
  input: `/in/${relative}`,
  output: `/out/${relative}`,
  relative,
  job_id: 'job_0190a1b2c3d47e8f9a0b1c2d3e4f5a6b',
  target: '2k',
  credits: 3,
  bytes: 1000,
  elapsed_ms: 1200,
});

describe('the CLI on a terminal (bars)', () => {
  it("prints every file's line, the last one included, before the bars stop", async () => {
    const term = fakeTerminal();
    const reporter = new HumanReporter(true, term.stream);
    reporter.start(2, 200, 2);
    for (const name of ['a.png', 'b.png']) {
      const p = reporter.file(name, 100);
      p.stage('processing', 0.5);
      // as upscale-command does: the file's bar goes, then its line is logged
      p.stage('done');
      reporter.finished(result(name), 100);
    }
    reporter.end({
      files: 2,
      succeeded: 2,
      failed: 0,
      skipped: 0,
      interrupted: 0,
      not_started: 0,
      credits: 6,
      credits_earlier_jobs: 0,
      elapsed_ms: 2400,
      exit_code: 0,
    });
    await new Promise((r) => setImmediate(r));
    const text = term.text();
    expect([text.includes('a.png'), text.includes('b.png') && /b\.png[^\n]*3 credits/.test(text)]).toEqual([true, true]);
  });

  it("the run's bar moves with the jobs in flight, not only when a file is done", async () => {
    const term = fakeTerminal();
    const reporter = new HumanReporter(true, term.stream);
    reporter.start(1, 1000, 1);
    const p = reporter.file('big.png', 1000);
    p.stage('processing', 0.6); // 10 + 0.6 x 75 = 55 % of the file
    const drawn = term.text();
    reporter.end({
      files: 1,
      succeeded: 0,
      failed: 0,
      skipped: 0,
      interrupted: 1,
      not_started: 0,
      credits: 0,
      credits_earlier_jobs: 0,
      elapsed_ms: 10,
      exit_code: 4,
    });
    await new Promise((r) => setImmediate(r));
    expect(/ 55% 0\/1 jobs/.test(term.text()) || / 55% 0\/1 jobs/.test(drawn)).toBe(true);
  });
});
