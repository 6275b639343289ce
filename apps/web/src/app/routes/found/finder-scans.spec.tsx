import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { PublicItem } from '@homing/contracts';

import { keepServerRenderedItem, serverRenderedItemScript } from '../../../features/messages/server-rendered-item';
import { callsTo, gateway } from '../../../testing/gateway';
import { fakeToken, jsonResponse, renderApp } from '../../../testing/render-app';

// The scans are counted once per page load (a module-level set): each test uses a code of its own.
const item = (code: string, overrides: Record<string, unknown> = {}) => ({ code, name: 'Keys', claimed_at: '2026-11-01T10:00:00Z', activated: true, is_owner: false, ...overrides });
const scanned = () => new Response(null, { status: 204 });

describe('a scan of the finder page', () => {
  it('is counted once when the app takes over the server-rendered page under StrictMode (effects run twice on mount)', async () => {
    const code = 'SCAN-0000-0000-0001';
    const api = `/api/v1/items/${code}`;
    const page = document.createElement('div');
    page.innerHTML = serverRenderedItemScript({ ...item(code), lost: false } as PublicItem);
    keepServerRenderedItem(page);
    const fetch = gateway({ [`GET ${api}`]: () => jsonResponse(200, item(code)), [`POST ${api}/scans`]: scanned });
    renderApp(`/found/${code}`, { fetch, strictMode: true });
    expect(await screen.findByRole('heading', { name: "You found someone's item" })).toBeInTheDocument();
    await waitFor(() => expect(callsTo(fetch, 'GET', api).length).toBeGreaterThan(0));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(callsTo(fetch, 'POST', `${api}/scans`)).toHaveLength(1);
  });

  it('is counted once per visit when the finder comes back to the page in the app', async () => {
    const code = 'SCAN-0000-0000-0007';
    const api = `/api/v1/items/${code}`;
    const fetch = gateway({ [`GET ${api}`]: () => jsonResponse(200, item(code)), [`POST ${api}/scans`]: scanned });
    const { router } = renderApp(`/found/${code}`, { fetch, strictMode: true });
    await waitFor(() => expect(callsTo(fetch, 'POST', `${api}/scans`)).toHaveLength(1));

    await router.navigate('/about');
    expect(await screen.findByRole('heading', { name: 'About Homing' })).toBeInTheDocument();
    await router.navigate(`/found/${code}`);
    expect(await screen.findByLabelText('Message')).toBeInTheDocument();
    await waitFor(() => expect(callsTo(fetch, 'GET', api)).toHaveLength(2));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(callsTo(fetch, 'POST', `${api}/scans`)).toHaveLength(1);
  });

  it('is counted for another tag’s page of the same visit', async () => {
    const first = 'SCAN-0000-0000-0002';
    const second = 'SCAN-0000-0000-0003';
    const fetch = gateway({
      [`GET /api/v1/items/${first}`]: () => jsonResponse(200, item(first)),
      [`GET /api/v1/items/${second}`]: () => jsonResponse(200, item(second)),
      [`POST /api/v1/items/${first}/scans`]: scanned,
      [`POST /api/v1/items/${second}/scans`]: scanned,
    });
    const { router } = renderApp(`/found/${first}`, { fetch });
    await waitFor(() => expect(callsTo(fetch, 'POST', `/api/v1/items/${first}/scans`)).toHaveLength(1));
    await router.navigate(`/found/${second}`);
    await waitFor(() => expect(callsTo(fetch, 'POST', `/api/v1/items/${second}/scans`)).toHaveLength(1));
  });

  it('is not counted when the logged-in owner opens their own item’s page', async () => {
    const code = 'SCAN-0000-0000-0004';
    const api = `/api/v1/items/${code}`;
    const fetch = gateway({
      [`GET ${api}`]: () => jsonResponse(200, item(code, { is_owner: true })),
      [`GET /api/v1/user/items/${code}/unread-count`]: () => jsonResponse(200, 0),
      [`GET ${api}/messages`]: () => jsonResponse(200, []),
      [`POST ${api}/scans`]: scanned,
    });
    renderApp(`/found/${code}`, { fetch, token: fakeToken(), strictMode: true });
    expect(await screen.findByText(/No messages yet/)).toBeInTheDocument();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(callsTo(fetch, 'POST', `${api}/scans`)).toEqual([]);
  });

  it('is not counted for a tag that is not activated yet', async () => {
    const code = 'SCAN-0000-0000-0005';
    const fetch = gateway({ [`GET /api/v1/items/${code}`]: () => jsonResponse(200, item(code, { activated: false, claimed_at: null })) });
    const { router } = renderApp(`/found/${code}`, { fetch });
    await waitFor(() => expect(router.state.location.pathname).toBe(`/activate/${code}`));
    expect(callsTo(fetch, 'POST', `/api/v1/items/${code}/scans`)).toEqual([]);
  });

  it('that fails leaves the finder’s page as it was, without a word of it', async () => {
    const code = 'SCAN-0000-0000-0006';
    const api = `/api/v1/items/${code}`;
    const fetch = gateway({ [`GET ${api}`]: () => jsonResponse(200, item(code)), [`POST ${api}/scans`]: () => jsonResponse(500, { response_code: 'INTERNAL_ERROR', message: 'x' }) });
    renderApp(`/found/${code}`, { fetch });
    await waitFor(() => expect(callsTo(fetch, 'POST', `${api}/scans`)).toHaveLength(1));
    expect(screen.getByLabelText('Message')).toBeEnabled();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });
});
