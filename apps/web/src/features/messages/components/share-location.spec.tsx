import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Message } from '@homing/contracts';

import { callsTo, gateway, headersOf } from '../../../testing/gateway';
import { jsonResponse, renderApp } from '../../../testing/render-app';

const CODE = 'ABCD-EFGH-JKMN-PQRS';
const API = `/api/v1/items/${CODE}`;
const TOKEN = 'AAAAAAAAAAAAAAAAAAAAAA';
const item = () => ({ code: CODE, name: 'Keys', claimed_at: '2026-11-01T10:00:00Z', activated: true, is_owner: false, lost: true });
const message = (overrides: Partial<Message> = {}): Message => ({
  id: 1,
  conversation_id: '0190a000-0000-7000-8000-000000000001',
  author: 'finder',
  content: 'I found your keys',
  created_at: new Date().toISOString(),
  is_read: false,
  delivered_at: null,
  read_at: null,
  version: 0,
  ...overrides,
});

/** The browser's geolocation, answering with `answer` (a position or an error code) when asked. */
function fakeGeolocation(answer: { latitude: number; longitude: number; accuracy: number } | { code: 1 | 2 | 3 }) {
  const getCurrentPosition = vi.fn((success: PositionCallback, failure?: PositionErrorCallback | null) => {
    if ('code' in answer) failure?.({ code: answer.code, message: 'x', PERMISSION_DENIED: 1, POSITION_UNAVAILABLE: 2, TIMEOUT: 3 } as GeolocationPositionError);
    else success({ coords: { ...answer, altitude: null, altitudeAccuracy: null, heading: null, speed: null }, timestamp: Date.now() } as GeolocationPosition);
  });
  Object.defineProperty(navigator, 'geolocation', { value: { getCurrentPosition }, configurable: true });
  return getCurrentPosition;
}

/** A finder who has written (their token stored), on the item's page; the server rounds a shared place as the contract says. */
function finderWithConversation(messages: Message[] = [message()]) {
  localStorage.setItem(`homing.finder.${CODE}`, TOKEN);
  const fetch = gateway({
    [`GET ${API}`]: () => jsonResponse(200, item()),
    [`GET ${API}/messages`]: () => jsonResponse(200, messages),
    [`POST ${API}/location`]: async (_url, init) => {
      const body = JSON.parse(String(init.body)) as { lat: number; lon: number; precise: boolean };
      const decimals = body.precise ? 5 : 2;
      const location = { lat: Number(body.lat.toFixed(decimals)), lon: Number(body.lon.toFixed(decimals)), accuracy_m: body.precise ? 20 : 1000, precise: body.precise };
      return jsonResponse(201, { message: message({ id: 2, content: '', location }) });
    },
  });
  renderApp(`/found/${CODE}`, { fetch });
  return { fetch };
}

