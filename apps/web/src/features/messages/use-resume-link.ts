import { useEffect, useRef, useState } from 'react';

import { useApi } from '../../lib/api-context';
import { ApiError } from '../../lib/api-transport';
import { resumeFinder } from './api';

/** `exchanging` a resume link's token, `expired` when the server refused it, `failed` when it could not answer. */
export type ResumeState = { status: 'none' | 'exchanging' | 'expired' } | { status: 'failed'; error: unknown };

/**
 * The page's address as the resume link reads it: the app's router in the app, `window.location` on the finder
 * page's own entry (src/finder-main.tsx), which has no router.
 */
export interface ResumeAddress {
  /** The `resume` parameter of the address the page opened with, if any. */
  token: string | null;
  /** Takes `resume` out of the address, replacing the history entry. */
  drop: () => void;
}

/** The resume address of the page as the browser has it, for a page without the app's router. */
export function windowResumeAddress(): ResumeAddress {
  return {
    token: new URLSearchParams(window.location.search).get('resume'),
    drop: () => {
      const url = new URL(window.location.href);
      url.searchParams.delete('resume');
      window.history.replaceState(window.history.state, '', url);
    },
  };
}

/**
 * `/found/{code}?resume=<token>` (a finder's e-mail): exchanges the token once for a finder token of their
 * conversation, hands it to `keep` (stored as if this browser had written), and takes `resume` out of the address,
 * so neither history nor a reload holds it.
 */
export function useResumeLink(code: string, keep: (finderToken: string) => void, address: ResumeAddress): ResumeState {
  const api = useApi();
  // The address the page opened with: taking `resume` out of it changes the address, not the exchange begun.
  const [{ token, drop }] = useState(() => address);
  const [state, setState] = useState<ResumeState>({ status: token ? 'exchanging' : 'none' });
  // Once per page, whatever the effect's re-runs (React's strict mode runs it twice).
  const started = useRef(false);

  useEffect(() => {
    if (!token || started.current) return;
    started.current = true;
    drop();
    resumeFinder(api, code, token).then(
      ({ finder_token }) => {
        keep(finder_token);
        setState({ status: 'none' });
      },
      (error: unknown) => setState(error instanceof ApiError && error.status >= 400 && error.status < 500 ? { status: 'expired' } : { status: 'failed', error }),
    );
  }, [api, code, token, drop, keep]);

  return state;
}
