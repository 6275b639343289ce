import type { HttpErrorBody, PublicItem } from '@homing/contracts';
import { testAccessToken } from '../support/access-tokens';
import { apiExchange, ownedItem, type ApiCaller } from '../support/api';
import { stackForSuite } from '../support/stack';

// Lost mode through the gateway, every service a process: the owner marks an item lost with a note for finders, the
// public answer (the finder page's) says so, and marking it back ends it, the note with it.
describe('lost mode', () => {
  const stack = stackForSuite();
  const call = <T = unknown>(method: string, path: string, options: ApiCaller = {}) => apiExchange<T>(stack, method, path, options);
  const scan = async (code: string, token?: string) => (await call<PublicItem>('GET', `/items/${code}`, { token })).body;

  it('shows a lost item and its note to anyone who scans it, until the owner has it again', async () => {
    const { code, token } = await ownedItem(stack);
    // Scanned once before, so the gateway's cache holds it: the change must reach the answer all the same.
    expect(await scan(code)).toMatchObject({ lost: false });
    expect(await scan(code)).not.toHaveProperty('lost_note');

    const marked = await call<PublicItem>('PATCH', `/user/items/${code}`, { token, body: { lost: true, lost_note: 'Lost near the station.\nA reward for the finder!' } });
    expect(marked.status).toBe(200);
    expect(marked.body).toMatchObject({ lost: true, lost_note: 'Lost near the station.\nA reward for the finder!' });
    expect(await scan(code)).toMatchObject({ lost: true, lost_note: 'Lost near the station.\nA reward for the finder!', is_owner: false });
    expect(await scan(code, testAccessToken().token)).toMatchObject({ lost: true, lost_note: 'Lost near the station.\nA reward for the finder!' });

    // The note alone changes while it is lost; empty removes it; My items shows the item lost.
    expect((await call<PublicItem>('PATCH', `/user/items/${code}`, { token, body: { lost_note: 'Call the number on the bag.' } })).body.lost_note).toBe('Call the number on the bag.');
    const cleared = await call<PublicItem>('PATCH', `/user/items/${code}`, { token, body: { lost_note: '' } });
    expect(cleared.body.lost).toBe(true);
    expect(cleared.body).not.toHaveProperty('lost_note');
    expect((await call<PublicItem[]>('GET', '/user/items', { token })).body.find((item) => item.code === code)).toMatchObject({ lost: true });

    // "I have it again": not lost, no note, and a note alone is refused now.
    await call('PATCH', `/user/items/${code}`, { token, body: { lost: true, lost_note: 'Again lost' } });
    const back = await call<PublicItem>('PATCH', `/user/items/${code}`, { token, body: { lost: false } });
    expect(back.body.lost).toBe(false);
    expect(back.body).not.toHaveProperty('lost_note');
    expect(await scan(code)).toMatchObject({ lost: false });
    expect(await scan(code)).not.toHaveProperty('lost_note');
    const refused = await call<HttpErrorBody>('PATCH', `/user/items/${code}`, { token, body: { lost_note: 'Not lost' } });
    expect(refused.status).toBe(422);
    expect(refused.body.validation).toEqual({ lost_note: 'invalid' });
  });

  it('refuses a note over 280 characters, one that is not plain text, and a lost that is not a boolean, changing nothing', async () => {
    const { code, token } = await ownedItem(stack);
    for (const body of [{ lost: true, lost_note: 'x'.repeat(281) }, { lost: true, lost_note: 'bell\u0007' }, { lost: 'yes' }, { lost: true, lost_note: 42 }]) {
      const answer = await call<HttpErrorBody>('PATCH', `/user/items/${code}`, { token, body });
      expect({ body, status: answer.status }).toEqual({ body, status: 422 });
    }
    expect(await scan(code)).toMatchObject({ lost: false });
    // Another person's item is the same 404 as a missing one.
    expect((await call('PATCH', `/user/items/${code}`, { token: testAccessToken().token, body: { lost: true } })).status).toBe(404);
  });
});
