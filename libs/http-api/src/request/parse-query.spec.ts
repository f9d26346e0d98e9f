import { DomainError } from '@upscaler/contracts';
import { singleValuedQuery } from './parse-query';

describe('query parameters are read one value each (docs/api.md "Query parameters")', () => {
  it('returns the named parameters as strings and drops the others', () => {
    expect(singleValuedQuery({ limit: '5', status: 'queued', utm: ['a', 'b'], 'x[]': '1' }, ['limit', 'status', 'starting_after'])).toEqual(
      {
        limit: '5',
        status: 'queued',
      },
    );
  });

  it.each([
    ['repeated', { limit: ['1', '2'] }],
    ['bracketed, simple parser', { 'limit[]': '1' }],
    ['indexed, simple parser', { 'limit[0]': '1' }],
    ['bracketed, extended parser', { limit: ['1'] }],
    ['an object, extended parser', { limit: { a: '1' } }],
  ])('%s: 400 invalid_request naming the parameter', (_, query) => {
    let error: unknown;
    try {
      singleValuedQuery(query, ['limit']);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DomainError);
    expect([(error as DomainError).code, (error as DomainError).message]).toEqual([
      'invalid_request',
      'limit must be given once, as a single value.',
    ]);
  });

  it('a missing parameter stays missing; an empty one is an empty string', () => {
    expect(singleValuedQuery(undefined, ['limit'])).toEqual({});
    expect(singleValuedQuery({ limit: '' }, ['limit'])).toEqual({ limit: '' });
  });
});
