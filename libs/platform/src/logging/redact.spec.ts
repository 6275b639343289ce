import { maskCodes } from './redact';

describe('maskCodes', () => {
  it('keeps only the last characters of a tag code in a path', () => {
    expect(maskCodes('/api/v1/items/ABCD-EFGH-JKMN-PQRS/messages')).toBe('/api/v1/items/…QRS/messages');
  });

  it('keeps only the last characters of a token or an id in a path, whatever its alphabet (an invitation’s link was logged)', () => {
    expect(maskCodes('/api/v1/invitations/VNe-abo0x_XVkFlWgogrhg/accept')).toBe('/api/v1/invitations/…rhg/accept');
    expect(maskCodes('/api/v1/user/items/ABCDEFGHJKMNPQRS/co-owners/0b9a7a3e-3f0c-4b8e-9c61-3d5a1f6f2a10')).toBe('/api/v1/user/items/…QRS/co-owners/…a10');
    expect(maskCodes('/qr/ABCD-EFGH-JKMN-PQRS.png?size=512')).toBe('/qr/…QRS.png?size=…');
    // Words of the API stay readable.
    expect(maskCodes('/api/v1/user/login/passkey-options')).toBe('/api/v1/user/login/passkey-options');
    expect(maskCodes('/api/v1/push/vapid-public-key')).toBe('/api/v1/push/vapid-public-key');
  });

  it('keeps the names of query parameters, never their values (addresses, login codes)', () => {
    expect(maskCodes('/api/v1/magic-link?email=owner%40example.test')).toBe('/api/v1/magic-link?email=…');
    expect(maskCodes('/login/code?code=7K3M9QXR&lang=nl')).toBe('/login/code?code=…&lang=…');
  });
});
