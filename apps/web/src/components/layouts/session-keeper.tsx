import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';

import { useApi } from '../../lib/api-context';
import { useFlash } from '../../lib/flash';

const ACTIVITY_EVENTS = ['mousemove', 'touchmove', 'keydown'] as const;

/**
 * Keeps the token fresh while the user is active (spec §4: the refresh is also checked on user activity; the client
 * looks at most once a second) and says so when the session could not be kept.
 */
export function SessionKeeper() {
  const api = useApi();
  const { show: showFlash } = useFlash();
  const { t } = useTranslation();

  useEffect(() => {
    const onActivity = () => {
      if (api.getToken()) void api.refreshIfDue();
    };
    for (const event of ACTIVITY_EVENTS) window.addEventListener(event, onActivity, { passive: true });
    const stop = api.onSessionChange((_token, reason) => {
      if (reason === 'expired') showFlash('warning', 'flash.sessionExpired');
    });
    return () => {
      for (const event of ACTIVITY_EVENTS) window.removeEventListener(event, onActivity);
      stop();
    };
  }, [api, showFlash, t]);

  return null;
}
