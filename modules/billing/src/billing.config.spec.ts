import { configSection, loadConfig } from '@upscaler/config';
import { billingConfig } from './billing.config';

const read = (env: NodeJS.ProcessEnv) => configSection(loadConfig(env, [billingConfig]), billingConfig);

describe('billing settings', () => {
  it('defaults: 5 s for an answer, 15 min for a reservation without its job', () => {
    expect(read({})).toEqual({ answerTimeoutMs: 5000, reservationTimeoutMs: 900_000 });
    expect(read({ UPSCALE_BILLING_TIMEOUT_MS: '300', UPSCALE_RESERVATION_TIMEOUT_MS: '1000' })).toEqual({
      answerTimeoutMs: 300,
      reservationTimeoutMs: 1000,
    });
  });

  it('refuses an answer timeout outside 50 ms to 2 min and a reservation timeout under 1 s', () => {
    expect(() => read({ UPSCALE_BILLING_TIMEOUT_MS: '10' })).toThrow(/UPSCALE_BILLING_TIMEOUT_MS: must be an integer from 50 to 120000/);
    expect(() => read({ UPSCALE_RESERVATION_TIMEOUT_MS: '999' })).toThrow(/UPSCALE_RESERVATION_TIMEOUT_MS: must be an integer from 1000/);
  });
});
