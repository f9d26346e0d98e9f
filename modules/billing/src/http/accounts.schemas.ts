import type { AccountView } from '../model/account.views';
import { MAX_CONCURRENT_JOBS_LIMIT } from '../model/account.state';
import { id, idParam, nonNegative, timestamp, z } from '@upscaler/http-api';

/** The account's contract (docs/design.md §6): GET /account, and the operator API's bodies and views. */

export const AccountSchema = z
  .object({
    id: id('acct', 'Account'),
    object: z.literal('account'),
    name: z.string(),
    balance: nonNegative('Credits available for new jobs.'),
    reserved: nonNegative('Credits held by unfinished jobs.'),
    charged: nonNegative('Credits spent on succeeded jobs.'),
    created_at: timestamp('When the account was opened.'),
  })
  .openapi('Account', { description: 'An account and its credits: granted = balance + reserved + charged.' });

const maxConcurrentJobs = z.number().int().min(1).max(MAX_CONCURRENT_JOBS_LIMIT).nullable();

export const AdminAccountSchema = AccountSchema.extend({
  max_concurrent_jobs: maxConcurrentJobs.openapi({
    description:
      "At most this many of the account's jobs run at once, across all processors; null: the service default (UPSCALE_ACCOUNT_MAX_CONCURRENT_JOBS, 0 = no limit). Queued jobs beyond it wait; accounts are served in turn either way.",
  }),
}).openapi('AdminAccount', { description: "The operator's view of an account: the account object plus its settings." });

/** Whatever the schema accepts has the view's TypeScript type (checked by the compiler). */
export const viewsFitTheirSchemas: [z.output<typeof AccountSchema> extends AccountView ? true : never] = [true];

export const AccountIdParam = idParam('acct', 'Account', 'acct_0190a1b2c3d47e8f9a0b1c2d3e4f5a6c');
export const AccountPathParams = z.object({ id: AccountIdParam });

export const CreateAccountBody = z.object({
  name: z.string().trim().min(1).max(200).openapi({ description: 'Trimmed; not blank.' }),
  credits: z.number().int().min(0).max(1_000_000_000).optional().openapi({ default: 0, description: 'Credits granted at opening.' }),
});

export const GrantCreditsBody = z.object({
  amount: z.number().int().min(1).max(1_000_000_000).openapi({ description: 'Credits to add to the balance.' }),
});

export const UpdateAccountBody = z.object({
  max_concurrent_jobs: maxConcurrentJobs.openapi({ description: 'null: the service default.' }),
});
