import { useQueryClient } from '@tanstack/react-query';
import type { ParseKeys } from 'i18next';
import { useEffect, useRef } from 'react';
import { useNavigate } from 'react-router';
import { useFlash } from '../../lib/flash';
import { forgetItem } from './api';

/**
 * For a change after which the item is no longer the user's (delete, leave): runs it, says so and goes to the items
 * list (the mutation has taken the item out of it). Awaited rather than in `mutate`'s callbacks, which are skipped
 * when the confirmation unmounts first and would leave the user on the page of an item they no longer have. The item's
 * own queries are forgotten only as its page unmounts (forgetItem says why). Resolves with the error, left to the
 * caller to show, when the change fails.
 */
export function useLeaveGoneItem(code: string) {
  const navigate = useNavigate();
  const flash = useFlash();
  const queryClient = useQueryClient();
  const gone = useRef(false);

  useEffect(
    () => () => {
      if (gone.current) forgetItem(queryClient, code);
    },
    [queryClient, code],
  );

  return async (change: () => Promise<unknown>, done: ParseKeys): Promise<{ error: unknown } | null> => {
    try {
      await change();
    } catch (error) {
      return { error };
    }
    gone.current = true;
    flash.show('success', done);
    await navigate('/items');
    return null;
  };
}
