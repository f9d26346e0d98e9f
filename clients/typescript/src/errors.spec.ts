import {
  apiErrorFrom,
  GoneError,
  InsufficientCreditsError,
  InternalServerError,
  MethodNotAllowedError,
  NotFoundError,
  UpscalerApiError,
} from './errors';

const answer = (status: number, body: unknown) =>
  apiErrorFrom(status, new Headers({ 'x-request-id': 'req_1' }), typeof body === 'string' ? body : JSON.stringify(body));

describe('apiErrorFrom: an error answer as the class of its status (generated from x-error-codes)', () => {
  it('names the status, keeps the code, message and request id', () => {
    const e = answer(402, { error: { code: 'insufficient_credits', message: 'Top up.' } });
    expect([e instanceof InsufficientCreditsError, e.name, e.code, e.status, e.requestId, e.message]).toEqual([
      true,
      'InsufficientCreditsError',
      'insufficient_credits',
      402,
      'req_1',
      'insufficient_credits (HTTP 402): Top up.',
    ]);
  });

  it.each([
    [404, 'job_not_found', NotFoundError],
    [405, 'method_not_allowed', MethodNotAllowedError],
    [410, 'files_expired', GoneError],
  ])('HTTP %i %s is a %p', (status, code, Kind) => {
    const e = answer(status, { error: { code, message: 'm' } });
    expect([e instanceof Kind, e instanceof UpscalerApiError, e.is(code as never)]).toEqual([true, true, true]);
  });

  it('a status the table does not know: 5xx as InternalServerError, else the base class, with a not-JSON body as message', () => {
    const gateway = answer(502, '<html>Bad gateway</html>');
    const teapot = answer(418, { error: { code: 'teapot', message: 'short and stout' } });
    expect([gateway.constructor, gateway.code, gateway.message]).toEqual([
      InternalServerError,
      'internal_error',
      'internal_error (HTTP 502): <html>Bad gateway</html>',
    ]);
    expect([teapot.constructor, teapot.code]).toEqual([UpscalerApiError, 'teapot']);
  });
});
