import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TagBatchSummary } from '@homing/contracts';

import { callsTo, gateway, headersOf } from '../../../testing/gateway';
import { fakeToken, jsonResponse, renderApp } from '../../../testing/render-app';

const BATCH_ID = '0190a000-0000-7000-8000-0000000000b1';
const batch = (overrides: Partial<TagBatchSummary> = {}): TagBatchSummary => ({
  id: BATCH_ID,
  label: 'Stickers, March',
  count: 10,
  created_at: new Date(Date.now() - 3 * 60_000).toISOString(),
  pages: 1,
  claimed: 3,
  created_by: 'admin@example.com',
  ...overrides,
});
const adminToken = () => fakeToken({ email: 'admin@example.com', is_admin: true });
const tagBatchesRoute = 'GET /api/v1/admin/tag-batches';

describe('tag batches (admins)', () => {
  it('lists the batches with how many tags are activated, when and by whom they were minted', async () => {
    const fetch = gateway({ [tagBatchesRoute]: () => jsonResponse(200, { batches: [batch(), batch({ id: 'other', label: 'Keyrings', count: 500, claimed: 0, created_by: null, pages: 13 })] }) });
    renderApp('/admin/tag-batches', { fetch, token: adminToken() });
    expect(await screen.findByRole('heading', { name: 'Tag batches', level: 1 })).toBeInTheDocument();
    const stickers = (await screen.findByRole('heading', { name: 'Stickers, March', level: 3 })).closest('li') as HTMLElement;
    expect(within(stickers).getByText('3 of 10 activated')).toBeInTheDocument();
    expect(within(stickers).getByText('3 minutes ago')).toBeInTheDocument();
    expect(within(stickers).getByText('admin@example.com')).toBeInTheDocument();
    const keyrings = screen.getByRole('heading', { name: 'Keyrings' }).closest('li') as HTMLElement;
    expect(within(keyrings).getByText('0 of 500 activated')).toBeInTheDocument();
    expect(within(keyrings).getByText('A deleted account')).toBeInTheDocument();
    // A sheet of many pages offers each of its pages.
    expect(within(keyrings).getAllByRole('option')).toHaveLength(13);
    expect(headersOf(callsTo(fetch, 'GET', '/api/v1/admin/tag-batches')[0][1]).authorization).toMatch(/^Bearer /);
  });

  it('says so in Dutch and Spanish too', async () => {
    const fetch = gateway({ [tagBatchesRoute]: () => jsonResponse(200, { batches: [batch()] }) });
    localStorage.setItem('lang', 'nl');
    const { unmount } = renderApp('/admin/tag-batches', { fetch, token: adminToken() });
    expect(await screen.findByText('3 van 10 geactiveerd')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Labelreeksen', level: 1 })).toBeInTheDocument();
    unmount();
    localStorage.setItem('lang', 'es');
    renderApp('/admin/tag-batches', { fetch, token: adminToken() });
    expect(await screen.findByText('3 de 10 activadas')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Crear lote' })).toBeInTheDocument();
  });

  it('mints a batch and shows it in the refreshed list', async () => {
    let batches = [batch()];
    const minted = batch({ id: '0190a000-0000-7000-8000-0000000000b2', label: 'Fair, May', count: 250, claimed: 0, pages: 7 });
    const fetch = gateway({
      [tagBatchesRoute]: () => jsonResponse(200, { batches }),
      'POST /api/v1/admin/tag-batches': () => {
        batches = [minted, ...batches];
        return jsonResponse(201, { id: minted.id, label: minted.label, count: minted.count, created_at: minted.created_at, pages: minted.pages });
      },
    });
    renderApp('/admin/tag-batches', { fetch, token: adminToken() });
    await screen.findByText('3 of 10 activated');
    await userEvent.type(screen.getByLabelText('Label'), 'Fair, May');
    await userEvent.type(screen.getByLabelText('Number of tags'), '250');
    await userEvent.click(screen.getByRole('button', { name: 'Mint batch' }));

    expect(await screen.findByText('0 of 250 activated')).toBeInTheDocument();
    expect(screen.getByText('Batch “Fair, May” minted: 250 new tags.')).toBeInTheDocument();
    expect(JSON.parse(String(callsTo(fetch, 'POST', '/api/v1/admin/tag-batches')[0]?.[1]?.body))).toEqual({ label: 'Fair, May', count: 250 });
    // Newest first, as the server lists them; the form is empty for the next batch.
    expect(screen.getAllByRole('heading', { level: 3 }).map((heading) => heading.textContent)).toEqual(['Fair, May', 'Stickers, March']);
    expect(screen.getByLabelText('Label')).toHaveValue('');
  });

  it('sends each batch with a key of its own, and a retry after a timeout with the same one: one batch, never two', async () => {
    let posts = 0;
    const minted = batch({ id: '0190a000-0000-7000-8000-0000000000b2', label: 'Fair, May', count: 250, claimed: 0, pages: 7 });
    const fetch = gateway({
      [tagBatchesRoute]: () => jsonResponse(200, { batches: [] }),
      // The first answer is lost on the way (a proxy's 504); the gateway answers the retry with the first batch.
      'POST /api/v1/admin/tag-batches': () => (++posts === 1 ? jsonResponse(504, { response_code: 'TIMEOUT', message: 'Timed out.' }) : jsonResponse(201, minted)),
    });
    renderApp('/admin/tag-batches', { fetch, token: adminToken() });
    await screen.findByText('No batches yet. Mint the first one with the form.');
    const mint = async (label: string) => {
      await userEvent.type(screen.getByLabelText('Label'), label);
      await userEvent.type(screen.getByLabelText('Number of tags'), '250');
      await userEvent.click(screen.getByRole('button', { name: 'Mint batch' }));
    };
    await mint('Fair, May');
    expect(await screen.findByText('Batch “Fair, May” minted: 250 new tags.')).toBeInTheDocument();
    await waitFor(() => expect(screen.getByLabelText('Label')).toHaveValue(''));
    await mint('Fair, June');
    await waitFor(() => expect(callsTo(fetch, 'POST', '/api/v1/admin/tag-batches')).toHaveLength(3));
    const keys = callsTo(fetch, 'POST', '/api/v1/admin/tag-batches').map((call) => headersOf(call[1])['idempotency-key']);
    expect(keys[0]).toMatch(/^[\w.:-]{16,128}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).not.toBe(keys[0]);
  });

  it('checks the form before sending it', async () => {
    const fetch = gateway({ [tagBatchesRoute]: () => jsonResponse(200, { batches: [] }) });
    renderApp('/admin/tag-batches', { fetch, token: adminToken() });
    expect(await screen.findByText('No batches yet. Mint the first one with the form.')).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText('Number of tags'), '10001');
    await userEvent.click(screen.getByRole('button', { name: 'Mint batch' }));
    expect(await screen.findByText('This field is required.')).toBeInTheDocument();
    expect(screen.getByLabelText('Label')).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByLabelText('Number of tags')).toHaveAccessibleDescription(expect.stringContaining('Enter a number from 1 to 10,000.'));
    await userEvent.clear(screen.getByLabelText('Number of tags'));
    await userEvent.type(screen.getByLabelText('Number of tags'), '2.5');
    await userEvent.click(screen.getByRole('button', { name: 'Mint batch' }));
    expect(await screen.findByText('Enter a whole number, such as 100.')).toBeInTheDocument();
    expect(callsTo(fetch, 'POST', '/api/v1/admin/tag-batches')).toHaveLength(0);
  });

  it('shows the server’s validation message by its field', async () => {
    const fetch = gateway({
      [tagBatchesRoute]: () => jsonResponse(200, { batches: [] }),
      'POST /api/v1/admin/tag-batches': () => jsonResponse(422, { response_code: 'VALIDATION_ERROR', message: 'x', validation: { count: 'max=10000' } }),
    });
    renderApp('/admin/tag-batches', { fetch, token: adminToken() });
    await userEvent.type(await screen.findByLabelText('Label'), 'Too many');
    await userEvent.type(screen.getByLabelText('Number of tags'), '5000');
    await userEvent.click(screen.getByRole('button', { name: 'Mint batch' }));
    expect(await screen.findByText('Maximum: 10000.')).toBeInTheDocument();
    expect(screen.getByLabelText('Number of tags')).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByLabelText('Label')).not.toHaveAttribute('aria-invalid');
  });

  describe('downloads', () => {
    const saved: Array<{ href: string; download: string }> = [];
    beforeEach(() => {
      // jsdom has no Blob URLs and no downloads: record what the browser would have saved.
      URL.createObjectURL = vi.fn(() => 'blob:tag-batch-file');
      URL.revokeObjectURL = vi.fn();
      vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
        saved.push({ href: this.href, download: this.download });
      });
    });
    afterEach(() => {
      saved.length = 0;
      vi.restoreAllMocks();
    });

    it('fetches each file with the token and saves it under the server’s name', async () => {
      const fetch = gateway({
        [tagBatchesRoute]: () => jsonResponse(200, { batches: [batch({ pages: 3 })] }),
        [`GET /api/v1/admin/tag-batches/${BATCH_ID}/sheet.pdf`]: () =>
          new Response('%PDF-1.7', { headers: { 'content-type': 'application/pdf', 'content-disposition': 'attachment; filename="stickers-march.pdf"' } }),
        [`GET /api/v1/admin/tag-batches/${BATCH_ID}/codes.csv`]: () => new Response('code\nABCD-EFGH-JKMN-PQRS\n', { headers: { 'content-type': 'text/csv' } }),
        [`GET /api/v1/admin/tag-batches/${BATCH_ID}/sheet`]: () =>
          new Response('<svg/>', { headers: { 'content-type': 'image/svg+xml', 'content-disposition': `inline; filename*=UTF-8''tag%20sheet%202.svg` } }),
      });
      const { api } = renderApp('/admin/tag-batches', { fetch, token: adminToken() });
      await userEvent.click(await screen.findByRole('button', { name: 'PDF sheet: Stickers, March' }));
      await waitFor(() => expect(saved).toEqual([{ href: 'blob:tag-batch-file', download: 'stickers-march.pdf' }]));
      const [, pdfCall] = callsTo(fetch, 'GET', `/api/v1/admin/tag-batches/${BATCH_ID}/sheet.pdf`)[0];
      expect(headersOf(pdfCall).authorization).toBe(`Bearer ${api.getToken()}`);
      expect(await (vi.mocked(URL.createObjectURL).mock.calls[0][0] as Blob).text()).toBe('%PDF-1.7');

      // No name from the server: one of our own.
      await userEvent.click(screen.getByRole('button', { name: 'CSV of codes: Stickers, March' }));
      await waitFor(() => expect(saved[1]?.download).toBe(`tag-batch-${BATCH_ID}.csv`));

      await userEvent.selectOptions(screen.getByLabelText('Page'), '2 of 3');
      await userEvent.click(screen.getByRole('button', { name: 'SVG page: Stickers, March' }));
      await waitFor(() => expect(saved[2]?.download).toBe('tag sheet 2.svg'));
      const [svgUrl, svgCall] = callsTo(fetch, 'GET', `/api/v1/admin/tag-batches/${BATCH_ID}/sheet`)[0];
      expect(String(svgUrl)).toBe(`/api/v1/admin/tag-batches/${BATCH_ID}/sheet?page=2`);
      expect(headersOf(svgCall).authorization).toBe(`Bearer ${api.getToken()}`);
    });

    it('says when a download failed', async () => {
      const fetch = gateway({
        [tagBatchesRoute]: () => jsonResponse(200, { batches: [batch()] }),
        [`GET /api/v1/admin/tag-batches/${BATCH_ID}/sheet.pdf`]: () => jsonResponse(404, { response_code: 'NOT_FOUND', message: 'x' }),
      });
      renderApp('/admin/tag-batches', { fetch, token: adminToken() });
      await userEvent.click(await screen.findByRole('button', { name: 'PDF sheet: Stickers, March' }));
      expect(await screen.findByText('The download failed. The requested resource was not found on our server.')).toBeInTheDocument();
      expect(saved).toEqual([]);
    });
  });
});

