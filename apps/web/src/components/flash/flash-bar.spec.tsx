import { act, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { AppProvider } from '../../app/provider';
import { createI18n } from '../../i18n/i18n';
import { ApiClient } from '../../lib/api-client';
import { FLASH_VISIBLE_MS, useFlash } from '../../lib/flash';
import { FlashBar } from './flash-bar';

function ShowButton() {
  const { show } = useFlash();
  return (
    <button type="button" onClick={() => show('success', 'itemForm.saved')}>
      show
    </button>
  );
}

describe('the flash bar', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('shows a message for 3 seconds, then hides it', () => {
    render(
      <AppProvider i18n={createI18n()} api={new ApiClient({ storage: null })}>
        <ShowButton />
        <FlashBar />
      </AppProvider>,
    );
    act(() => screen.getByRole('button', { name: 'show' }).click());
    expect(screen.getByRole('status')).toHaveTextContent('Item saved.');

    act(() => vi.advanceTimersByTime(FLASH_VISIBLE_MS - 1));
    expect(screen.getByText('Item saved.')).toBeInTheDocument();
    act(() => vi.advanceTimersByTime(1));
    expect(screen.queryByText('Item saved.')).not.toBeInTheDocument();
    expect(FLASH_VISIBLE_MS).toBe(3000);
  });

  it('says a message on screen again in a newly chosen language, its values too', async () => {
    const i18n = createI18n();
    function ShowNested() {
      const { show } = useFlash();
      return (
        <button type="button" onClick={() => show('error', 'admin.batches.downloadFailed', { reason: { key: 'errors.serverTrouble' } })}>
          nested
        </button>
      );
    }
    render(
      <AppProvider i18n={i18n} api={new ApiClient({ storage: null })}>
        <ShowButton />
        <ShowNested />
        <FlashBar />
      </AppProvider>,
    );
    act(() => screen.getByRole('button', { name: 'show' }).click());
    expect(screen.getByTestId('flash')).toHaveTextContent('Item saved.');
    await act(() => i18n.changeLanguage('nl'));
    expect(screen.getByTestId('flash')).toHaveTextContent(i18n.t('itemForm.saved'));
    expect(screen.getByTestId('flash')).not.toHaveTextContent('Item saved.');

    act(() => screen.getByRole('button', { name: 'nested' }).click());
    const dutch = screen.getByTestId('flash').textContent;
    await act(() => i18n.changeLanguage('es'));
    expect(screen.getByTestId('flash').textContent).not.toBe(dutch);
    expect(screen.getByTestId('flash')).toHaveTextContent(i18n.t('errors.serverTrouble'));
  });
});
