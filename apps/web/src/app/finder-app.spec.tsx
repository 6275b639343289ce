import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { StrictMode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ConversationState, PublicItem } from '@homing/contracts';

import { keepServerRenderedItem, serverRenderedItemScript } from '../features/messages/server-rendered-item';
import { createI18n } from '../i18n/i18n';
import { ApiClient } from '../lib/api-client';
import { createPageQueryStore } from '../lib/page-query-store';
import { callsTo, gateway, headersOf } from '../testing/gateway';
import { threadMessage as message } from '../testing/messages';
import { jsonResponse } from '../testing/render-app';
import { FinderApp } from './finder-app';
import { PageProvider } from './page-provider';

const CODE = 'ABCD-EFGH-JKMN-PQRS';
const API = `/api/v1/items/${CODE}`;
const RESUME = 'RRRRRRRRRRRRRRRRRRRRRR';
const TOKEN = 'AAAAAAAAAAAAAAAAAAAAAA';
const item = (overrides: Partial<PublicItem> = {}): PublicItem => ({ code: CODE, name: 'Umbrella', claimed_at: '2026-11-01T10:00:00Z', activated: true, is_owner: false, lost: false, ...overrides }) as PublicItem;

const conversationState = (overrides: Partial<ConversationState> = {}): ConversationState => ({
  conversation_id: '0190a000-0000-7000-8000-000000000001',
  contact_consent: { finder: false, owner: false },
  contact_shared: false,
  closed_at: null,
  ...overrides,
});

/**
 * The finder page's own entry with its providers and queries as src/finder-main.tsx gives them, on a page the gateway
 * rendered with `rendered` (its code's page), at `path`.
 */
function renderFinderPage(rendered: PublicItem, fetch: ReturnType<typeof gateway>, path = `/found/${rendered.code}`) {
  window.history.replaceState(null, '', path);
  const page = document.createElement('div');
  page.innerHTML = serverRenderedItemScript(rendered);
  keepServerRenderedItem(page);
  const api = new ApiClient({ fetch, storage: null, language: () => 'en', sleep: () => Promise.resolve() });
  const reload = vi.fn();
  render(
    <StrictMode>
      <PageProvider i18n={createI18n()} api={api} queries={createPageQueryStore()}>
        <FinderApp code={rendered.code} reload={reload} />
      </PageProvider>
    </StrictMode>,
  );
  return { reload };
}

afterEach(() => window.history.replaceState(null, '', '/'));