describe('tag batches (everyone else)', () => {
  it('shows the menu link to admins only', async () => {
    const fetch = gateway({ 'GET /api/v1/user/items': () => jsonResponse(200, []), [tagBatchesRoute]: () => jsonResponse(200, { batches: [] }) });
    const { unmount } = renderApp('/items', { fetch, token: fakeToken() });
    const menu = await screen.findByRole('navigation', { name: 'Main menu' });
    await within(menu).findByRole('link', { name: 'Account' });
    expect(within(menu).queryByRole('link', { name: 'Tag batches' })).not.toBeInTheDocument();
    unmount();

    renderApp('/items', { fetch, token: adminToken() });
    await userEvent.click(await within(await screen.findByRole('navigation', { name: 'Main menu' })).findByRole('link', { name: 'Tag batches' }));
    expect(await screen.findByRole('heading', { name: 'Tag batches', level: 1 })).toBeInTheDocument();
  });

  it('shows a non-admin the page-not-found screen, and asks the gateway nothing', async () => {
    const fetch = gateway({});
    renderApp('/admin/tag-batches', { fetch, token: fakeToken() });
    expect(await screen.findByRole('heading', { name: 'Page not found' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Mint batch' })).not.toBeInTheDocument();
    expect(screen.queryByText('Tag batches')).not.toBeInTheDocument();
    expect(fetch.mock.calls.filter(([url]) => String(url).startsWith('/api/v1/admin'))).toEqual([]);
  });

  it('asks a visitor to log in', async () => {
    renderApp('/admin/tag-batches');
    expect(await screen.findByRole('heading', { name: 'You need to be logged in' })).toBeInTheDocument();
  });
});
