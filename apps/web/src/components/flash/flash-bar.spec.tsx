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
    <button type="button" onClick={() => show('success', 'Item saved.')}>
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
});