describe('the finder page’s own entry', () => {
  it('shows the finder’s page from the item the gateway rendered, in the visitors’ layout with plain links, and counts the scan once', async () => {
    // A code of its own: a scan is counted once per code and page load (useRecordScan), whichever test ran before.
    const code = 'SCAN-0NCE-TEST-C0DE';
    const api = `/api/v1/items/${code}`;
    const fetch = gateway({ [`GET ${api}`]: () => jsonResponse(200, item({ code })), [`POST ${api}/scans`]: () => new Response(null, { status: 204 }) });
    const { reload } = renderFinderPage(item({ code }), fetch);
    // At once, from the page: no loading state in between.
    expect(screen.getByRole('heading', { name: "You found someone's item" })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Send to the owner' })).toBeEnabled();
    expect(screen.getAllByRole('link').map((link) => link.getAttribute('href'))).toEqual(expect.arrayContaining(['/', '/login', `/login?c=${encodeURIComponent(code)}`, '/about']));
    expect(screen.getByRole('combobox', { name: 'Language' })).toBeInTheDocument();
    await waitFor(() => expect(callsTo(fetch, 'POST', `${api}/scans`)).toHaveLength(1));
    await waitFor(() => expect(callsTo(fetch, 'GET', api)).toHaveLength(1));
    expect(reload).not.toHaveBeenCalled();
  });

  it('brings a finder’s conversation from their resume link and takes the link out of the address', async () => {
    const fetch = gateway({
      [`GET ${API}`]: () => jsonResponse(200, item()),
      [`POST ${API}/scans`]: () => new Response(null, { status: 204 }),
      [`POST ${API}/finder-resume`]: () => jsonResponse(200, { finder_token: TOKEN }),
      [`GET ${API}/messages`]: () => jsonResponse(200, [message(1, 'finder', 'Found it on the bus'), message(2, 'owner', 'Thank you!')]),
    });
    renderFinderPage(item(), fetch, `/found/${CODE}?resume=${RESUME}&utm=mail`);
    expect(await screen.findByText('Thank you!')).toBeInTheDocument();
    expect(callsTo(fetch, 'POST', `${API}/finder-resume`)).toHaveLength(1);
    expect(headersOf(callsTo(fetch, 'GET', `${API}/messages`)[0][1])['x-finder-token']).toBe(TOKEN);
    expect(window.location.pathname).toBe(`/found/${CODE}`);
    expect(window.location.search).toBe('?utm=mail');
  });

  it('asks for the conversation’s state with the finder’s token, shows the consent it was answered, and asks for the item again after a hand-over', async () => {
    localStorage.setItem(`homing.finder.${CODE}`, TOKEN);
    let lost = true;
    const fetch = gateway({
      [`GET ${API}`]: () => jsonResponse(200, item({ lost })),
      [`POST ${API}/scans`]: () => new Response(null, { status: 204 }),
      [`GET ${API}/messages`]: () => jsonResponse(200, [message(1, 'finder', 'Found it on the bus')]),
      [`GET ${API}/conversation`]: () => jsonResponse(200, conversationState()),
      [`POST ${API}/contact-consent`]: () => jsonResponse(200, conversationState({ contact_consent: { finder: true, owner: false } })),
      [`POST ${API}/handover`]: () => {
        lost = false;
        return jsonResponse(200, { closed_at: new Date().toISOString() });
      },
    });
    renderFinderPage(item({ lost: true }), fetch);
    const panel = await screen.findByRole('region', { name: 'Contact details' });
    expect(headersOf(callsTo(fetch, 'GET', `${API}/conversation`)[0][1])['x-finder-token']).toBe(TOKEN);
    await userEvent.click(within(panel).getByRole('button', { name: 'Agree to share contact details' }));
    // The answer of the agreement is the state shown, without asking for it again.
    expect(await within(panel).findByText(/^You agreed to share contact details/)).toBeInTheDocument();
    expect(callsTo(fetch, 'GET', `${API}/conversation`)).toHaveLength(1);

    expect(screen.getByText('The owner is looking for this item.')).toBeInTheDocument();
    const itemCalls = callsTo(fetch, 'GET', API).length;
    const section = screen.getByRole('region', { name: 'Hand-over' });
    await userEvent.type(within(section).getByLabelText('Hand-over code'), '482913');
    await userEvent.click(within(section).getByRole('button', { name: 'Confirm hand-over' }));
    expect(await screen.findByText('Thank you! The case is closed.')).toBeInTheDocument();
    // The owner has it back: the item and the conversation's state are asked for again.
    await waitFor(() => expect(screen.queryByText('The owner is looking for this item.')).not.toBeInTheDocument());
    expect(callsTo(fetch, 'GET', API)).toHaveLength(itemCalls + 1);
    await waitFor(() => expect(callsTo(fetch, 'GET', `${API}/conversation`)).toHaveLength(2));
  });

  it('has the gateway render the page again when the item is gone or no longer a finder’s', async () => {
    for (const answer of [() => jsonResponse(404, { response_code: 'ITEM_NOT_FOUND', message: 'x' }), () => jsonResponse(200, item({ activated: false }))]) {
      const { reload } = renderFinderPage(item(), gateway({ [`GET ${API}`]: answer, [`POST ${API}/scans`]: () => new Response(null, { status: 204 }) }));
      await waitFor(() => expect(reload).toHaveBeenCalled());
    }
  });
});