describe('sharing where the item was found', () => {
  afterEach(() => {
    Reflect.deleteProperty(navigator, 'geolocation');
  });

  it('is offered only once the finder has a conversation, and asks for the position only when tapped', async () => {
    const locate = fakeGeolocation({ latitude: 52.37403, longitude: 4.88969, accuracy: 20 });
    const beforeWriting = renderApp(`/found/${CODE}`, { fetch: gateway({ [`GET ${API}`]: () => jsonResponse(200, item()) }) });
    expect(await screen.findByLabelText('Message')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Share where I found it' })).not.toBeInTheDocument();
    beforeWriting.unmount();

    finderWithConversation();
    expect(await screen.findByRole('button', { name: 'Share where I found it' })).toBeInTheDocument();
    expect(locate).not.toHaveBeenCalled();
  });

  it('previews the rounded place before sending it, and sends it coarse by default', async () => {
    const locate = fakeGeolocation({ latitude: 52.37403, longitude: 4.88969, accuracy: 20 });
    const { fetch } = finderWithConversation();
    await userEvent.click(await screen.findByRole('button', { name: 'Share where I found it' }));
    expect(locate).toHaveBeenCalledTimes(1);

    const preview = screen.getByRole('region', { name: 'Share where you found it' });
    expect(within(preview).getByText('About 52.37, 4.89 (within about 1 km)')).toBeInTheDocument();
    // The heading takes focus in an effect after the preview renders: on a busy machine that can come a tick later.
    await waitFor(() => expect(within(preview).getByRole('heading', { name: 'Share where you found it' })).toHaveFocus());
    expect(within(preview).getByRole('checkbox', { name: 'Share my exact position, for a hand-over' })).not.toBeChecked();
    expect(callsTo(fetch, 'POST', `${API}/location`)).toEqual([]);

    await userEvent.click(within(preview).getByRole('button', { name: 'Send this place' }));
    const thread = screen.getByRole('list', { name: 'Messages' });
    expect(await within(thread).findByText('Shared a place: 52.37, 4.89 (within about 1 km)')).toBeInTheDocument();
    const [[, init]] = callsTo(fetch, 'POST', `${API}/location`);
    // Rounded before it leaves the device: the exact position is never sent for a coarse place.
    expect(JSON.parse(String(init?.body))).toEqual({ lat: 52.37, lon: 4.89, accuracy_m: 1000, precise: false });
    expect(headersOf(init)['x-finder-token']).toBe(TOKEN);
    expect(screen.queryByRole('region', { name: 'Share where you found it' })).not.toBeInTheDocument();
    await waitFor(() => expect(screen.getByRole('button', { name: 'Share where I found it' })).toHaveFocus());
  });

  it('shows and sends the exact position when the finder chooses it for a hand-over', async () => {
    fakeGeolocation({ latitude: 52.37403, longitude: 4.88969, accuracy: 20 });
    const { fetch } = finderWithConversation();
    await userEvent.click(await screen.findByRole('button', { name: 'Share where I found it' }));
    await userEvent.click(screen.getByRole('checkbox', { name: 'Share my exact position, for a hand-over' }));
    expect(screen.getByText('52.37403, 4.88969 (exact position)')).toBeInTheDocument();
    expect(screen.queryByText(/About 52.37/)).not.toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Send this place' }));
    await waitFor(() => expect(callsTo(fetch, 'POST', `${API}/location`)).toHaveLength(1));
    expect(JSON.parse(String(callsTo(fetch, 'POST', `${API}/location`)[0][1]?.body))).toMatchObject({ lat: 52.37403, lon: 4.88969, precise: true });
    expect(await screen.findByText('Shared a place: 52.37403, 4.88969 (exact position)')).toBeInTheDocument();
  });

  it('sends nothing when the finder cancels the preview', async () => {
    fakeGeolocation({ latitude: 52.37403, longitude: 4.88969, accuracy: 20 });
    const { fetch } = finderWithConversation();
    await userEvent.click(await screen.findByRole('button', { name: 'Share where I found it' }));
    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('region', { name: 'Share where you found it' })).not.toBeInTheDocument();
    expect(callsTo(fetch, 'POST', `${API}/location`)).toEqual([]);
  });

  it.each([
    [1, /did not let this page know your position/],
    [2, /could not be found/],
    [3, /took too long/],
  ] as const)('says so when the browser answers with error %i, and sends nothing', async (code, text) => {
    fakeGeolocation({ code });
    const { fetch } = finderWithConversation();
    await userEvent.click(await screen.findByRole('button', { name: 'Share where I found it' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(text);
    expect(screen.queryByRole('region', { name: 'Share where you found it' })).not.toBeInTheDocument();
    expect(callsTo(fetch, 'POST', `${API}/location`)).toEqual([]);
  });

  it('says so in a browser without geolocation', async () => {
    Reflect.deleteProperty(navigator, 'geolocation');
    finderWithConversation();
    await userEvent.click(await screen.findByRole('button', { name: 'Share where I found it' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('This browser cannot tell your position.');
  });

  it('keeps the preview and says why when sending fails', async () => {
    fakeGeolocation({ latitude: 52.37403, longitude: 4.88969, accuracy: 20 });
    localStorage.setItem(`homing.finder.${CODE}`, TOKEN);
    const fetch = gateway({
      [`GET ${API}`]: () => jsonResponse(200, item()),
      [`GET ${API}/messages`]: () => jsonResponse(200, [message()]),
      [`POST ${API}/location`]: () => jsonResponse(429, { response_code: 'RATE_LIMITED', message: 'x' }),
    });
    renderApp(`/found/${CODE}`, { fetch });
    await userEvent.click(await screen.findByRole('button', { name: 'Share where I found it' }));
    await userEvent.click(screen.getByRole('button', { name: 'Send this place' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('You are making too many requests.');
    expect(screen.getByRole('region', { name: 'Share where you found it' })).toBeInTheDocument();
  });
});
