import type { JobEvent } from '@upscaler/contracts';
import { foldEvents } from '@upscaler/domain';
import {
  jobDecider,
  jobFixtures,
  toCancelView,
  toCreateView,
  toJobView,
  toListItemView,
  JobCancelSchema,
  JobCreateSchema,
  JobListItemSchema,
  JobSchema,
} from '@upscaler/jobs';
import type { z } from '@upscaler/http-api';

/**
 * The job views the domain makes (libs/domain's job.views.ts) fit the view schemas the document is generated
 * from, in every state, with no field the schemas leave out: a field added to a view fails here until its
 * schema (jobs.schemas.ts) documents it. Real answers of every resource: services/api/test/openapi-views.e2e-spec.ts.
 */

const ev = jobFixtures.jobEvents;
const states = Object.entries<JobEvent[]>({
  queued: [ev.queued()],
  'queued without filename, fell back to 2k': [
    ev.queued({ filename: null, requestedTarget: '4k', target: '2k', quality: 'best', format: 'avif' }),
  ],
  processing: [ev.queued(), ev.started(1, 1_000)],
  pending: [ev.queued(), ev.started(1, 1_000), ev.lost(1, 2_000, 5_000)],
  succeeded: [ev.queued(), ev.started(1, 1_000), ev.succeeded(1, 4_000, 3_000)],
  failed: [ev.queued(), ev.started(1, 1_000), ev.failed(1, 2_000, 1_000, 'corrupt_image')],
  cancelled: [ev.queued(), ev.cancelled(700, null)],
}).map(([name, events]) => [name, foldEvents(jobDecider, events)] as const);

/** Issues of `view` against `schema`, and the fields of `view` the schema does not name. */
function problems(schema: z.AnyZodObject, view: object): string[] {
  const parsed = schema.safeParse(view);
  const issues = parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  return [
    ...issues,
    ...Object.keys(view)
      .filter((k) => !(k in schema.shape))
      .map((k) => `${k}: not in the schema`),
  ];
}

it.each(states)('a %s job: retrieve, create, list item and cancel views', (_name, state) => {
  expect([
    problems(JobSchema, toJobView(state)),
    problems(JobCreateSchema, toCreateView(state)),
    problems(JobListItemSchema, toListItemView(state)),
    problems(JobCancelSchema, toCancelView(state)),
  ]).toEqual([[], [], [], []]);
});

it('the schemas refuse a view that breaks them (a wrong type, a missing field)', () => {
  const view = toJobView(states[0][1]);
  expect(problems(JobSchema, { ...view, credits: '3' })).toEqual(['credits: Expected number, received string']);
  const { status: _omitted, ...missing } = view;
  expect(problems(JobSchema, missing)).toEqual(['status: Required']);
});
