import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';

import { callsTo, gateway } from '../../../testing/gateway';
import { fakeToken, jsonResponse, renderApp } from '../../../testing/render-app';

const CODE = 'ABCD-EFGH-JKMN-PQRS';
const item = (overrides: Record<string, unknown> = {}) => ({ code: CODE, name: 'Keys', claimed_at: '2026-11-01T10:00:00Z', activated: true, is_owner: true, lost: false, ...overrides });

describe('my items', () => {
  it('needs a login', async () => {
    renderApp('/items');
    expect(await screen.findByRole('heading', { name: 'You need to be logged in' })).toBeInTheDocument();
  });

  it('lists items with their QR code, the default name when unnamed, and the found overlay', async () => {
    const unnamed = 'WXYZ-WXYZ-WXYZ-WXYZ';
    const fetch = gateway({
      'GET /api/v1/user/items': () => jsonResponse(200, [item({ reward: 500 }), item({ code: unnamed, name: null })]),
      'GET /api/v1/user/found-items': () => jsonResponse(200, { [CODE]: true, [unnamed]: false }),
    });
    renderApp('/items', { fetch, token: fakeToken() });
    const named = (await screen.findByText('Keys')).closest('a');
    expect(named).toHaveAttribute('href', `/found/${CODE}`);
    expect(await within(named as HTMLElement).findByText('Found')).toBeInTheDocument();
    expect(screen.getByText('[No name yet]').closest('a')).toHaveAttribute('href', `/item/${unnamed}`);
    await waitFor(() => expect(named?.querySelector('img.qr')).toHaveAttribute('src', expect.stringMatching(/^data:image\/svg\+xml;base64,/)));
    expect(named).toHaveAccessibleName('Found Keys');
    // Rewards are off: no reward is shown even when the server sends one.
    expect(screen.queryByText(/Reward:/)).not.toBeInTheDocument();
  });

  it('marks an item lost in one tap, shows it lost, and marks it back', async () => {
    let current = item();
    const patches: unknown[] = [];
    const fetch = gateway({
      'GET /api/v1/user/items': () => jsonResponse(200, [current]),
      'GET /api/v1/user/found-items': () => jsonResponse(200, { [CODE]: false }),
      [`PATCH /api/v1/user/items/${CODE}`]: (_url, init) => {
        const body = JSON.parse(String(init.body)) as { lost: boolean };
        patches.push(body);
        current = item({ lost: body.lost });
        return jsonResponse(200, current);
      },
    });
    renderApp('/items', { fetch, token: fakeToken() });
    expect(screen.queryByText('Lost')).not.toBeInTheDocument();
    await userEvent.click(await screen.findByRole('button', { name: 'I lost it: Keys' }));
    expect(await screen.findByText('“Keys” is marked as lost.')).toBeInTheDocument();
    expect(await screen.findByText('Lost')).toBeInTheDocument();
    await userEvent.click(await screen.findByRole('button', { name: 'I have it again: Keys' }));
    expect(await screen.findByText('Good to have “Keys” back. It is no longer marked as lost.')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByText('Lost')).not.toBeInTheDocument());
    expect(patches).toEqual([{ lost: true }, { lost: false }]);
  });

  it('introduces the page when there are no items', async () => {
    renderApp('/items', { fetch: gateway({ 'GET /api/v1/user/items': () => jsonResponse(200, []) }), token: fakeToken() });
    expect(await screen.findByText(/You have no items yet/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Add an item' })).toHaveAttribute('href', '/add-item');
    // The intro's promise to print a QR code leads somewhere: adding an item, whose page prints it.
    expect(screen.getByRole('link', { name: 'add an item here' })).toHaveAttribute('href', '/add-item');
  });

  it('logs out when the server no longer takes the token and cannot refresh it', async () => {
    const fetch = gateway({
      'GET /api/v1/user/items': () => jsonResponse(401, { response_code: 'SESSION_EXPIRED', message: 'x' }),
      'POST /api/v1/auth/refresh-token': () => jsonResponse(401, { response_code: 'SESSION_EXPIRED', message: 'x' }),
    });
    const { api } = renderApp('/items', { fetch, token: fakeToken() });
    expect(await screen.findByRole('heading', { name: 'You need to be logged in' })).toBeInTheDocument();
    expect(screen.getByText('Your session has expired. Please log in again.')).toBeInTheDocument();
    expect(api.getToken()).toBeNull();
  });

  it('flashes when the items cannot be fetched', async () => {
    renderApp('/items', { fetch: gateway({ 'GET /api/v1/user/items': () => jsonResponse(500, {}) }), token: fakeToken() });
    expect(await screen.findByText("We couldn't fetch your items.")).toBeInTheDocument();
  });
});

describe('add and edit an item', () => {
  it('requires a name', async () => {
    renderApp('/add-item', { token: fakeToken() });
    await userEvent.click(await screen.findByRole('button', { name: 'Save' }));
    expect(await screen.findByText('This field is required.')).toBeInTheDocument();
    expect(screen.queryByLabelText(/Reward/)).not.toBeInTheDocument();
  });

  it('creates the item with an Idempotency-Key, flashes and goes to its found page', async () => {
    const fetch = gateway({ 'POST /api/v1/items': () => jsonResponse(201, item({ name: 'Bike' })) });
    const { router } = renderApp('/add-item', { fetch, token: fakeToken() });
    await userEvent.type(await screen.findByLabelText('Name'), 'Bike');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(router.state.location.pathname).toBe(`/found/${CODE}`));
    expect(await screen.findByText('Item saved.')).toBeInTheDocument();
    const [, init] = fetch.mock.calls.find(([url]) => url === '/api/v1/items') ?? [];
    expect(init?.body).toBe('{"name":"Bike"}');
    expect((init?.headers as Record<string, string>)['Idempotency-Key']).toMatch(/^[0-9a-f]{32}$/);
  });

  it('shows the server’s validation message under the field', async () => {
    const fetch = gateway({ 'POST /api/v1/items': () => jsonResponse(422, { response_code: 'VALIDATION_ERROR', message: 'x', validation: { name: 'max=100' } }) });
    renderApp('/add-item', { fetch, token: fakeToken() });
    await userEvent.type(await screen.findByLabelText('Name'), 'Bike');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Maximum: 100.')).toBeInTheDocument();
  });

  it('requires a name when editing too', async () => {
    const fetch = gateway({ [`GET /api/v1/user/items/${CODE}`]: () => jsonResponse(200, item()) });
    renderApp(`/item/${CODE}`, { fetch, token: fakeToken() });
    await userEvent.clear(await screen.findByLabelText('Name'));
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('This field is required.')).toBeInTheDocument();
    expect(screen.getByLabelText('Name')).toHaveAttribute('aria-invalid', 'true');
    expect(fetch.mock.calls.some(([, init]) => init?.method === 'PATCH')).toBe(false);
  });

  it('shows the tag’s QR code beside the form', async () => {
    renderApp(`/item/${CODE}`, { fetch: gateway({ [`GET /api/v1/user/items/${CODE}`]: () => jsonResponse(200, item()) }), token: fakeToken() });
    expect(await screen.findByRole('img', { name: `QR code of tag ${CODE}` })).toHaveAttribute('src', expect.stringMatching(/^data:image\/svg\+xml;base64,/));
  });

  it('keeps a note for finders while the item is lost', async () => {
    let current = item({ lost: true });
    const fetch = gateway({
      [`GET /api/v1/user/items/${CODE}`]: () => jsonResponse(200, current),
      [`PATCH /api/v1/user/items/${CODE}`]: (_url, init) => {
        const body = JSON.parse(String(init.body)) as { lost_note?: string };
        if (body.lost_note === 'Call 0612345678') return jsonResponse(422, { response_code: 'VALIDATION_ERROR', message: 'x', validation: { lost_note: 'invalid' } });
        current = item({ lost: true, lost_note: body.lost_note });
        return jsonResponse(200, current);
      },
      [`GET /api/v1/user/items/${CODE}/scans`]: () => jsonResponse(200, { scans: [] }),
      [`GET /api/v1/user/items/${CODE}/co-owners`]: () => jsonResponse(200, { people: [], invitations: [] }),
      [`GET /api/v1/user/items/${CODE}/notifications`]: () => jsonResponse(200, { email: true, push: true }),
    });
    renderApp(`/item/${CODE}`, { fetch, token: fakeToken() });
    expect(await screen.findByText(/Marked as lost\./)).toBeInTheDocument();
    const note = screen.getByLabelText('Note for the finder');
    await userEvent.type(note, 'Call 0612345678');
    await userEvent.click(screen.getByRole('button', { name: 'Save note' }));
    expect(await screen.findByRole('alert')).toBeInTheDocument();
    await userEvent.clear(note);
    await userEvent.type(note, 'A reward for the finder');
    await userEvent.click(screen.getByRole('button', { name: 'Save note' }));
    expect(await screen.findByText('Note saved.')).toBeInTheDocument();
    expect(note).toHaveValue('A reward for the finder');
  });

  it('renames an item and says so when it vanished meanwhile', async () => {
    let vanished = false;
    const fetch = gateway({
      [`GET /api/v1/user/items/${CODE}`]: () => jsonResponse(200, item()),
      [`PATCH /api/v1/user/items/${CODE}`]: (_url, init) =>
        vanished ? jsonResponse(404, { response_code: 'ITEM_NOT_FOUND', message: 'x' }) : jsonResponse(200, item(JSON.parse(String(init.body)))),
    });
    const { router } = renderApp(`/item/${CODE}`, { fetch, token: fakeToken() });
    const name = await screen.findByLabelText('Name');
    expect(name).toHaveValue('Keys');
    vanished = true;
    await userEvent.clear(name);
    await userEvent.type(name, 'House keys');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('The item you are trying to save was not found.')).toBeInTheDocument();
    vanished = false;
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(router.state.location.pathname).toBe(`/found/${CODE}`));
  });

  it('shows the not-found view for an unknown code', async () => {
    renderApp('/item/NOPE', { fetch: gateway({}), token: fakeToken() });
    expect(await screen.findByText('No item with code "NOPE" was found. If this is your tag, please contact us.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Contact us' })).toHaveAttribute('href', '/contact');
  });

  it('deletes only after a confirmation, which Escape closes', async () => {
    const fetch = gateway({
      [`GET /api/v1/user/items/${CODE}`]: () => jsonResponse(200, item()),
      [`DELETE /api/v1/user/items/${CODE}`]: () => new Response(null, { status: 204 }),
      'GET /api/v1/user/items': () => jsonResponse(200, []),
    });
    const { router } = renderApp(`/item/${CODE}`, { fetch, token: fakeToken() });
    await userEvent.click(await screen.findByRole('button', { name: 'Delete item' }));
    expect(screen.getByRole('alertdialog', { name: 'Delete this item?' })).toBeInTheDocument();
    await userEvent.keyboard('{Escape}');
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    expect(fetch.mock.calls.some(([, init]) => init?.method === 'DELETE')).toBe(false);

    await userEvent.click(screen.getByRole('button', { name: 'Delete item' }));
    await userEvent.click(screen.getByRole('button', { name: 'Yes, delete' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/items'));
    expect(await screen.findByText('Item deleted.')).toBeInTheDocument();
  });

  it('takes the owner to their items after a delete, even when a refetch of the item comes back 404 meanwhile', async () => {
    // The page refetches a cached item when it opens; that answer may arrive after the delete has committed.
    let itemCalls = 0;
    let answerRefetch: (response: Response) => void = () => undefined;
    let answerDelete: (response: Response) => void = () => undefined;
    const fetch = gateway({
      [`GET /api/v1/user/items/${CODE}`]: () => (++itemCalls === 1 ? jsonResponse(200, item()) : new Promise((answer) => (answerRefetch = answer))),
      [`DELETE /api/v1/user/items/${CODE}`]: () => new Promise((answer) => (answerDelete = answer)),
      'GET /api/v1/user/items': () => jsonResponse(200, []),
    });
    const { router } = renderApp(`/item/${CODE}`, { fetch, token: fakeToken() });
    await screen.findByRole('button', { name: 'Delete item' });
    await router.navigate('/items');
    await screen.findByText('You have no items yet', { exact: false });
    await router.navigate(`/item/${CODE}`);
    await waitFor(() => expect(itemCalls).toBe(2));

    await userEvent.click(await screen.findByRole('button', { name: 'Delete item' }));
    await userEvent.click(screen.getByRole('button', { name: 'Yes, delete' }));
    await waitFor(() => expect(callsTo(fetch, 'DELETE', `/api/v1/user/items/${CODE}`)).toHaveLength(1));
    answerRefetch(jsonResponse(404, { response_code: 'ITEM_NOT_FOUND', message: 'Item not found' }));
    await new Promise((settled) => setTimeout(settled, 50));
    answerDelete(new Response(null, { status: 204 }));

    await waitFor(() => expect(router.state.location.pathname).toBe('/items'));
    expect(await screen.findByText('Item deleted.')).toBeInTheDocument();
  });
});

describe('the home page', () => {
  it('takes a tag code in any case, with or without dashes, to its finder page', async () => {
    const { router } = renderApp('/');
    await userEvent.type(await screen.findByLabelText('The code on the tag'), 'abcdefghjkmnpqrs');
    await userEvent.click(screen.getByRole('button', { name: 'Write to the owner' }));
    await waitFor(() => expect(router.state.location.pathname).toBe(`/found/${CODE}`));
  });

  it('says when the text is not a tag code', async () => {
    renderApp('/');
    await userEvent.type(await screen.findByLabelText('The code on the tag'), 'hello');
    await userEvent.click(screen.getByRole('button', { name: 'Write to the owner' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('This is not a tag code.');
  });
});

describe('the QR code in the owner’s hands', () => {
  const owned = { [`GET /api/v1/user/items/${CODE}`]: () => jsonResponse(200, item()) };

  it('offers the tag’s PNG and its print page on the item page', async () => {
    renderApp(`/item/${CODE}`, { fetch: gateway(owned), token: fakeToken() });
    const download = await screen.findByRole('link', { name: 'Download PNG' });
    expect(download).toHaveAttribute('href', `/api/v1/items/${CODE}/qr/download`);
    expect(download).toHaveAttribute('download');
    expect(screen.getByRole('link', { name: 'Print QR code' })).toHaveAttribute('href', `/item/${CODE}/print`);
  });

  it('prints the QR code and the code in groups of four at two sizes, the dialog only on a click', async () => {
    const print = vi.spyOn(window, 'print').mockImplementation(() => undefined);
    renderApp(`/item/${CODE}/print`, { fetch: gateway(owned), token: fakeToken() });
    expect(await screen.findByRole('heading', { name: 'Print your QR code' })).toBeInTheDocument();
    await waitFor(() => expect(screen.getAllByRole('img', { name: `QR code of tag ${CODE}` })).toHaveLength(2));
    const labels = within(screen.getByRole('list', { name: 'Labels to print' })).getAllByRole('listitem');
    expect(labels.map((label) => label.dataset.size)).toEqual(['large', 'small']);
    for (const label of labels) {
      expect(within(label).getByRole('img', { name: `QR code of tag ${CODE}` }).tagName).toBe('IMG');
      expect(within(label).getByText(CODE)).toHaveClass('tag-code');
      expect(within(label).getByText('Found this? Scan me to reach the owner.')).toBeInTheDocument();
    }
    expect(Number(within(labels[0]).getByRole('img').getAttribute('width'))).toBeGreaterThan(Number(within(labels[1]).getByRole('img').getAttribute('width')));
    expect(print).not.toHaveBeenCalled();
    await userEvent.click(screen.getByRole('button', { name: 'Print' }));
    expect(print).toHaveBeenCalledOnce();
    print.mockRestore();
  });

  it('shows another person’s or a missing item on the print page as not found', async () => {
    renderApp(`/item/${CODE}/print`, { fetch: gateway({}), token: fakeToken() });
    expect(await screen.findByRole('heading', { name: 'Item not found' })).toBeInTheDocument();
  });
});
