import { payloadOf } from './push.processor';

const scan = { code: 'ABCD1234EFGH5678', scannedAt: '2026-11-26T10:06:00.000Z', city: 'Amsterdam', country: 'NL', deviceKind: 'phone' } as const;

describe('push payloads', () => {
  it('tells the owner of a scan: their item page, when and roughly where, worded in the browser’s language', () => {
    const push = { kind: 'scan-alert', data: { subscriptionId: 'phone', tagCode: 'ABCD1234EFGH5678', scanId: '019ab1c2-0000-7000-8000-000000000003' } } as const;
    expect(payloadOf(push, undefined, scan)).toEqual({ kind: 'scan-alert', url: '/item/ABCD-1234-EFGH-5678', scanned_at: '2026-11-26T10:06:00.000Z', city: 'Amsterdam', country: 'NL' });
    expect(payloadOf(push, undefined, { ...scan, city: null, country: null })).toMatchObject({ city: null, country: null });
    // The device's kind is the owner's scan history's, not the push's.
    expect(JSON.stringify(payloadOf(push, undefined, scan))).not.toContain('phone');
    expect(() => payloadOf(push, undefined)).toThrow('a scan alert is pushed with its scan');
  });

  it('tells of a message where to look and who wrote, in a finder’s conversation language when there is one', () => {
    const push = { kind: 'new-message', data: { subscriptionId: 'phone', tagCode: 'ABCD1234EFGH5678', author: 'owner' } } as const;
    expect(payloadOf(push, 'nl')).toEqual({ kind: 'new-message', author: 'owner', url: '/found/ABCD-1234-EFGH-5678', language: 'nl' });
    expect(payloadOf(push, undefined)).toEqual({ kind: 'new-message', author: 'owner', url: '/found/ABCD-1234-EFGH-5678' });
  });
});
