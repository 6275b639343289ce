import { maskCodes } from './redact';

describe('maskCodes', () => {
  it('keeps only the last characters of a tag code in a path', () => {
    expect(maskCodes('/api/v1/items/ABCD-EFGH-JKMN-PQRS/messages')).toBe('/api/v1/items/…QRS/messages');
  });

  it('keeps the names of query parameters, never their values (addresses, login codes)', () => {
    expect(maskCodes('/api/v1/magic-link?email=owner%40example.test')).toBe('/api/v1/magic-link?email=…');
    expect(maskCodes('/login/code?code=7K3M9QXR&lang=nl')).toBe('/login/code?code=…&lang=…');
  });
});
