import { useQueryClient } from '@tanstack/react-query';
import type { ParseKeys } from 'i18next';
import { useEffect, useRef } from 'react';
import { useNavigate } from 'react-router';
import type { PublicItem } from '@homing/contracts';
import { useFlash } from '../../lib/flash';
import { forgetItem, itemKeys } from './api';

/**
 * For a change after which the item is no longer the user's (delete, leave): runs it, says so and goes to the items
 * list, which no longer shows the item. Awaited rather than in `mutate`'s callbacks, which are skipped when the
 * confirmation unmounts first and would leave the user on the page of an item they no longer have. The item's own
 * queries are forgotten only as its page unmounts (forgetItem says why). Resolves with the error, left to the caller
 * to show, when the change fails.
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
    // The list shows the change at once; its refetch (the mutation invalidated it) confirms it.
    queryClient.setQueryData<PublicItem[]>(itemKeys.owned, (items) => items?.filter((item) => item.code !== code));
    await queryClient.invalidateQueries({ queryKey: itemKeys.owned, exact: true, refetchType: 'none' });
    flash.show('success', done);
    await navigate('/items');
    return null;
  };
}
