import type { FinderDetails } from '@homing/contracts';
import { apiCall, ownedItem } from '../support/api';
import { stackForSuite } from '../support/stack';

// The finder page's form in a browser without script, as HTTP: a first message opens the finder's conversation (a
// cookie), and in it the address may come alone (the page asks for it again when saving it failed after the message).
describe('the finder page’s form without script', () => {
  const stack = stackForSuite();

  const post = (code: string, fields: Record<string, string>, cookie?: string) =>
    fetch(`${stack.base}/found/${code}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(stack.publicUrl).origin, ...(cookie ? { cookie } : {}) },
      body: new URLSearchParams(fields).toString(),
    });

  it('takes the finder’s address alone in their conversation, and only there', async () => {
    const { code, token } = await ownedItem(stack);
    const first = await post(code, { content: 'Found your keys at the station', language: 'en' });
    expect(first.status).toBe(303);
    const cookie = (first.headers.get('set-cookie') ?? '').split(';')[0];
    expect(cookie).toMatch(/^homing_finder=/);
    expect((await apiCall<FinderDetails>(stack, 'GET', `/items/${code}/finder-details`, { token })).body.finder_known).toBe(false);

    // Without a conversation an address alone is no message.
    const stranger = await post(code, { content: '', email: 'stranger@example.test', language: 'en' });
    expect(stranger.status).toBe(422);

    const address = await post(code, { content: '', email: 'finder@example.test', language: 'en' }, cookie);
    expect(address.status).toBe(303);
    expect((await apiCall<FinderDetails>(stack, 'GET', `/items/${code}/finder-details`, { token })).body.finder_known).toBe(true);
    const thread = await apiCall<Array<{ content: string }>>(stack, 'GET', `/items/${code}/messages`, { token });
    expect(thread.body.map((message) => message.content)).toEqual(['Found your keys at the station']);
  });

  it('answers a form over its size limit with the page, saying the message is too long, and writes nothing', async () => {
    const { code, token } = await ownedItem(stack);
    // 40,000 characters: past the form's 32 KB, so refused before it is read.
    const tooLarge = await post(code, { content: 'x'.repeat(40_000), language: 'en' });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const page = await tooLarge.text();
    expect(page).toContain('<h1>You found someone&#x27;s item</h1>');
    expect(page).toContain('Maximum: 2000.');
    expect(tooLarge.headers.get('set-cookie')).toBeNull();
    expect((await apiCall<unknown[]>(stack, 'GET', `/items/${code}/messages`, { token })).body).toEqual([]);
  });

  it('sends a link with a trailing slash to the page’s one address, its query kept and its code kept in the path', async () => {
    const { code } = await ownedItem(stack);
    const slashed = await fetch(`${stack.base}/found/${code}/?resume=abc&lang=nl`, { redirect: 'manual' });
    expect(slashed.status).toBe(301);
    expect(slashed.headers.get('location')).toBe(`/found/${code}?resume=abc&lang=nl`);
    expect((await fetch(`${stack.base}/found/${code}/`, { redirect: 'follow' })).url).toBe(`${stack.base}/found/${code}`);
    // A code that decodes to slashes stays one segment of this site's path: never another host.
    const crafted = await fetch(`${stack.base}/found/%2F%2Fevil.example/`, { redirect: 'manual' });
    expect(crafted.status).toBe(301);
    expect(crafted.headers.get('location')).toBe('/found/%2F%2Fevil.example');
  });
});
