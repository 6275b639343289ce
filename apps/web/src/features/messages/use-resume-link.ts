import { useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';

import { useApi } from '../../lib/api-context';
import { ApiError } from '../../lib/api-transport';
import { resumeFinder } from './api';

/** `exchanging` a resume link's token, `expired` when the server refused it, `failed` when it could not answer. */
export type ResumeState = { status: 'none' | 'exchanging' | 'expired' } | { status: 'failed'; error: unknown };

/**
 * `/found/{code}?resume=<token>` (a finder's e-mail): exchanges the token once for a finder token of their
 * conversation, hands it to `keep` (stored as if this browser had written), and takes `resume` out of the address,
 * so neither history nor a reload holds it.
 */
export function useResumeLink(code: string, keep: (finderToken: string) => void): ResumeState {
  const api = useApi();
  const [params, setParams] = useSearchParams();
  const [token] = useState(() => params.get('resume'));
  const [state, setState] = useState<ResumeState>({ status: token ? 'exchanging' : 'none' });
  // Once per page, whatever the effect's re-runs (React's strict mode runs it twice).
  const started = useRef(false);

  useEffect(() => {
    if (!token || started.current) return;
    started.current = true;
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        next.delete('resume');
        return next;
      },
      { replace: true },
    );
    resumeFinder(api, code, token).then(
      ({ finder_token }) => {
        keep(finder_token);
        setState({ status: 'none' });
      },
      (error: unknown) => setState(error instanceof ApiError && error.status >= 400 && error.status < 500 ? { status: 'expired' } : { status: 'failed', error }),
    );
  }, [api, code, token, keep, setParams]);

  return state;
}
